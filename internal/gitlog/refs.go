package gitlog

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Refs reads the policy's local checkpoint tags (breaker.RefName, per
// slice), peeled to commit SHAs and keyed by slice id. A tag whose slice
// part is not a valid slice id is not the breaker's and is skipped. Reset
// tags are not read: a reset is a ledger record, never a tag.
func (r *Repo) Refs(p breaker.Policy) (breaker.Refs, error) {
	defer runtime.KeepAlive(r) // the packs stay mapped while tags are peeled
	out := breaker.Refs{Checkpoints: map[string]string{}}
	iter, err := r.store.IterReferences()
	if err != nil {
		return breaker.Refs{}, fmt.Errorf("list tags: %w", err)
	}
	defer iter.Close()
	kinds := []struct {
		prefix string
		into   map[string]string
	}{
		{"refs/tags/" + breaker.RefPrefix(p, breaker.RefCheckpoint), out.Checkpoints},
	}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		for _, k := range kinds {
			slice, ok := strings.CutPrefix(ref.Name().String(), k.prefix)
			if !ok || !breaker.ValidSlice(slice) || ref.Type() != plumbing.HashReference {
				continue
			}
			h, err := r.peel(ref.Hash())
			if err != nil {
				return fmt.Errorf("tag %s: %w", ref.Name(), err)
			}
			k.into[slice] = h.String()
		}
		return nil
	})
	if err != nil {
		return breaker.Refs{}, err
	}
	return out, nil
}
