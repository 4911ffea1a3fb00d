package gitlog

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// M1 - M2 (main, tag v1 annotated on M2)
//
//	\
//	 A1 - A2 (agent)
func resolveFixture(t *testing.T) (*history, map[string]string) {
	t.Helper()
	h := newHistory(t)
	m1 := h.commit("M1", nil, write("a.txt", "1"))
	a1 := h.commit("A1", []string{m1})
	m2 := h.commit("M2", []string{m1})
	a2 := h.commit("A2", []string{a1})
	h.ref("refs/heads/main", m2)
	h.ref("refs/heads/agent", a2)
	marks := h.build()
	h.git("tag", "-a", "-m", "release", "v1", marks[m2])
	return h, marks
}

func TestRepo_Log_revisions(t *testing.T) {
	t.Parallel()
	h, marks := resolveFixture(t)
	a1, a2, m2 := marks[":2"], marks[":4"], marks[":3"]
	tests := []struct {
		name       string
		head, base string
		wantHead   string
		wantBranch string
		wantBase   string
		want       []string
	}{
		{"short branch names", "agent", "main", a2, "agent", "refs/heads/main", []string{"A1", "A2"}},
		{"full ref names", "refs/heads/agent", "refs/heads/main", a2, "agent", "refs/heads/main", []string{"A1", "A2"}},
		{"full SHA head", a2, "main", a2, "", "refs/heads/main", []string{"A1", "A2"}},
		{"expression head", "agent~1", "main", a1, "", "refs/heads/main", []string{"A1"}},
		{"abbreviated SHA base", "agent", m2[:10], a2, "agent", m2[:10], []string{"A1", "A2"}},
		{"annotated tag as base", "agent", "v1", a2, "agent", "refs/tags/v1", []string{"A1", "A2"}},
		{"HEAD on main, default base", "", "", m2, "main", "refs/heads/main", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readLog(t, h.dir, Options{Head: tt.head, Base: tt.base})
			gotFields := []string{got.HeadSHA, got.Branch, got.BaseRef}
			if diff := cmp.Diff([]string{tt.wantHead, tt.wantBranch, tt.wantBase}, gotFields); diff != "" {
				t.Errorf("HeadSHA, Branch, BaseRef (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, subjects(got)); diff != "" {
				t.Errorf("commits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRepo_Log_unknownRevision(t *testing.T) {
	t.Parallel()
	h, _ := resolveFixture(t)
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ head, base, wantInErr string }{
		{"no-such-branch", "main", `"no-such-branch"`},
		{"agent", "origin/nowhere", `"origin/nowhere"`},
		{"agent~9", "main", `"agent~9"`},
	}
	for _, tt := range tests {
		t.Run(tt.wantInErr, func(t *testing.T) {
			t.Parallel()
			_, err := repo.Log(context.Background(), Options{Head: tt.head, Base: tt.base})
			if err == nil || !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("err = %v, want one naming %s", err, tt.wantInErr)
			}
		})
	}
}

func TestOpen_notARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open(%s) err = %v, want an error naming the directory", dir, err)
	}
}

// The default base: origin/HEAD's target first, then origin/main,
// origin/master, main, master. Every case has the graph
//
//	M1 - M2 (X)
//	 \
//	  A1 (agent, HEAD)
//
// with X pointed to by the refs the case creates.
func TestRepo_Log_defaultBase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		refs     []string // refs created at M2
		symbolic string   // target of refs/remotes/origin/HEAD, if any
		want     string
	}{
		{"origin HEAD wins", []string{"refs/remotes/origin/trunk", "refs/heads/main"}, "refs/remotes/origin/trunk", "refs/remotes/origin/trunk"},
		{"origin main before local main", []string{"refs/remotes/origin/main", "refs/heads/main"}, "", "refs/remotes/origin/main"},
		{"origin master", []string{"refs/remotes/origin/master", "refs/heads/master"}, "", "refs/remotes/origin/master"},
		{"local master", []string{"refs/heads/master"}, "", "refs/heads/master"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHistory(t)
			m1 := h.commit("M1", nil, write("a.txt", "1"))
			a1 := h.commit("A1", []string{m1})
			m2 := h.commit("M2", []string{m1})
			h.ref("refs/heads/agent", a1)
			for _, r := range tt.refs {
				h.ref(r, m2)
			}
			h.build()
			h.git("symbolic-ref", "HEAD", "refs/heads/agent")
			if tt.symbolic != "" {
				h.git("symbolic-ref", "refs/remotes/origin/HEAD", tt.symbolic)
			}
			got := readLog(t, h.dir, Options{})
			if got.BaseRef != tt.want || got.Branch != "agent" || len(got.Notes) != 0 {
				t.Errorf("BaseRef, Branch, Notes = %q, %q, %q; want %q, agent, no note", got.BaseRef, got.Branch, got.Notes, tt.want)
			}
			if diff := cmp.Diff([]string{"A1"}, subjects(got)); diff != "" {
				t.Errorf("commits (-want +got):\n%s", diff)
			}
		})
	}
}
