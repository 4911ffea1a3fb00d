package actionenv

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The packaging files these tests keep in step with the code, from this
// package's directory.
const (
	actionYMLPath  = "../../action.yml"
	dockerfilePath = "../../Dockerfile"
	actionDocPath  = "../../docs/action.md"
	publishGoPath  = "../action/publish.go"
	gateGoPath     = "../action/gate.go"
)

// actionOutputs are the outputs setOutputs in internal/action/publish.go
// writes, in its order. TestActionYML_Outputs also reads them from that file.
var actionOutputs = []string{
	"state", "tripped", "trip-reason", "slice", "failed-attempts",
	"checkpoint-tag", "checkpoint-sha", "report-json", "comment-url", "prior-attempts",
}

// actionMeta is what the tests need of action.yml.
type actionMeta struct {
	inputs      []string          // in file order
	defaults    map[string]string // input → its default, unquoted; absent when none
	outputs     []string          // in file order
	described   map[string]bool   // "inputs.x" / "outputs.x" → has a description
	runs        map[string]string // the keys under runs, with their scalar values
	topLevelKey []string
}

var yamlKeyRE = regexp.MustCompile(`^( *)([A-Za-z0-9_-]+):(?: +(.*))?$`)

// parseActionMeta reads the shape action.yml is written in: block mappings
// indented by two spaces, scalar values (plain, single- or double-quoted) and
// folded or literal block scalars. It is no YAML parser; anything else is an
// error, so a change of shape is noticed rather than misread.
func parseActionMeta(src string) (actionMeta, error) {
	m := actionMeta{defaults: map[string]string{}, described: map[string]bool{}, runs: map[string]string{}}
	var top, item string
	block := -1 // indent of the key whose block scalar is being skipped
	for n, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if block >= 0 && (trimmed == "" || indent > block) {
			continue
		}
		block = -1
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.Contains(line, "\t") {
			return m, fmt.Errorf("line %d: a tab", n+1)
		}
		if (top == "runs" || top == "branding") && indent > 2 {
			continue // only the keys right under these are checked
		}
		g := yamlKeyRE.FindStringSubmatch(strings.TrimRight(line, " "))
		if g == nil {
			return m, fmt.Errorf("line %d: not a `key: value` line: %q", n+1, line)
		}
		key := g[2]
		value, err := yamlScalar(g[3])
		if err != nil {
			return m, fmt.Errorf("line %d: %w", n+1, err)
		}
		if isBlockIndicator(value) {
			block = len(g[1])
		}
		switch len(g[1]) {
		case 0:
			top, item = key, ""
			m.topLevelKey = append(m.topLevelKey, key)
		case 2:
			item = key
			switch top {
			case "inputs":
				if slices.Contains(m.inputs, key) {
					return m, fmt.Errorf("line %d: input %s declared twice", n+1, key)
				}
				m.inputs = append(m.inputs, key)
			case "outputs":
				if slices.Contains(m.outputs, key) {
					return m, fmt.Errorf("line %d: output %s declared twice", n+1, key)
				}
				m.outputs = append(m.outputs, key)
			case "runs":
				m.runs[key] = value
			}
		case 4:
			if item == "" {
				return m, fmt.Errorf("line %d: %s is indented under nothing", n+1, key)
			}
			switch {
			case key == "description" && value != "":
				m.described[top+"."+item] = true
			case key == "default" && top == "inputs":
				m.defaults[item] = value
			}
		default:
			return m, fmt.Errorf("line %d: unexpected indentation of %d", n+1, len(g[1]))
		}
	}
	return m, nil
}

func isBlockIndicator(v string) bool {
	switch v {
	case ">", ">-", "|", "|-":
		return true
	}
	return false
}

// yamlScalar unquotes a flow scalar and drops a trailing comment.
func yamlScalar(s string) (string, error) {
	s = strings.TrimSpace(s)
	var v, rest string
	switch {
	case strings.HasPrefix(s, "'"):
		end := 1
		for {
			i := strings.IndexByte(s[end:], '\'')
			if i < 0 {
				return "", fmt.Errorf("unterminated quote in %q", s)
			}
			end += i + 1
			if !strings.HasPrefix(s[end:], "'") {
				break
			}
			end++ // '' is a quote
		}
		v, rest = strings.ReplaceAll(s[1:end-1], "''", "'"), s[end:]
	case strings.HasPrefix(s, `"`):
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", fmt.Errorf("bad double-quoted scalar %q: %w", s, err)
		}
		v, rest = q, s[len(q):]
		if v, err = strconv.Unquote(q); err != nil {
			return "", err
		}
	default:
		v, _, _ = strings.Cut(s, " #")
		return strings.TrimSpace(v), nil
	}
	if rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, "#") {
		return "", fmt.Errorf("text after a quoted scalar: %q", s)
	}
	return v, nil
}

