package gitlog

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// epoch is the date of the first commit of every test repository.
var epoch = time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)

// history builds a git repository with `git fast-import`: each commit
// names its parents explicitly, starts from its first parent's tree and
// applies file operations. Dates advance one minute per commit unless set.
type history struct {
	t       testing.TB
	dir     string
	stream  bytes.Buffer
	commits []string // messages by mark-1
	clock   time.Time
}

// op is one fast-import file operation, e.g. `M 100644 inline a.txt`.
type op struct {
	line string
	data string
}

func write(path, content string) op { return op{"M 100644 inline " + path, content} }
func remove(path string) op         { return op{line: "D " + path} }
func rename(from, to string) op     { return op{line: fmt.Sprintf("R %s %s", from, to)} }

// newHistory makes an empty repository whose HEAD is refs/heads/main.
func newHistory(t testing.TB) *history {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not installed; these tests build real repositories with it")
	}
	h := &history{t: t, dir: t.TempDir(), clock: epoch}
	h.git("init", "-q", "-b", "main")
	return h
}

// commit adds a commit and returns its mark (":N").
func (h *history) commit(msg string, parents []string, ops ...op) string {
	h.clock = h.clock.Add(time.Minute)
	return h.commitAt(h.clock, msg, parents, ops...)
}

// commitAt adds a commit with the given author and committer date.
func (h *history) commitAt(when time.Time, msg string, parents []string, ops ...op) string {
	h.commits = append(h.commits, msg)
	mark := fmt.Sprintf(":%d", len(h.commits))
	stamp := fmt.Sprintf("%d +0000", when.Unix())
	if len(parents) == 0 {
		h.stream.WriteString("reset refs/builder/scratch\n\n")
	}
	fmt.Fprintf(&h.stream, "commit refs/builder/scratch\nmark %s\n", mark)
	fmt.Fprintf(&h.stream, "author Agent <agent@example.com> %s\ncommitter CI <ci@example.com> %s\n", stamp, stamp)
	fmt.Fprintf(&h.stream, "data %d\n%s\n", len(msg), msg)
	for i, p := range parents {
		kind := "merge"
		if i == 0 {
			kind = "from"
		}
		fmt.Fprintf(&h.stream, "%s %s\n", kind, p)
	}
	for _, o := range ops {
		h.stream.WriteString(o.line + "\n")
		if strings.HasPrefix(o.line, "M ") {
			fmt.Fprintf(&h.stream, "data %d\n%s\n", len(o.data), o.data)
		}
	}
	h.stream.WriteString("\n")
	return mark
}

// ref points a ref (e.g. refs/heads/agent) at a mark.
func (h *history) ref(name, mark string) {
	fmt.Fprintf(&h.stream, "reset %s\nfrom %s\n\n", name, mark)
}

// build runs fast-import and returns the SHA of every mark.
func (h *history) build() map[string]string {
	h.t.Helper()
	h.stream.WriteString("reset refs/builder/scratch\nfrom 0000000000000000000000000000000000000000\n\n")
	marksFile := filepath.Join(h.dir, ".git", "test-marks")
	gitrepo.Open(h.t, h.dir).GitIn(h.stream.String(), "fast-import", "--quiet", "--export-marks="+marksFile)
	data, err := os.ReadFile(marksFile)
	if err != nil {
		h.t.Fatal(err)
	}
	marks := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		mark, sha, _ := strings.Cut(line, " ")
		marks[mark] = sha
	}
	return marks
}

// git runs the git CLI in the repository with a fixed identity and returns
// its trimmed output.
func (h *history) git(args ...string) string {
	h.t.Helper()
	return runGit(h.t, h.dir, args...)
}

func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := gitrepo.Open(t, dir)
	r.Dates = func(int) string { return "2024-05-01T09:00:00Z" }
	return r.Git(args...)
}
