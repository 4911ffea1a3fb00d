package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// reset moves the slice's reset tag to the pull request's head, after a
// rollback commit when asked, then publishes the diagnostic with the
// acknowledgement: counts restart from there. It loads the branch once and
// decides twice on that snapshot: before the reset (to find the slice and
// its checkpoint) and after it.
func reset(ctx context.Context, r *run, c actionenv.IssueComment, cmd breakerCmd, pr breaker.PullRequest) Outcome {
	snap, before, refs, err := judgeWith(ctx, r, loadSpec{head: pr.HeadSHA, branch: pr.HeadRef, slice: cmd.slice, pr: pr.Number,
		base: pr.BaseSHA, baseRef: pr.BaseRef, baseSource: breaker.BaseFromAPI})
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	slice := snap.Slice()
	if !breaker.ValidSlice(slice) {
		why := "no slice to reset: name one, e.g. /breaker reset S-3"
		if slice != "" {
			why = breaker.CheckSlice(slice).Error()
		}
		return refuse(ctx, r, c, cmd, why)
	}
	head := pr.HeadSHA
	if cmd.rollback {
		if head, err = rollback(ctx, r, pr, before, refs); err != nil {
			return r.fail("cannot roll back", err)
		}
	}
	if err := moveResetTag(ctx, r, slice, head); err != nil {
		return r.fail("cannot record the reset", err)
	}
	r.noteDone("reset slice %s at %s", slice, breaker.ShortSHA(head))
	// The workspace holds the pull request's head, not a rollback commit:
	// decide that head as if reset there (the rollback commit is no attempt).
	refs.reset = pr.HeadSHA
	d := snap.Decide(refs.engine(slice))
	// The reset is recorded in the ledger on the head, with who and why,
	// and the head's check turns to the new verdict.
	writeCheckRun(ctx, r, snap, d, &ledger.Reset{Author: c.Author, Text: cmd.guidance, At: r.deps.Now().UTC()})
	publish(ctx, r, d, refs, &pr, resetAck(c.Author, slice, r.stamp(), cmd))
	return Outcome{Decision: &d}
}

// rollback adds a commit on top of the pull request's head whose tree is
// the checkpoint's, and fast-forwards the branch to it: history is kept and
// nothing is force-pushed. It returns the new head.
func rollback(ctx context.Context, r *run, pr breaker.PullRequest, d breaker.Decision, refs remoteRefs) (string, error) {
	if pr.Fork {
		return "", errors.New("the pull request's branch lives in a fork, which this token may not push to; roll back by hand")
	}
	cp := refs.checkpoint
	if cp == "" {
		cp = d.Checkpoint.SHA
	}
	if cp == "" {
		return "", fmt.Errorf("slice %s has no checkpoint to roll back to", d.Slice)
	}
	tree, err := r.forge.CommitTree(ctx, cp)
	if err != nil {
		return "", fmt.Errorf("read the checkpoint %s: %w", breaker.ShortSHA(cp), err)
	}
	msg := fmt.Sprintf("Roll back slice %s to checkpoint %s\n\nThe tree of %s, restored by /breaker reset --rollback.\n\n%s: %s\n",
		d.Slice, breaker.ShortSHA(cp), cp, r.policy.Key(breaker.TrailerSlice), d.Slice)
	sha, err := r.forge.CreateCommit(ctx, msg, tree, []string{pr.HeadSHA})
	if err != nil {
		return "", fmt.Errorf("create the rollback commit: %w", err)
	}
	if err := r.forge.UpdateRef(ctx, "heads/"+pr.HeadRef, sha, false); err != nil {
		return "", fmt.Errorf("fast-forward %s to the rollback commit %s: %w", pr.HeadRef, breaker.ShortSHA(sha), err)
	}
	r.noteDone("rolled %s back to the tree of %s with commit %s", pr.HeadRef, breaker.ShortSHA(cp), breaker.ShortSHA(sha))
	return sha, nil
}

// resetAck is the acknowledgement shown in the sticky comment: who, when,
// what, and the guidance verbatim (rendered as escaped text).
func resetAck(who, slice, when string, cmd breakerCmd) string {
	what := "reset"
	if cmd.rollback {
		what = "reset and rolled back"
	}
	ack := fmt.Sprintf("%s %s %s at %s; counts restart from here.", who, what, slice, when)
	if cmd.guidance != "" {
		ack += "\nGuidance: " + cmd.guidance
	}
	return ack
}
