package gitlog

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// M1 - M2 - A1 - A2: tags on M2 (checkpoint, lightweight), A2 (reset,
// annotated) and decoys.
func TestRepo_Refs(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	m1 := h.commit("M1", nil, write("a.txt", "1"))
	m2 := h.commit("M2", []string{m1})
	a1 := h.commit("A1", []string{m2})
	a2 := h.commit("A2", []string{a1})
	h.ref("refs/heads/main", a2)
	marks := h.build()
	h.git("tag", "greenlight/checkpoint/S-3", marks[m2])
	h.git("tag", "-a", "-m", "reset by a human", "greenlight/reset/S-3", marks[a2])
	h.git("tag", "greenlight/checkpoint/S-4", marks[a1])
	h.git("tag", "greenlight/other/S-5", marks[a1])
	h.git("tag", "team/checkpoint/S-9", marks[m1])
	h.git("branch", "greenlight/checkpoint/S-7", marks[m1]) // a branch, not a tag
	tests := []struct {
		prefix string
		want   breaker.Refs
	}{
		// The reset tag is not read: a reset is a ledger record, never a tag.
		{"", breaker.Refs{
			Checkpoints: map[string]string{"S-3": marks[m2], "S-4": marks[a1]},
		}},
		{"team/", breaker.Refs{Checkpoints: map[string]string{"S-9": marks[m1]}}},
	}
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run("prefix="+tt.prefix, func(t *testing.T) {
			t.Parallel()
			got, err := repo.Refs(breaker.Policy{TagPrefix: tt.prefix})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Refs(%q) (-want +got):\n%s", tt.prefix, diff)
			}
		})
	}
}
