package cli

import (
	"errors"
	"fmt"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The kinds of breaker refs kept in the remote, under the tag prefix.
const (
	kindCheckpoint = "checkpoint"
	kindReset      = "reset"
)

// tagRef names a breaker tag the way breaker.Forge wants refs:
// "tags/<prefix><kind>/<slice>". The slice must be valid (actionenv.ValidSlice).
func (r *actionRun) tagRef(kind, slice string) string {
	return "tags/" + r.in.TagPrefix + kind + "/" + slice
}

// short abbreviates a commit SHA for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// readRefs reads the slice's checkpoint and reset tags from the remote.
func (r *actionRun) readRefs(slice string) (remoteRefs, error) {
	var rr remoteRefs
	var err error
	if rr.checkpoint, _, err = r.forge.GetRef(r.ctx, r.tagRef(kindCheckpoint, slice)); err != nil {
		return rr, fmt.Errorf("read the checkpoint tag of slice %s: %w", slice, err)
	}
	if rr.reset, _, err = r.forge.GetRef(r.ctx, r.tagRef(kindReset, slice)); err != nil {
		return rr, fmt.Errorf("read the reset tag of slice %s: %w", slice, err)
	}
	return rr, nil
}

// ensureCheckpoint creates the slice's checkpoint tag once, at the engine's
// checkpoint. An existing tag is never moved: at the same commit it is
// success, elsewhere it is reported as a conflict. It returns the commit the
// tag points at ("" when there is none).
func (r *actionRun) ensureCheckpoint(d breaker.Decision, existing string) string {
	cp := d.Checkpoint.SHA
	if cp == "" || d.Checkpoint.Tag == "" {
		return existing
	}
	ref := r.tagRef(kindCheckpoint, d.Slice)
	if existing == "" {
		err := r.forge.CreateRef(r.ctx, ref, cp)
		switch {
		case err == nil:
			r.noteDone("created the checkpoint tag %s at %s", d.Checkpoint.Tag, short(cp))
			return cp
		case errors.Is(err, breaker.ErrForbidden):
			r.note("the token may not create tags (a fork pull request's read-only token?): checkpoint tag %s not created", d.Checkpoint.Tag)
			return ""
		case !errors.Is(err, breaker.ErrRefExists):
			r.note("could not create the checkpoint tag %s: %v", d.Checkpoint.Tag, err)
			return ""
		}
		sha, found, gerr := r.forge.GetRef(r.ctx, ref)
		if gerr != nil || !found {
			r.note("the checkpoint tag %s exists but could not be read back: %v", d.Checkpoint.Tag, gerr)
			return ""
		}
		existing = sha
	}
	if existing != cp {
		r.note("checkpoint conflict: the tag %s points at %s, but this slice's first attempt starts at %s; the tag was left alone (delete it by hand if it is stale)",
			d.Checkpoint.Tag, short(existing), short(cp))
	}
	return existing
}

// deleteSliceTags deletes the checkpoint and reset tags of each slice. A
// missing tag is success.
func (r *actionRun) deleteSliceTags(slices []string) error {
	var errs []error
	for _, s := range slices {
		for _, kind := range []string{kindCheckpoint, kindReset} {
			ref := r.tagRef(kind, s)
			if err := r.forge.DeleteRef(r.ctx, ref); err != nil {
				errs = append(errs, fmt.Errorf("delete %s: %w", ref, err))
				continue
			}
			r.noteDone("deleted %s (or it was already gone)", ref)
		}
	}
	return errors.Join(errs...)
}

// moveResetTag points the slice's reset tag at sha, creating it if needed.
func (r *actionRun) moveResetTag(slice, sha string) error {
	ref := r.tagRef(kindReset, slice)
	cur, found, err := r.forge.GetRef(r.ctx, ref)
	if err != nil {
		return fmt.Errorf("read %s: %w", ref, err)
	}
	switch {
	case found && cur == sha:
		return nil
	case found:
		err = r.forge.UpdateRef(r.ctx, ref, sha, true)
	default:
		err = r.forge.CreateRef(r.ctx, ref, sha)
		if errors.Is(err, breaker.ErrRefExists) {
			err = r.forge.UpdateRef(r.ctx, ref, sha, true)
		}
	}
	if err != nil {
		return fmt.Errorf("move %s to %s: %w", ref, short(sha), err)
	}
	return nil
}
