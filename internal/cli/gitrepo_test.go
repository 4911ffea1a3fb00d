package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testRepo is a real git repository in t.TempDir(), driven by the git CLI
// with fixed identities and dates so SHAs are reproducible.
type testRepo struct {
	t    *testing.T
	dir  string
	tick int
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.commit("Initial commit", map[string]string{"README.md": "shop\n", "internal/users/service.go": "package users\n"})
	return r
}

// git runs a git command in the repository and returns its trimmed stdout.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := fmt.Sprintf("2026-02-18T09:%02d:00Z", r.tick%60)
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com", "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files and commits them with message; it returns the SHA.
func (r *testRepo) commit(message string, files map[string]string) string {
	r.t.Helper()
	r.tick++
	for name, body := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
		r.git("add", name)
	}
	r.git("commit", "-q", "--allow-empty", "-m", message)
	return r.git("rev-parse", "HEAD")
}

// attempt commits one attempt on test with the given extra trailers.
func (r *testRepo) attempt(slice, test, strategy string, extra ...string) string {
	r.t.Helper()
	msg := fmt.Sprintf("%s\n\nGreenlight-Slice: %s\nGreenlight-Test: %s\nGreenlight-Strategy: %s\n", strategy, slice, test, strategy)
	for _, e := range extra {
		msg += e + "\n"
	}
	file := fmt.Sprintf("internal/users/attempt%d.go", r.tick)
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
