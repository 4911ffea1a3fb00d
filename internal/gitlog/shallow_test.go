package gitlog

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shallowSource builds the repository the shallow tests clone:
//
//	M1 - ... - M6 - M7 - M8 - M9 (main)
//	             \
//	              A1 - A2 - A3 - A4 - A5 (agent)
func shallowSource(t *testing.T) *history {
	t.Helper()
	h := newHistory(t)
	prev := h.commit("M1", nil, write("a.txt", "1"))
	var fork string
	for _, msg := range []string{"M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9"} {
		prev = h.commit(msg, []string{prev})
		if msg == "M6" {
			fork = prev
		}
	}
	h.ref("refs/heads/main", prev)
	prev = fork
	for _, msg := range []string{"A1", "A2", "A3", "A4", "A5"} {
		prev = h.commit(msg, []string{prev})
	}
	h.ref("refs/heads/agent", prev)
	h.build()
	return h
}

func TestRepo_Log_shallow(t *testing.T) {
	t.Parallel()
	src := shallowSource(t)
	tests := []struct {
		name    string
		clone   []string // extra git clone arguments
		head    string
		want    []string // subjects when the history suffices
		wantErr bool
	}{
		{name: "depth too small for the branch", clone: []string{"--depth", "3", "--no-single-branch"}, head: "origin/agent", wantErr: true},
		{name: "single branch without base", clone: []string{"--depth", "1", "--single-branch", "--branch", "agent"}, head: "", wantErr: true},
		{name: "depth covers the fork point", clone: []string{"--depth", "6", "--no-single-branch"}, head: "origin/agent", want: []string{"A1", "A2", "A3", "A4", "A5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dst := filepath.Join(t.TempDir(), "clone")
			args := append([]string{"clone", "-q"}, tt.clone...)
			runGit(t, ".", append(args, "file://"+src.dir, dst)...)
			if got := runGit(t, dst, "rev-parse", "--is-shallow-repository"); got != "true" {
				t.Fatalf("the clone is not shallow (%s); the test proves nothing", got)
			}
			repo, err := Open(dst)
			if err != nil {
				t.Fatal(err)
			}
			got, err := repo.Log(context.Background(), Options{Head: tt.head})
			if tt.wantErr {
				if !errors.Is(err, ErrShallow) {
					t.Fatalf("err = %v (commits %v), want ErrShallow", err, subjects(got))
				}
				if !strings.Contains(err.Error(), "fetch-depth: 0") {
					t.Errorf("error %q does not name the fix fetch-depth: 0", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, subjects(got)); diff != "" {
				t.Errorf("commits (-want +got):\n%s", diff)
			}
		})
	}
}
