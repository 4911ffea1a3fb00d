package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// onClosed deletes the tags this pull request owns: those its ledger
// records creating or moving, and only while they still point where it put
// them. Another pull request's tags, even of the same slice, are never
// touched (DESIGN §3). A missing tag is success.
func onClosed(ctx context.Context, r *run, pr forge.PullRequest) Outcome {
	rs, err := readState(ctx, r, pr.Number, pr.HeadRef, "")
	if err != nil {
		return r.fail("cannot read the closed pull request's ledger", err)
	}
	r.state = &rs
	owned := evaluate.OwnedTags(rs.ledger, evaluate.Run{PR: pr.Number, Branch: pr.HeadRef})
	if len(owned) == 0 {
		r.ax.Logf("breaker: pull request #%d closed: its ledger records no tag it created, so none is deleted", pr.Number)
		return Outcome{}
	}
	var errs []error
	for _, t := range owned {
		ref := "tags/" + t.Name
		sha, found, err := r.api.refs.GetRef(ctx, ref)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("read %s: %w", ref, err))
		case !found:
			r.note("%s is already gone", t.Name)
		case !strings.EqualFold(sha, t.SHA):
			r.note("%s points at %s, not at %s where this pull request put it: someone else's now, left alone", t.Name, breaker.ShortSHA(sha), breaker.ShortSHA(t.SHA))
		default:
			if err := r.api.refs.DeleteRef(ctx, ref); err != nil {
				errs = append(errs, fmt.Errorf("delete %s: %w", ref, err))
				continue
			}
			r.noteDone("deleted %s", t.Name)
		}
	}
	writeNotesSummary(r, "pull request closed")
	if err := errors.Join(errs...); err != nil {
		return r.fail("cannot delete the tags of the closed pull request", err)
	}
	return Outcome{}
}
