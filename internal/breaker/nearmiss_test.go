package breaker

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNearMisses_Table runs the messages of testdata/nearmiss.txt through
// Evaluate with the trailers git log reads from them once committed, and compares what the
// breaker says it did not read.
func TestNearMisses_Table(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is the oracle for trailers and is not installed")
	}
	f, err := os.Open("testdata/nearmiss.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows, repo := 0, t.TempDir()
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		msgCell, wantCell, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("%q: want two cells split by |", line)
		}
		rows++
		msg := strings.ReplaceAll(strings.TrimSpace(msgCell), `\n`, "\n") + "\n"
		c := Commit{SHA: sha(1), Parent: sha(0), Message: msg, Trailers: gitTrailers(t, repo, msg)}
		d := Evaluate(input([]Commit{c}, observe(sha(1))))
		var got []string
		for _, n := range d.Notes {
			if strings.Contains(n, "is not read as a trailer") || strings.Contains(n, "were not read as trailers") {
				got = append(got, n)
			}
		}
		var want []string
		if w := strings.TrimSpace(wantCell); w != "-" {
			for _, s := range strings.Split(w, ";") {
				want = append(want, strings.TrimSpace(s))
			}
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d notes %q, want %d", msg, len(got), got, len(want))
			continue
		}
		for i := range want {
			if !strings.Contains(got[i], want[i]) {
				t.Errorf("%q: note %d is %q, want it to say %q", msg, i+1, got[i], want[i])
			}
		}
	}
	if rows < 8 {
		t.Fatalf("read %d messages, want the table's", rows)
	}
}

// gitTrailers are the trailers git reads from msg as the adapter reads
// them: the message committed in repo, read back with git log's
// %(trailers:only,unfold).
func gitTrailers(t *testing.T, repo, msg string) []Trailer {
	t.Helper()
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		git("", "init", "-q")
	}
	tree := git("", "hash-object", "-t", "tree", "-w", "--stdin")
	commit := git(msg, "commit-tree", tree, "-F", "-")
	var tr []Trailer
	for _, line := range strings.Split(git("", "log", "-1", "--format=%(trailers:only,unfold)", commit), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			tr = append(tr, Trailer{Key: k, Value: strings.TrimSpace(v)})
		}
	}
	return tr
}
