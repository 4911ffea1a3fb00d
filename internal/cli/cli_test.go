package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/golden"
)

func TestHelp_EveryCommandIsGoldenAndNamesExitCodes(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"help/breaker.golden":  {"--help"},
		"help/evaluate.golden": {"evaluate", "--help"},
		"help/demo.golden":     {"demo", "--help"},
		"help/init.golden":     {"init", "--help"},
		"help/gate.golden":     {"gate", "--help"},
		"help/protocol.golden": {"protocol", "--help"},
		"help/action.golden":   {"action", "--help"},
		"help/ledger.golden":   {"ledger", "--help"},
		"help/replay.golden":   {"replay", "--help"},
		"help/stats.golden":    {"stats", "--help"},
		"help/trailers.golden": {"trailers", "--help"},
		"help/results.golden":  {"results", "--help"},
		"help/version.golden":  {"version", "--help"},
		"help/serve.golden":    {"serve", "--help"},
	}
	cliDoc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if golden.Updating() {
		t.Cleanup(func() {
			if err := os.WriteFile("../../docs/cli.md", cliDoc, 0o644); err != nil {
				t.Error(err)
			}
		})
	}
	for name, args := range cases {
		stdout, stderr, code := runCLI(t, "", args...)
		if code != ExitClosed || stderr != "" {
			t.Errorf("breaker %s: exit %d, stderr %q; want 0 and no stderr", strings.Join(args, " "), code, stderr)
		}
		matchGolden(t, name, stdout)
		// The CLI reference is built from the same text: each command's
		// help, verbatim, in a text block of docs/cli.md.
		if golden.Updating() {
			cliDoc = replaceHelpBlock(cliDoc, stdout)
		}
		if !strings.Contains(string(cliDoc), "```text\n"+stdout+"```\n") {
			t.Errorf("docs/cli.md does not show breaker %s as it prints it; -update copies %s there", strings.Join(args, " "), name)
		}
		codes := []string{"\n  0 ", "\n  1 ", "\n  2 ", "\n  42 "}
		if args[0] == "protocol" || args[0] == "init" || args[0] == "trailers" || args[0] == "results" || args[0] == "version" || args[0] == "replay" || args[0] == "stats" || args[0] == "serve" {
			codes = codes[:3] // they never trip, so they do not say 42
			if strings.Contains(stdout, "\n  42 ") {
				t.Errorf("breaker %s --help names exit code 42, which it never returns", args[0])
			}
		}
		for _, c := range codes {
			if !strings.Contains(stdout, c) {
				t.Errorf("breaker %s: help does not name exit code%s", strings.Join(args, " "), strings.TrimRight(c, " "))
			}
		}
	}
}

func TestHelp_TopLevelListsEveryCommand(t *testing.T) {
	t.Parallel()
	stdout, _, _ := runCLI(t, "", "help")
	for _, c := range commands() {
		if !strings.Contains(stdout, "\n  "+c.name+" ") {
			t.Errorf("breaker help does not list %q", c.name)
		}
	}
}

func TestMain_UsageErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"; run`},
		{[]string{"inti"}, `unknown command "inti"; did you mean init?`},
		{[]string{"evalute"}, `did you mean evaluate?`},
		{[]string{"GATE"}, `did you mean gate?`},
		{[]string{"evaluate", "--format", "yaml"}, "--format"},
		{[]string{"evaluate", "--no-such-flag"}, "no-such-flag"},
		{[]string{"demo", "--format", "html"}, "--format"},
		{[]string{"action", "extra"}, "unexpected argument"},
	}
	for _, tc := range cases {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("breaker %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		stdout, _, code := runCLI(t, "", args...)
		if code != ExitClosed || !strings.HasPrefix(stdout, "breaker "+Version+" (go") {
			t.Errorf("breaker %v: exit %d, %q", args, code, stdout)
		}
	}
}

// help COMMAND prints that command's help, as COMMAND --help does.
func TestHelp_Command(t *testing.T) {
	t.Parallel()
	want, _, _ := runCLI(t, "", "evaluate", "--help")
	got, _, code := runCLI(t, "", "help", "evaluate")
	if code != ExitClosed || got != want || !strings.HasPrefix(got, "Usage: breaker evaluate") {
		t.Errorf("help evaluate: exit %d, %q", code, got)
	}
}

// The demo is the README's first command: its output is a golden file in
// every format, and it must trip the breaker.
func TestDemo_TripsAndIsGolden(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"markdown", "text", "json"} {
		stdout, stderr, code := runCLI(t, "", "demo", "--format", format)
		if code != ExitTripped {
			t.Fatalf("demo --format %s: exit %d (stderr %q), want %d", format, code, stderr, ExitTripped)
		}
		matchGolden(t, "demo/demo."+format+".golden", stdout)
	}
	stdout, _, _ := runCLI(t, "", "demo", "--format", "json")
	var rep struct {
		Schema     string  `json:"schema"`
		State      string  `json:"state"`
		Tripped    bool    `json:"tripped"`
		TripReason *string `json:"trip_reason"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("demo json: %v", err)
	}
	if rep.Schema != "greenlight-breaker/v1" || !rep.Tripped || rep.TripReason == nil || *rep.TripReason != "per_test" || rep.State != "OPEN" {
		t.Errorf("demo json = schema %q tripped %v reason %v state %q; want v1, tripped per_test OPEN",
			rep.Schema, rep.Tripped, rep.TripReason, rep.State)
	}
}

// The README shows the demo's comment and the no-trailer comment as the
// golden files have them, headings demoted by two levels so they stay out
// of the README's outline.
func TestDocs_ShowTheDemoComment(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"testdata/demo/demo.markdown.golden", "../action/testdata/comments/no-trailers.md"} {
		docShows(t, "../../docs/comments.md", name)
	}
}

func docShows(t *testing.T, doc, name string) {
	t.Helper()
	golden, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	fence := false
	for _, l := range strings.Split(strings.TrimRight(string(golden), "\n"), "\n") {
		if strings.HasPrefix(l, "<!-- greenlight-breaker") {
			continue // the sticky comment's marker
		}
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if !fence && heading.MatchString(l) {
			l = "##" + l
		}
		lines = append(lines, l)
	}
	if !strings.Contains(string(readme), strings.Join(lines, "\n")) {
		t.Errorf("%s's example comment differs from %s; copy it again (headings demoted by ##)", doc, name)
	}
}

var heading = regexp.MustCompile(`^#{1,4} `)

// replaceHelpBlock puts help, the text of one command's --help, in place
// of that command's text block of docs/cli.md (the block that starts with
// the same Usage line).
func replaceHelpBlock(doc []byte, help string) []byte {
	usage, _, _ := strings.Cut(help, "\n")
	d := string(doc)
	start := strings.Index(d, "```text\n"+usage+"\n")
	if start < 0 {
		return doc
	}
	body := start + len("```text\n")
	end := strings.Index(d[body:], "```\n")
	if end < 0 {
		return doc
	}
	return []byte(d[:body] + help + d[body+end:])
}
