package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The project's own rule for the workflows it shows and runs: a job that
// runs repository code (a run: step after a checkout) holds no write
// permission and no persisted credentials — the agent's code runs there,
// and with a write token or the token in .git/config it could reach the
// verdict. The breaker's own job, which runs no repository code, holds the
// write scopes.

type workflow struct {
	Permissions any             `yaml:"permissions"`
	Jobs        map[string]*job `yaml:"jobs"`
}

type job struct {
	Permissions any    `yaml:"permissions"`
	Steps       []step `yaml:"steps"`
	Uses        string `yaml:"uses"`
}

type step struct {
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
}

// unsafeJobs returns why each job of a workflow breaks the rule.
func unsafeJobs(src string) ([]string, error) {
	var wf workflow
	if err := yaml.Unmarshal([]byte(src), &wf); err != nil {
		return nil, err
	}
	var out []string
	names := make([]string, 0, len(wf.Jobs))
	for n := range wf.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		j := wf.Jobs[name]
		checkout, runs := -1, false
		for i, s := range j.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "actions/checkout@"):
				checkout = i
				if v := fmt.Sprint(s.With["persist-credentials"]); v != "false" && runsAfter(j.Steps, i) {
					out = append(out, fmt.Sprintf("job %s: its checkout keeps the token in .git/config (persist-credentials is not false) while repository code runs", name))
				}
			case s.Run != "" && checkout >= 0 && !gitOnly(s.Run):
				runs = true
			}
		}
		if !runs {
			continue
		}
		perms := j.Permissions
		if perms == nil {
			perms = wf.Permissions
		}
		if w := writes(perms); len(w) > 0 {
			out = append(out, fmt.Sprintf("job %s runs repository code with write permissions: %s", name, strings.Join(w, ", ")))
		}
	}
	return out, nil
}

// gitOnly reports whether a run: script is git commands only (the Codex
// recipe's push): git runs no code of the checked-out tree — hooks live in
// .git, which no commit holds, and git apply refuses paths inside it.
func gitOnly(run string) bool {
	n := 0
	for _, l := range strings.Split(run, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if !strings.HasPrefix(l, "git ") || strings.ContainsAny(l, ";|&`") || strings.Contains(l, "$(") {
			return false
		}
		n++
	}
	return n > 0
}

func runsAfter(steps []step, i int) bool {
	for _, s := range steps[i+1:] {
		if s.Run != "" && !gitOnly(s.Run) {
			return true
		}
	}
	return false
}

// writes lists the write scopes of a permissions value: nil (the
// repository's default, which may be write-all) and "write-all" count.
func writes(p any) []string {
	switch v := p.(type) {
	case nil:
		return []string{"the default token permissions (set permissions: contents: read)"}
	case string:
		if v == "read-all" || v == "{}" || v == "" {
			return nil
		}
		return []string{v}
	case map[string]any:
		var out []string
		for k, x := range v {
			if fmt.Sprint(x) == "write" {
				out = append(out, k+": write")
			}
		}
		sort.Strings(out)
		return out
	}
	return []string{fmt.Sprint(p)}
}

// shownWorkflows are every complete workflow the project shows or runs:
// the README's and docs/'s yaml blocks with jobs, and .github/workflows.
func shownWorkflows(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string]string{}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, f := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(data), "```yaml\n")
		for i, b := range blocks[1:] {
			body, _, _ := strings.Cut(b, "\n```")
			if strings.Contains(body, "\njobs:") {
				out[fmt.Sprintf("%s block %d", filepath.Base(f), i+1)] = body
			}
		}
	}
	// The project's CI; release.yml builds and pushes the project's own
	// image from a maintainer's tag, no agent's code, and is left out.
	for _, f := range []string{filepath.Join(root, ".github", "workflows", "ci.yml")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(data)
	}
	return out
}

// Every workflow the README and docs/ show (and the project's own) keeps
// repository code away from write permissions and persisted credentials.
func TestWorkflows_CodeRunsWithoutWriteAccess(t *testing.T) {
	t.Parallel()
	wfs := shownWorkflows(t)
	if len(wfs) < 6 {
		t.Fatalf("found %d workflows", len(wfs))
	}
	for name, src := range wfs {
		problems, err := unsafeJobs(src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// The rule fails on the unsafe shape: tests and the breaker in one job with
// write scopes and the default checkout.
func TestWorkflows_RuleRefusesTheUnsafeShape(t *testing.T) {
	t.Parallel()
	unsafe := `
on: pull_request
permissions:
  contents: write
  checks: write
jobs:
  test-and-judge:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: go test ./...
      - uses: greenlight-ci/breaker@v1
`
	problems, err := unsafeJobs(unsafe)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"job test-and-judge: its checkout keeps the token in .git/config (persist-credentials is not false) while repository code runs",
		"job test-and-judge runs repository code with write permissions: checks: write, contents: write",
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// pinnedUse is how every third-party action is named: a full commit SHA,
// which no one can move, with the release it was cut from in a comment, as
// Dependabot writes and updates it.
var pinnedUse = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v?\d+\.\d+(\.\d+)?\b`)

// unpinnedActions lists the uses: lines of a workflow that name a
// third-party action by a movable ref. Local actions, the breaker itself
// (whose pin is the reader's choice, shown in docs/installing.md) and
// docker:// references are left out.
func unpinnedActions(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		_, ref, ok := strings.Cut(line, "uses: ")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		ref = strings.TrimSpace(ref)
		if strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "docker://") || strings.HasPrefix(ref, "your-org/breaker") {
			continue
		}
		if !pinnedUse.MatchString(ref) {
			out = append(out, ref)
		}
	}
	return out
}

// Every third-party action the project runs or shows is pinned by SHA with
// its version in a comment; .github/dependabot.yml keeps the pins fresh.
func TestWorkflows_ThirdPartyActionsPinnedBySHA(t *testing.T) {
	t.Parallel()
	wfs := shownWorkflows(t)
	root := filepath.Join("..", "..")
	for _, f := range []string{".github/workflows/release.yml", "binary/action.yml"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		wfs[f] = string(data)
	}
	for name, src := range wfs {
		for _, ref := range unpinnedActions(src) {
			t.Errorf("%s: %q is not pinned by SHA (want owner/repo@<40-hex sha> # vX.Y.Z)", name, ref)
		}
	}
	// A git-only step is git's commands alone, nothing chained to them.
	for run, want := range map[string]bool{"git apply p\ngit push origin HEAD": true, "git apply p && ./build.sh": false, "git log $(./x)": false, "make\n": false, "": false} {
		if gitOnly(run) != want {
			t.Errorf("gitOnly(%q) = %v", run, !want)
		}
	}
	// The check itself catches a moving tag.
	if got := unpinnedActions("      - uses: actions/checkout@v4\n      - uses: actions/setup-go@b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7.0.0\n"); len(got) != 1 || got[0] != "actions/checkout@v4" {
		t.Errorf("unpinnedActions = %q, want only the tag ref", got)
	}
	data, err := os.ReadFile(filepath.Join(root, ".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, eco := range []string{"gomod", "github-actions", "docker"} {
		if !strings.Contains(string(data), `package-ecosystem: "`+eco+`"`) && !strings.Contains(string(data), "package-ecosystem: "+eco) {
			t.Errorf(".github/dependabot.yml has no %s ecosystem", eco)
		}
	}
}