func readActionMeta(t *testing.T) actionMeta {
	t.Helper()
	src, err := os.ReadFile(actionYMLPath)
	if err != nil {
		t.Fatalf("read action.yml: %v", err)
	}
	m, err := parseActionMeta(string(src))
	if err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return m
}

func TestParseActionMeta(t *testing.T) {
	t.Parallel()
	src := `# a comment
name: x
description: >-
  folded: text that looks
    like: keys
inputs:
  a:
    description: the a
    default: 'it''s'
  b-c:
    description: |
      literal
    default: "q\"d" # comment
  d:
    default: plain # comment
outputs:
  o:
    description: out
runs:
  using: docker
  args:
    - one
`
	got, err := parseActionMeta(src)
	if err != nil {
		t.Fatalf("parseActionMeta() error = %v", err)
	}
	want := actionMeta{
		inputs:      []string{"a", "b-c", "d"},
		defaults:    map[string]string{"a": "it's", "b-c": `q"d`, "d": "plain"},
		outputs:     []string{"o"},
		described:   map[string]bool{"inputs.a": true, "inputs.b-c": true, "outputs.o": true},
		runs:        map[string]string{"using": "docker", "args": ""},
		topLevelKey: []string{"name", "description", "inputs", "outputs", "runs"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(actionMeta{})); diff != "" {
		t.Errorf("parseActionMeta() mismatch (-want +got):\n%s", diff)
	}

	for _, bad := range []string{
		"inputs:\n  a:\n  a:\n",               // duplicate
		"inputs:\n\ta:\n",                     // tab
		"inputs:\n  - a\n",                    // a sequence where a mapping belongs
		"inputs:\n  a:\n    default: 'open\n", // unterminated quote
		"inputs:\n      deep: x\n",            // indentation out of shape
	} {
		if _, err := parseActionMeta(bad); err == nil {
			t.Errorf("parseActionMeta(%q) error = nil, want an error", bad)
		}
	}
}

func TestActionYML_Inputs(t *testing.T) {
	t.Parallel()
	m := readActionMeta(t)
	if diff := cmp.Diff(InputNames, m.inputs); diff != "" {
		t.Errorf("action.yml inputs differ from actionenv.InputNames (-InputNames +action.yml):\n%s", diff)
	}
	for _, name := range m.inputs {
		if !m.described["inputs."+name] {
			t.Errorf("action.yml input %s has no description", name)
		}
	}
}

// TestActionYML_Defaults checks the declared defaults twice: against the Go
// constants, and by feeding them back as inputs, which must read the same as
// no input at all.
func TestActionYML_Defaults(t *testing.T) {
	t.Parallel()
	m := readActionMeta(t)
	none, err := New(mapEnv(map[string]string{"INPUT_TOKEN": "ghs_x"}), io.Discard).Inputs()
	if err != nil {
		t.Fatalf("Inputs() with no inputs: %v", err)
	}
	want := map[string]string{
		"token":                  "${{ github.token }}",
		"trailer-prefix":         breaker.DefaultTrailerPrefix,
		"tag-prefix":             breaker.DefaultTagPrefix,
		"bot-login":              none.BotLogin,
		"comment":                none.CommentMode,
		"fail-on-trip":           strconv.FormatBool(none.FailOnTrip),
		"dry-run":                strconv.FormatBool(none.DryRun),
		"check-name":             DefaultCheckName,
		"ledger-key":             "",
		"ledger-read":            none.LedgerRead,
		"app-id":                 "",
		"allow-pr-author":        strconv.FormatBool(none.AllowPRAuthor),
		"allow-no-ledger":        strconv.FormatBool(none.AllowNoLedger),
		"tests-outcome":          none.TestsOutcome,
		"results-artifact":       "",
		"policy":                 none.Policy,
		"phase":                  "",
		"threshold":              strconv.Itoa(none.Threshold),
		"mode":                   none.Mode,
		"on-trip-label":          "",
		"on-trip-remove-labels":  "",
		"on-trip-unassign":       "",
		"on-trip-request-review": "",
		"on-trip-draft":          strconv.FormatBool(none.OnTripDraft),
		"cancel-workflows":       strconv.FormatBool(none.CancelWorkflows),
		"pull-request":           "",
	}
	if diff := cmp.Diff(want, m.defaults); diff != "" {
		t.Errorf("action.yml defaults differ from the Go defaults (-Go +action.yml):\n%s", diff)
	}

	env := map[string]string{"INPUT_TOKEN": "ghs_x"}
	for name, v := range m.defaults {
		if name != "token" {
			env["INPUT_"+strings.ToUpper(name)] = v
		}
	}
	got, err := New(mapEnv(env), io.Discard).Inputs()
	if err != nil {
		t.Fatalf("Inputs() with action.yml's defaults: %v", err)
	}
	if diff := cmp.Diff(none, got); diff != "" {
		t.Errorf("action.yml's defaults read differently from no input (-none +defaults):\n%s", diff)
	}
}

var outputNameInGoRE = regexp.MustCompile(`\{Name: "([^"]+)", Value:`)

func TestActionYML_Outputs(t *testing.T) {
	t.Parallel()
	m := readActionMeta(t)
	if diff := cmp.Diff(actionOutputs, m.outputs); diff != "" {
		t.Errorf("action.yml outputs differ from what setOutputs writes (-setOutputs +action.yml):\n%s", diff)
	}
	for _, name := range m.outputs {
		if !m.described["outputs."+name] {
			t.Errorf("action.yml output %s has no description", name)
		}
	}

	// The judge's outputs (publish.go), then those only the gate writes.
	var inGo []string
	for _, path := range []string{publishGoPath, gateGoPath} {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		for _, g := range outputNameInGoRE.FindAllStringSubmatch(string(src), -1) {
			if !slices.Contains(inGo, g[1]) {
				inGo = append(inGo, g[1])
			}
		}
	}
	if diff := cmp.Diff(actionOutputs, inGo); diff != "" {
		t.Errorf("actionOutputs differ from the {Name: ..., Value: ...} outputs in %s; update this test's list and action.yml (-list +Go):\n%s", publishGoPath, diff)
	}
}

func TestActionYML_Runs(t *testing.T) {
	t.Parallel()
	m := readActionMeta(t)
	want := map[string]string{"using": "docker", "image": "Dockerfile"}
	if diff := cmp.Diff(want, m.runs); diff != "" {
		t.Errorf("action.yml runs mismatch (-want +got); `breaker action` takes no arguments, so no args and no entrypoint:\n%s", diff)
	}
	for _, key := range []string{"name", "description", "branding", "inputs", "outputs", "runs"} {
		if !slices.Contains(m.topLevelKey, key) {
			t.Errorf("action.yml has no %s", key)
		}
	}
}

// dockerInstructions returns the Dockerfile's instructions, continuation
// lines joined, comments and blank lines dropped.
func dockerInstructions(src string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(strings.TrimSpace(body) + " ")
			continue
		}
		cur.WriteString(trimmed)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, strings.TrimSpace(cur.String()))
	}
	return out
}

