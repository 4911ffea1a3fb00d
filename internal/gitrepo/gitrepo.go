// Package gitrepo builds the real git repositories tests read: git itself
// makes every commit (the oracle for trailers and history), with fixed
// identities and dates, so a test's commits are the same at every run.
// Only tests import it.
package gitrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Epoch is the clock of the repositories' commits: each commit a second
// after the one before.
var Epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// Repo is a repository in a test's temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
	// Tick is the commits' clock, in seconds after Epoch.
	Tick int
	// Dates, when set, is the date of the commits at a tick (a suite
	// whose golden files name the commits it made keeps its own clock).
	Dates func(tick int) string
	n     int // files committed
}

// Init makes an empty repository on branch main; it skips the test when
// git is not installed.
func Init(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Open is a Repo over dir as it is (a clone a test makes there, say).
func Open(t testing.TB, dir string) *Repo { return &Repo{t: t, Dir: dir} }

// ShopDates is the shop's clock: a minute a commit from 2026-02-18 09:00.
func ShopDates(tick int) string { return fmt.Sprintf("2026-02-18T09:%02d:00Z", tick%60) }

// Shop is the repository the command's and the Action's end-to-end tests
// start from: a README and a users service on main, a minute a commit
// from 2026-02-18 09:00 (their golden files name these commits).
func Shop(t testing.TB) *Repo {
	t.Helper()
	r := Init(t)
	r.Dates = ShopDates
	r.CommitFiles("Initial commit", map[string]string{"README.md": "shop\n", "internal/users/service.go": "package users\n"})
	return r
}

// Attempt commits one attempt on test in slice, as an agent that follows
// the protocol does (Greenlight-Slice, -Test and -Strategy trailers, and
// extra ones), with a file of its own.
func (r *Repo) Attempt(slice, test, strategy string, extra ...string) string {
	r.t.Helper()
	msg := fmt.Sprintf("%s\n\nGreenlight-Slice: %s\nGreenlight-Test: %s\nGreenlight-Strategy: %s\n", strategy, slice, test, strategy)
	for _, e := range extra {
		msg += e + "\n"
	}
	file := fmt.Sprintf("internal/users/attempt%d.go", r.Tick)
	return r.CommitFiles(msg, map[string]string{file: "package users\n"})
}

// MergeTrick moves main on, merges branch into it (first parent main,
// second parent the branch's head) and points branch at the merge, checked
// out: a fast-forward push that puts the old attempts behind a second
// parent. It returns the merge.
func (r *Repo) MergeTrick(branch string) string {
	r.t.Helper()
	r.Git("checkout", "-q", "main")
	r.CommitFiles("main moves on", map[string]string{"README.md": "shop v2\n"})
	r.Git("checkout", "-q", "--detach", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "Merge the branch into main", branch)
	r.Git("branch", "-f", branch, "HEAD")
	r.Git("checkout", "-q", branch)
	return r.Git("rev-parse", "HEAD")
}

// JUnit writes a JUnit XML result file name (untracked): test → pass,
// fail or skip, in suite users.
func (r *Repo) JUnit(name string, statuses map[string]string) {
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
	if err := os.WriteFile(filepath.Join(r.Dir, name), []byte(b.String()), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// New makes a repository on branch main with one commit.
func New(t testing.TB) *Repo {
	t.Helper()
	r := Init(t)
	r.Commit("Initial commit")
	return r
}

func (r *Repo) date() string {
	if r.Dates != nil {
		return r.Dates(r.Tick)
	}
	return fmt.Sprintf("2026-03-02T09:%02d:%02dZ", r.Tick/60%60, r.Tick%60)
}

// Git runs git in the repository with fixed identities and dates, and
// returns its output, trimmed; a failure ends the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return r.GitIn("", args...)
}

// GitIn is Git with stdin: a message to commit-tree, a stream to
// fast-import.
func (r *Repo) GitIn(stdin string, args ...string) string {
	r.t.Helper()
	return strings.TrimSpace(string(r.GitRaw([]byte(stdin), args...)))
}

// GitRaw is GitIn for output read as bytes: git's standard output as it
// wrote it (git log -z), its standard error in the failure's message.
func (r *Repo) GitRaw(stdin []byte, args ...string) []byte {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = r.Dir, bytes.NewReader(stdin)
	date := r.date()
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com", "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+r.Dir, "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Commit commits a new file with message (trailers after a blank line)
// and returns the commit's id.
func (r *Repo) Commit(message string, trailers ...string) string {
	r.t.Helper()
	r.Tick++
	r.n++
	name := fmt.Sprintf("internal/auth/fix%d.go", r.n)
	r.Write(name, "package auth\n")
	r.Git("add", name)
	if len(trailers) > 0 {
		message += "\n\n" + strings.Join(trailers, "\n")
	}
	r.Git("commit", "-q", "-m", message)
	return r.Git("rev-parse", "HEAD")
}

// Write writes body to the file name (slash-separated, in the work tree),
// making its directories; it commits nothing.
func (r *Repo) Write(name, body string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// CommitFiles writes files (path → content) and commits them with
// message, a tick after the commit before; it returns the commit's id.
func (r *Repo) CommitFiles(message string, files map[string]string) string {
	r.t.Helper()
	r.Tick++
	for name, body := range files {
		r.Write(name, body)
		r.Git("add", name)
	}
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return r.Git("rev-parse", "HEAD")
}

// CommitMany adds n empty commits to branch (checked out) in one git
// fast-import, a second apart, from an hour after Epoch (plus Tick): a
// long pull request without n git processes each. It returns the new
// head.
func (r *Repo) CommitMany(branch string, n int) string {
	r.t.Helper()
	head := r.Git("rev-parse", branch)
	var b strings.Builder
	for i := range n {
		r.Tick++
		msg := fmt.Sprintf("Step %d of the refactor\n", i+1)
		fmt.Fprintf(&b, "commit refs/heads/%s\ncommitter Agent <agent@example.com> %d +0000\ndata %d\n%s", branch, Epoch.Add(time.Hour).Unix()+int64(r.Tick), len(msg), msg)
		if i == 0 {
			fmt.Fprintf(&b, "from %s\n", head)
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet", "--force")
	cmd.Dir, cmd.Stdin = r.Dir, strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	r.Git("reset", "-q", "--hard", branch)
	return r.Git("rev-parse", branch)
}
