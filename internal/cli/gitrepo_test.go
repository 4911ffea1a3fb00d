package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// testRepo is a real git repository in t.TempDir() (gitrepo), with the
// suite's own clock, a minute a commit, so its SHAs are reproducible.
type testRepo struct {
	*gitrepo.Repo
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	g := gitrepo.Init(t)
	g.Dates = func(tick int) string { return fmt.Sprintf("2026-02-18T09:%02d:00Z", tick%60) }
	r := &testRepo{Repo: g, t: t, dir: g.Dir}
	r.commit("Initial commit", map[string]string{"README.md": "shop\n", "internal/users/service.go": "package users\n"})
	return r
}

// git runs a git command in the repository and returns its trimmed stdout.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return r.Git(args...)
}

// commit writes files and commits them with message; it returns the SHA.
func (r *testRepo) commit(message string, files map[string]string) string {
	r.t.Helper()
	return r.CommitFiles(message, files)
}

// attempt commits one attempt on test with the given extra trailers.
func (r *testRepo) attempt(slice, test, strategy string, extra ...string) string {
	r.t.Helper()
	msg := fmt.Sprintf("%s\n\nGreenlight-Slice: %s\nGreenlight-Test: %s\nGreenlight-Strategy: %s\n", strategy, slice, test, strategy)
	for _, e := range extra {
		msg += e + "\n"
	}
	file := fmt.Sprintf("internal/users/attempt%d.go", r.Tick)
	return r.commit(msg, map[string]string{file: "package users\n"})
}

// mergeTrick moves main on, merges branch into it (first parent main,
// second parent the branch's head) and points branch at the merge, checked
// out: a fast-forward push that puts the old attempts behind a second
// parent. It returns the merge.
func (r *testRepo) mergeTrick(branch string) string {
	r.t.Helper()
	r.git("checkout", "-q", "main")
	r.commit("main moves on", map[string]string{"README.md": "shop v2\n"})
	r.git("checkout", "-q", "--detach", "main")
	r.git("merge", "-q", "--no-ff", "-m", "Merge the branch into main", branch)
	r.git("branch", "-f", branch, "HEAD")
	r.git("checkout", "-q", branch)
	return r.git("rev-parse", "HEAD")
}

// results writes a JUnit XML result file (untracked) with the given statuses.
func (r *testRepo) results(name string, statuses map[string]string) {
	r.t.Helper()
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<testsuite name=\"users\">\n")
	for test, status := range statuses {
		fmt.Fprintf(&b, "  <testcase classname=\"users\" name=%q>", test)
		switch status {
		case "fail":
			b.WriteString(`<failure message="expected 409, got 500">service_test.go:42: expected 409, got 500</failure>`)
		case "skip":
			b.WriteString(`<skipped/>`)
		}
		b.WriteString("</testcase>\n")
	}
	b.WriteString("</testsuite>\n")
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(b.String()), 0o644); err != nil {
		r.t.Fatal(err)
	}
}
