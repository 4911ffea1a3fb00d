package gitlog

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// M1 (main: a.txt, b.txt, c.txt, lib/old.go)
//
//	\
//	 A1 (infra: no attempt trailers) - A2 (attempt: modify a, delete b,
//	 rename lib/old.go, add d) - A3 (attempt: rename c.txt with an edit)
func TestRepo_Log_commitFields(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	body := "package lib\n\n" + longText(40)
	m1 := h.commit("M1", nil, write("a.txt", "one\n"), write("b.txt", "two\n"),
		write("c.txt", longText(30)), write("lib/old.go", body))
	a1 := h.commit("Fix CI cache\n\nGreenlight-Infra: runner cache was stale\n", []string{m1}, write("a.txt", "one!\n"))
	a2 := h.commit("Try a nil guard\nacross two lines\n\nBody text.\n\nGreenlight-Slice: S-3\nGreenlight-Test: TestFoo\n",
		[]string{a1}, write("a.txt", "uno\n"), remove("b.txt"), rename("lib/old.go", "lib/new.go"), write("d.txt", "new\n"))
	a3 := h.commit("Move c\n\nGreenlight-Test: TestFoo\n", []string{a2},
		rename("c.txt", "docs/c.txt"), write("docs/c.txt", longText(30)+"one more line\n"))
	h.ref("refs/heads/main", m1)
	h.ref("refs/heads/agent", a3)
	marks := h.build()

	got := readLog(t, h.dir, Options{Head: "agent", Base: "main", Parse: parseTrailers, NeedsFiles: isAttempt})
	when := func(i int) time.Time { return epoch.Add(time.Duration(i) * time.Minute) }
	want := []breaker.Commit{
		{
			SHA: marks[a1], Parent: marks[m1], Subject: "Fix CI cache",
			Message:    "Fix CI cache\n\nGreenlight-Infra: runner cache was stale\n",
			AuthorName: "Agent", AuthorEmail: "agent@example.com", Time: when(2),
			Trailers: []breaker.Trailer{{Key: "Greenlight-Infra", Value: "runner cache was stale"}},
		},
		{
			SHA: marks[a2], Parent: marks[a1], Subject: "Try a nil guard across two lines",
			Message:    "Try a nil guard\nacross two lines\n\nBody text.\n\nGreenlight-Slice: S-3\nGreenlight-Test: TestFoo\n",
			AuthorName: "Agent", AuthorEmail: "agent@example.com", Time: when(3),
			Trailers: []breaker.Trailer{{Key: "Greenlight-Slice", Value: "S-3"}, {Key: "Greenlight-Test", Value: "TestFoo"}},
			Files: []breaker.FileChange{
				{Path: "a.txt", Change: breaker.ChangeModified},
				{Path: "b.txt", Change: breaker.ChangeDeleted},
				{Path: "d.txt", Change: breaker.ChangeAdded},
				{Path: "lib/new.go", Change: breaker.ChangeRenamed, From: "lib/old.go"},
			},
		},
		{
			SHA: marks[a3], Parent: marks[a2], Subject: "Move c",
			Message:    "Move c\n\nGreenlight-Test: TestFoo\n",
			AuthorName: "Agent", AuthorEmail: "agent@example.com", Time: when(4),
			Trailers: []breaker.Trailer{{Key: "Greenlight-Test", Value: "TestFoo"}},
			Files:    []breaker.FileChange{{Path: "docs/c.txt", Change: breaker.ChangeRenamed, From: "c.txt"}},
		},
	}
	if diff := cmp.Diff(want, got.Commits, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	wantFiles := h.git("diff", "--name-status", "-M50%", marks[a1], marks[a2])
	if wantFiles != "M\ta.txt\nD\tb.txt\nA\td.txt\nR100\tlib/old.go\tlib/new.go" {
		t.Errorf("git itself sees A2's changes as %q; the fixture is not what the test expects", wantFiles)
	}
}

// longText returns n distinct lines, enough for rename similarity.
func longText(n int) string {
	s := ""
	for i := range n {
		s += "line " + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "\n"
	}
	return s
}

// M1 (root: a.txt) (main = none; agent)
func TestRepo_Log_rootCommitFiles(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	r := h.commit("Start\n\nGreenlight-Test: TestA\n", nil, write("a.txt", "1"), write("z/b.txt", "2"))
	h.ref("refs/heads/agent", r)
	h.build()
	got := readLog(t, h.dir, Options{Head: "agent", Parse: parseTrailers, NeedsFiles: isAttempt})
	want := []breaker.FileChange{{Path: "a.txt", Change: breaker.ChangeAdded}, {Path: "z/b.txt", Change: breaker.ChangeAdded}}
	if len(got.Commits) != 1 {
		t.Fatalf("got %d commits, want 1", len(got.Commits))
	}
	if diff := cmp.Diff(want, got.Commits[0].Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if got.Commits[0].Parent != "" || got.ForkPoint != "" || !slices.Equal(got.Notes, []string{noBaseNote}) {
		t.Errorf("Parent, ForkPoint, Notes = %q, %q, %q; want empty, empty, the no-base note", got.Commits[0].Parent, got.ForkPoint, got.Notes)
	}
}
