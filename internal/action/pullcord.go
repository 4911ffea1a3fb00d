package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// onDispatch is the /gl-debug pull cord from a workflow_dispatch: the
// diagnostic now, whatever the counts, read only.
func onDispatch(ctx context.Context, r *run, d actionenv.Dispatch) Outcome {
	slice := ""
	if r.in.Slice == "" {
		if s := strings.TrimSpace(d.Inputs["slice"]); s != "" {
			if err := breaker.CheckSlice(s); err != nil {
				return r.fail("bad dispatch input", fmt.Errorf("workflow_dispatch input slice: %w", err))
			}
			slice = s
		}
	}
	branch := strings.TrimPrefix(d.Ref, "refs/heads/")
	_, dec, refs, err := judgeWith(ctx, r, loadSpec{branch: branch, slice: slice, force: true})
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	var pr *forge.PullRequest
	if head := dec.Head; head != "" {
		found, ok, err := r.api.pulls.FindPullRequest(ctx, head)
		switch {
		case err != nil:
			r.note("could not look up the pull request of %s, so no comment: %v", breaker.ShortSHA(head), err)
		case ok:
			pr = &found
		}
	}
	publish(ctx, r, dec, refs, pr, "")
	return Outcome{Decision: &dec}
}

// pullCordComment is "/breaker debug" from a verified writer: the pull
// cord on the pull request's head, acknowledged in the sticky comment.
func pullCordComment(ctx context.Context, r *run, c actionenv.IssueComment, pr forge.PullRequest) Outcome {
	_, d, refs, err := judgeWith(ctx, r, loadSpec{head: pr.HeadSHA, branch: pr.HeadRef, force: true, pr: pr.Number, fromLedger: true,
		base: pr.BaseSHA, baseRef: pr.BaseRef, baseSource: breaker.BaseFromAPI})
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	ack := fmt.Sprintf("%s asked for the diagnostic (/breaker debug) at %s.", c.Author, r.stamp())
	publish(ctx, r, d, refs, &pr, ack)
	return Outcome{Decision: &d}
}
