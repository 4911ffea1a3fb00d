package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// remoteRefs are the breaker's tags of one slice as the remote has them:
// conveniences for people, shown and compared, never evidence (a reset is
// a ledger record, a rollback target the recorded checkpoint).
type remoteRefs struct {
	checkpoint, reset string // "" when missing
}

// engine gives the checkpoint tag to the engine, keyed by slice, for the
// report to compare with the checkpoint it finds.
func (rr remoteRefs) engine(slice string) breaker.Refs {
	refs := breaker.Refs{Checkpoints: map[string]string{}}
	if rr.checkpoint != "" {
		refs.Checkpoints[slice] = rr.checkpoint
	}
	return refs
}

// tagRef names a breaker tag the way the Refs port wants refs:
// "tags/<prefix><kind>/<slice>"; "" when the slice cannot name a tag.
func tagRef(r *run, kind breaker.RefKind, slice string) string {
	name := breaker.RefName(r.policy, kind, slice)
	if name == "" {
		return ""
	}
	return "tags/" + name
}

// ensureCheckpoint creates the slice's checkpoint tag once, at the engine's
// checkpoint. An existing tag is never moved: at the same commit it is
// success, elsewhere it is reported as a conflict. It returns the commit the
// tag points at ("" when there is none), and whether this run created it
// (the pull request then owns it: its ledger entry says so).
func ensureCheckpoint(ctx context.Context, r *run, d breaker.Decision, existing string) (string, bool) {
	cp := d.Checkpoint.SHA
	ref := tagRef(r, breaker.RefCheckpoint, d.Slice)
	if cp == "" || ref == "" {
		return existing, false
	}
	if existing == "" {
		err := r.api.refs.CreateRef(ctx, ref, cp)
		switch {
		case err == nil:
			r.noteDone("created the checkpoint tag %s at %s", d.Checkpoint.Tag, breaker.ShortSHA(cp))
			return cp, !r.in.DryRun
		case errors.Is(err, forge.ErrForbidden):
			r.note("the token may not create tags (a fork pull request's read-only token?): checkpoint tag %s not created", d.Checkpoint.Tag)
			return "", false
		case errors.Is(err, forge.ErrRuleset):
			r.note("a repository ruleset refuses the checkpoint tag %s (GitHub: \"Repository rule violations found\"). The checkpoint stays in the ledger; the tag is only a convenience for `git checkout`. "+
				"To have it, add the breaker's identity (the GitHub Actions app, or the breaker's App) to the tag ruleset's bypass list, or set the tag-prefix input to a namespace the ruleset does not cover", d.Checkpoint.Tag)
			return "", false
		case !errors.Is(err, forge.ErrRefExists):
			r.note("could not create the checkpoint tag %s: %v", d.Checkpoint.Tag, err)
			return "", false
		}
		sha, found, gerr := r.api.refs.GetRef(ctx, ref)
		if gerr != nil || !found {
			r.note("the checkpoint tag %s exists but could not be read back: %v", d.Checkpoint.Tag, gerr)
			return "", false
		}
		existing = sha
	}
	if existing != cp {
		r.note("checkpoint conflict: the tag %s points at %s, but this slice's first attempt starts at %s; the tag was left alone (delete it by hand if it is stale)",
			d.Checkpoint.Tag, breaker.ShortSHA(existing), breaker.ShortSHA(cp))
	}
	return existing, false
}

// moveResetTag points the slice's reset tag at sha, creating it if needed.
func moveResetTag(ctx context.Context, r *run, slice, sha string) error {
	ref := tagRef(r, breaker.RefReset, slice)
	cur, found, err := r.api.refs.GetRef(ctx, ref)
	if err != nil {
		return fmt.Errorf("read %s: %w", ref, err)
	}
	switch {
	case found && cur == sha:
		return nil
	case found:
		err = r.api.refs.UpdateRef(ctx, ref, sha, true)
	default:
		err = r.api.refs.CreateRef(ctx, ref, sha)
		if errors.Is(err, forge.ErrRefExists) {
			err = r.api.refs.UpdateRef(ctx, ref, sha, true)
		}
	}
	if err != nil {
		return fmt.Errorf("move %s to %s: %w", ref, breaker.ShortSHA(sha), err)
	}
	return nil
}