func TestDockerfile(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(dockerfilePath)
	if err != nil {
		t.Fatalf("read Dockerfile: %v", err)
	}
	ins := dockerInstructions(string(src))
	if len(ins) == 0 || !strings.EqualFold(strings.Fields(ins[0])[0], "FROM") {
		t.Fatalf("the Dockerfile's first instruction is not FROM: %q", ins)
	}
	var entrypoints []string
	lastFrom := -1
	for i, in := range ins {
		word, rest, _ := strings.Cut(in, " ")
		switch strings.ToUpper(word) {
		case "USER", "WORKDIR":
			t.Errorf("Dockerfile has %q; a Docker action runs as root in the mounted workspace, so neither USER nor WORKDIR", in)
		case "FROM":
			lastFrom = i
			entrypoints = nil // only the final stage's entrypoint counts
		case "ENTRYPOINT":
			entrypoints = append(entrypoints, strings.TrimSpace(rest))
		}
	}
	if len(entrypoints) != 1 {
		t.Fatalf("the final stage (from instruction %d) has %d ENTRYPOINTs, want 1", lastFrom+1, len(entrypoints))
	}
	var got []string
	if err := json.Unmarshal([]byte(entrypoints[0]), &got); err != nil {
		t.Fatalf("ENTRYPOINT %s is not the exec (JSON array) form: %v", entrypoints[0], err)
	}
	if want := []string{"/breaker", "action"}; !slices.Equal(got, want) {
		t.Errorf("ENTRYPOINT = %q, want %q", got, want)
	}
}

