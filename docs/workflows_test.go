package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/setup"
)

// shownWorkflows are every complete workflow the project shows or runs:
// the README's and docs/'s yaml blocks with jobs, and .github/workflows.
func shownWorkflows(t *testing.T) map[string]string {
	t.Helper()
	root := ".."
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
		problems, err := setup.UnsafeJobs(src)
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
	problems, err := setup.UnsafeJobs(unsafe)
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

// Every third-party action the project runs or shows is pinned by SHA with
// its version in a comment; .github/dependabot.yml keeps the pins fresh.
func TestWorkflows_ThirdPartyActionsPinnedBySHA(t *testing.T) {
	t.Parallel()
	wfs := shownWorkflows(t)
	root := ".."
	for _, f := range []string{".github/workflows/release.yml", "binary/action.yml"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		wfs[f] = string(data)
	}
	for name, src := range wfs {
		for _, ref := range setup.UnpinnedActions(src) {
			t.Errorf("%s: %q is not pinned by SHA (want owner/repo@<40-hex sha> # vX.Y.Z)", name, ref)
		}
	}
	// The check itself catches a moving tag.
	if got := setup.UnpinnedActions("      - uses: actions/checkout@v4\n      - uses: actions/setup-go@b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7.0.0\n"); len(got) != 1 || got[0] != "actions/checkout@v4" {
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
