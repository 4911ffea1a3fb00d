package gitlog

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// parseTrailers is a stand-in for internal/trailer: `Key: value` lines of
// the last paragraph.
func parseTrailers(msg string) []breaker.Trailer {
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	var out []breaker.Trailer
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
			out = append(out, breaker.Trailer{Key: k, Value: v})
		}
	}
	return out
}

// isAttempt marks commits with a Greenlight-Test trailer as needing files.
func isAttempt(ts []breaker.Trailer) bool {
	for _, t := range ts {
		if t.Key == "Greenlight-Test" {
			return true
		}
	}
	return false
}

// subjects lists the subjects of a log's commits, oldest first.
func subjects(l Log) []string {
	out := []string{}
	for _, c := range l.Commits {
		out = append(out, c.Subject)
	}
	return out
}

func readLog(t *testing.T, dir string, opts Options) Log {
	t.Helper()
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := repo.Log(context.Background(), opts)
	if err != nil {
		t.Fatalf("Log(%+v): %v", opts, err)
	}
	return got
}

func TestRepo_Log_graphs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		build    func(h *history) // must set refs/heads/main and refs/heads/agent
		want     []string         // subjects, oldest first
		wantFork string           // subject of the fork point
	}{
		{
			// M1 - M2 (main)
			//        \
			//         A1 - A2 (agent)
			name: "linear branch",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				m2 := h.commit("M2", []string{m1})
				a1 := h.commit("A1", []string{m2})
				a2 := h.commit("A2", []string{a1})
				h.ref("refs/heads/main", m2)
				h.ref("refs/heads/agent", a2)
			},
			want: []string{"A1", "A2"}, wantFork: "M2",
		},
		{
			// M1 - M2 - M3 - M4 (main)
			//       \
			//        A1 - A2 (agent)
			name: "base advanced after fork",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				m2 := h.commit("M2", []string{m1})
				a1 := h.commit("A1", []string{m2})
				m3 := h.commit("M3", []string{m2})
				a2 := h.commit("A2", []string{a1})
				m4 := h.commit("M4", []string{m3})
				h.ref("refs/heads/main", m4)
				h.ref("refs/heads/agent", a2)
			},
			want: []string{"A1", "A2"}, wantFork: "M2",
		},
		{
			// M1 - M2 - M3 ------- M4 (main)
			//   \         \
			//    A1 ------ X - A2 (agent; X merges main into agent)
			name: "base merged into the agent branch",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				a1 := h.commit("A1", []string{m1})
				m2 := h.commit("M2", []string{m1})
				m3 := h.commit("M3", []string{m2})
				x := h.commit("X", []string{a1, m3})
				a2 := h.commit("A2", []string{x})
				m4 := h.commit("M4", []string{m3})
				h.ref("refs/heads/main", m4)
				h.ref("refs/heads/agent", a2)
			},
			want: []string{"A1", "X", "A2"}, wantFork: "M1",
		},
		{
			// M1 - M2 ---- M3 (main: M3 merges A1)
			//   \      \  /
			//    \      \/
			//     \     /\
			//      A1 ----- A2 - A3 (agent: A2 merges M2)
			name: "criss-cross merges",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				a1 := h.commit("A1", []string{m1})
				m2 := h.commit("M2", []string{m1})
				a2 := h.commit("A2", []string{a1, m2})
				m3 := h.commit("M3", []string{m2, a1})
				a3 := h.commit("A3", []string{a2})
				h.ref("refs/heads/main", m3)
				h.ref("refs/heads/agent", a3)
			},
			want: []string{"A2", "A3"}, wantFork: "A1",
		},
		{
			// M1 - M2 - M3 (main = agent)
			name: "head equals base",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				m2 := h.commit("M2", []string{m1})
				m3 := h.commit("M3", []string{m2})
				h.ref("refs/heads/main", m3)
				h.ref("refs/heads/agent", m3)
			},
			want: []string{}, wantFork: "M3",
		},
		{
			// M1 - M2 - M3 (main)
			//   \       /
			//    A1 - A2 (agent, already merged into main)
			name: "branch merged into base",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				a1 := h.commit("A1", []string{m1})
				m2 := h.commit("M2", []string{m1})
				a2 := h.commit("A2", []string{a1})
				m3 := h.commit("M3", []string{m2, a2})
				h.ref("refs/heads/main", m3)
				h.ref("refs/heads/agent", a2)
			},
			want: []string{}, wantFork: "A2",
		},
		{
			// M1 - M2 (main)      R1 - R2 (agent: unrelated history)
			name: "unrelated histories",
			build: func(h *history) {
				m1 := h.commit("M1", nil, write("a.txt", "1"))
				m2 := h.commit("M2", []string{m1})
				r1 := h.commit("R1", nil, write("b.txt", "1"))
				r2 := h.commit("R2", []string{r1})
				h.ref("refs/heads/main", m2)
				h.ref("refs/heads/agent", r2)
			},
			want: []string{"R1", "R2"}, wantFork: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHistory(t)
			tt.build(h)
			marks := h.build()
			got := readLog(t, h.dir, Options{Head: "agent", Base: "main"})
			if diff := cmp.Diff(tt.want, subjects(got)); diff != "" {
				t.Errorf("commits (-want +got):\n%s", diff)
			}
			wantFork := ""
			if tt.wantFork != "" {
				wantFork = marks[markOf(h, tt.wantFork)]
			}
			if got.ForkPoint != wantFork {
				t.Errorf("ForkPoint = %s, want %s (%s)", got.ForkPoint, wantFork, tt.wantFork)
			}
			if got.Branch != "agent" || got.BaseRef != "refs/heads/main" {
				t.Errorf("Branch, BaseRef = %q, %q; want agent, refs/heads/main", got.Branch, got.BaseRef)
			}
			wantCLI := h.git("log", "--first-parent", "--reverse", "--format=%s", "main..agent")
			if gotCLI := strings.Join(subjects(got), "\n"); gotCLI != wantCLI {
				t.Errorf("commits = %q, git log --first-parent says %q", gotCLI, wantCLI)
			}
		})
	}
}

// markOf finds the mark of the commit with the given message.
func markOf(h *history, msg string) string {
	for i, m := range h.commits {
		if m == msg {
			return ":" + strconv.Itoa(i+1)
		}
	}
	h.t.Fatalf("no commit %q", msg)
	return ""
}
