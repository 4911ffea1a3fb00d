package gitlog

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// DefaultTagPrefix is the prefix of the breaker's tags when none is given.
const DefaultTagPrefix = "greenlight/"

// Refs reads the local tags <prefix>checkpoint/<slice> and
// <prefix>reset/<slice>, peeled to commit SHAs and keyed by slice id.
// An empty prefix means DefaultTagPrefix.
func (r *Repo) Refs(tagPrefix string) (breaker.Refs, error) {
	if tagPrefix == "" {
		tagPrefix = DefaultTagPrefix
	}
	out := breaker.Refs{Checkpoints: map[string]string{}, Resets: map[string]string{}}
	iter, err := r.store.IterReferences()
	if err != nil {
		return breaker.Refs{}, fmt.Errorf("list tags: %w", err)
	}
	defer iter.Close()
	kinds := []struct {
		prefix string
		into   map[string]string
	}{
		{"refs/tags/" + tagPrefix + "checkpoint/", out.Checkpoints},
		{"refs/tags/" + tagPrefix + "reset/", out.Resets},
	}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		for _, k := range kinds {
			slice, ok := strings.CutPrefix(ref.Name().String(), k.prefix)
			if !ok || slice == "" || ref.Type() != plumbing.HashReference {
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