// pinnedBase matches a FROM image named by tag and by the digest of that
// tag's image index: the tag says what Dependabot follows, the digest what
// is built.
var pinnedBase = regexp.MustCompile(`^[a-z0-9][a-z0-9./_-]*:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$`)

// unpinnedBases returns the FROM images of a Dockerfile that are not
// name:tag@sha256:digest. A stage named earlier in the file (FROM build)
// is not an image and needs no pin.
func unpinnedBases(src string) []string {
	var bad []string
	stages := map[string]bool{}
	for _, in := range dockerInstructions(src) {
		f := strings.Fields(in)
		if len(f) < 2 || !strings.EqualFold(f[0], "FROM") {
			continue
		}
		args := f[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "--") {
			args = args[1:] // --platform=...
		}
		if len(args) == 0 {
			bad = append(bad, in)
			continue
		}
		if !stages[args[0]] && !pinnedBase.MatchString(args[0]) {
			bad = append(bad, args[0])
		}
		if len(args) == 3 && strings.EqualFold(args[1], "AS") {
			stages[args[2]] = true
		}
	}
	return bad
}

// TestDockerfile_BasesPinnedByDigest keeps both bases immutable: a tag
// alone lets whoever controls the registry change what the action runs.
func TestDockerfile_BasesPinnedByDigest(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(dockerfilePath)
	if err != nil {
		t.Fatalf("read Dockerfile: %v", err)
	}
	for _, img := range unpinnedBases(string(src)) {
		t.Errorf("Dockerfile: base %q is not pinned (want name:tag@sha256:<64 hex>, the tag's image index digest)", img)
	}
	// The rule catches what it is for.
	example := "FROM golang:1.26-bookworm AS build\nFROM build AS again\n" +
		"FROM gcr.io/distroless/static-debian12@sha256:" + strings.Repeat("a", 64) + "\n" +
		"FROM --platform=$BUILDPLATFORM alpine:3.20@sha256:" + strings.Repeat("b", 64) + "\n"
	want := []string{"golang:1.26-bookworm", "gcr.io/distroless/static-debian12@sha256:" + strings.Repeat("a", 64)}
	if diff := cmp.Diff(want, unpinnedBases(example)); diff != "" {
		t.Errorf("unpinnedBases(example) mismatch (-want +got):\n%s", diff)
	}
}

func TestDockerInstructions(t *testing.T) {
	t.Parallel()
	got := dockerInstructions("# c\nFROM a AS b\n\nRUN x \\\n    y\n  # inside\nENTRYPOINT [\"/z\"]\n")
	want := []string{"FROM a AS b", "RUN x y", `ENTRYPOINT ["/z"]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dockerInstructions() mismatch (-want +got):\n%s", diff)
	}
}

// TestActionDoc checks that the Action's page (docs/action.md) has a table row for
// every input under its "### Inputs" heading and for every output under
// "### Outputs".
func TestActionDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(actionDocPath)
	if err != nil {
		t.Fatalf("read %s: %v", actionDocPath, err)
	}
	m := readActionMeta(t)
	for heading, names := range map[string][]string{"### Inputs": m.inputs, "### Outputs": m.outputs} {
		_, section, ok := strings.Cut(string(doc), "\n"+heading+"\n")
		if !ok {
			t.Errorf("%s has no %q heading", actionDocPath, heading)
			continue
		}
		if i := strings.Index(section, "\n#"); i >= 0 {
			section = section[:i]
		}
		for _, name := range names {
			if !strings.Contains(section, "\n| `"+name+"` |") {
				t.Errorf("%s: %s has no table row for `%s`", actionDocPath, heading, name)
			}
		}
	}
}

// TestActionYML_DescriptionFitsTheMarketplace: the Marketplace takes a
// description of under 125 characters.
func TestActionYML_DescriptionFitsTheMarketplace(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(actionYMLPath)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^description: >-\n((?:  .*\n)+)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("action.yml has no folded description")
	}
	desc := strings.Join(strings.Fields(string(m[1])), " ")
	if n := len([]rune(desc)); n >= 125 {
		t.Errorf("description is %d characters, want under 125: %q", n, desc)
	}
}
