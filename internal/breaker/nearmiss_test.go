package breaker

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// TestNearMisses_Table runs the messages of testdata/nearmiss.txt through
// Evaluate with the trailers git log reads from them once committed, and compares what the
// breaker says it did not read.
func TestNearMisses_Table(t *testing.T) {
	t.Parallel()
	repo := gitrepo.Init(t) // git is the oracle for trailers
	f, err := os.Open("testdata/nearmiss.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
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
func gitTrailers(t *testing.T, repo *gitrepo.Repo, msg string) []Trailer {
	t.Helper()
	tree := repo.GitIn("", "hash-object", "-t", "tree", "-w", "--stdin")
	commit := repo.GitIn(msg, "commit-tree", tree, "-F", "-")
	var tr []Trailer
	for _, line := range strings.Split(repo.Git("log", "-1", "--format=%(trailers:only,unfold)", commit), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			tr = append(tr, Trailer{Key: k, Value: strings.TrimSpace(v)})
		}
	}
	return tr
}
