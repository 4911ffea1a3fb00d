package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

// reset records a verified reset of the slice in this pull request's
// ledger (DESIGN §3: the check run on its head names the pull request, the
// slice and the maintainer), after a rollback commit when asked, moves the
// reset tag there as a convenience, then publishes the diagnostic with the
// acknowledgement: counts restart from there. The record is the reset; the
// tag never is. It loads the branch once and decides twice on that
// snapshot: before the reset (to find the slice and its checkpoint) and
// after it.
func reset(ctx context.Context, r *run, c actionenv.IssueComment, cmd breakerCmd, pr forge.PullRequest) Outcome {
	snap, before, refs, err := judgeWith(ctx, r, loadSpec{head: pr.HeadSHA, branch: pr.HeadRef, slice: cmd.Slice, pr: pr.Number, fromLedger: true,
		base: pr.BaseSHA, baseRef: pr.BaseRef, baseSource: breaker.BaseFromAPI})
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	slice := snap.Slice()
	known := snap.Slices(r.in.Slice)
	if cmd.Slice != "" && !slices.Contains(known, cmd.Slice) {
		return refuse(ctx, r, c, cmd, fmt.Sprintf("this pull request has no slice %s; its slices: %s", cmd.Slice, strings.Join(known, ", ")))
	}
	if cmd = withSlice(cmd, slice); cmd.Problem != "" {
		return refuse(ctx, r, c, cmd, cmd.Problem)
	}
	if !breaker.ValidSlice(slice) {
		why := "no slice to reset: name one, e.g. /breaker reset S-3"
		if slice != "" {
			why = breaker.CheckSlice(slice).Error()
		}
		return refuse(ctx, r, c, cmd, why)
	}
	head := pr.HeadSHA
	if cmd.Rollback {
		if why, err := sharedBranch(ctx, r, pr); err != nil {
			return r.fail("cannot check who else builds on the branch", err)
		} else if why != "" {
			return refuse(ctx, r, c, cmd, why)
		}
		if head, err = rollback(ctx, r, pr, snap, before, refs); err != nil {
			return r.fail("cannot roll back", err)
		}
	}
	var x entryExtras
	x.reset = &ledger.Reset{Author: c.Author, Text: cmd.Guidance, At: r.deps.Now().UTC(), CommentID: c.ID,
		Prior: report.PriorAttempts(before, c.Author, cmd.Guidance)}
	if err := moveResetTag(ctx, r, slice, head); err != nil {
		r.note("the reset tag was not moved (%v); the reset stands: it is the ledger record, the tag only a convenience", err)
	} else if !r.in.DryRun {
		x.tags = append(x.tags, ledger.Tag{Name: breaker.RefName(r.policy, breaker.RefReset, slice), SHA: head})
	}
	r.noteDone("reset slice %s at %s", slice, breaker.ShortSHA(head))
	// The workspace holds the pull request's head, not a rollback commit:
	// decide that head as reset there (the rollback commit is no attempt).
	// The reset is recorded in the ledger on the head, with who and why,
	// and the head's check turns to the new verdict.
	d := snap.DecideReset(refs.engine(slice), slice, breaker.ResetRecord{Author: x.reset.Author, Text: x.reset.Text, At: x.reset.At, CommentID: x.reset.CommentID})
	if err := writeCheckRun(ctx, r, snap, d, x); err != nil && !r.in.DryRun {
		return r.fail("cannot record the reset", fmt.Errorf("the reset is the check run %s on %s, and it could not be written, so nothing was reset: %w",
			r.in.CheckName, breaker.ShortSHA(pr.HeadSHA), err))
	}
	undoOnTrip(ctx, r, pr.Number)
	publish(ctx, r, d, refs, &pr, resetAck(c.Author, slice, r.stamp(), cmd)+"\nCI's last observation of the head: "+snap.HeadSummary()+".")
	return Outcome{Decision: &d}
}

// sharedBranch says why the pull request's branch is not its alone to
// roll back ("" when it is): another open pull request has it as head, so
// a rollback commit would change that one too (issue 30).
func sharedBranch(ctx context.Context, r *run, pr forge.PullRequest) (string, error) {
	if pr.Fork {
		return "", nil // rollback says why it cannot push to a fork
	}
	prs, err := r.api.pulls.OpenPullRequestsFrom(ctx, pr.HeadRef)
	if err != nil {
		return "", err
	}
	var others []string
	for _, p := range prs {
		if p.Number != pr.Number {
			others = append(others, "#"+strconv.Itoa(p.Number))
		}
	}
	if len(others) > 0 {
		return fmt.Sprintf("--rollback would commit on branch %s, which is the head of %s too; reset without --rollback, or roll back by hand", pr.HeadRef, strings.Join(others, ", ")), nil
	}
	return "", nil
}

// rollback adds a commit on top of the pull request's head whose tree is
// the checkpoint's, and fast-forwards the branch to it: history is kept and
// nothing is force-pushed. The checkpoint is the one this pull request's
// ledger recorded first for the slice (else, with no record yet, the one
// its history gives); a tag is never the target, and one that disagrees
// is reported. It returns the new head.
func rollback(ctx context.Context, r *run, pr forge.PullRequest, snap evaluate.Snapshot, d breaker.Decision, refs remoteRefs) (string, error) {
	if pr.Fork {
		return "", errors.New("the pull request's branch lives in a fork, which this token may not push to; roll back by hand")
	}
	cp := snap.RecordedCheckpoint(d.Slice)
	if cp == "" {
		cp = d.Checkpoint.SHA
		if cp != "" {
			r.note("this pull request's ledger recorded no checkpoint of slice %s yet; rolling back to where its first attempt starts, %s", d.Slice, breaker.ShortSHA(cp))
		}
	}
	if cp == "" {
		return "", fmt.Errorf("slice %s has no checkpoint to roll back to", d.Slice)
	}
	if refs.checkpoint != "" && !strings.EqualFold(refs.checkpoint, cp) {
		r.note("the tag %s points at %s, not at the checkpoint this pull request's ledger recorded (%s): the tag is not used (it is someone else's, or was moved)",
			d.Checkpoint.Tag, breaker.ShortSHA(refs.checkpoint), breaker.ShortSHA(cp))
	}
	tree, err := r.api.commits.CommitTree(ctx, cp)
	if err != nil {
		return "", fmt.Errorf("read the checkpoint %s: %w", breaker.ShortSHA(cp), err)
	}
	msg := fmt.Sprintf("Roll back slice %s to checkpoint %s\n\nThe tree of %s, restored by /breaker reset --rollback.\n\n%s: %s\n",
		d.Slice, breaker.ShortSHA(cp), cp, r.policy.Key(breaker.TrailerSlice), d.Slice)
	sha, err := r.api.commits.CreateCommit(ctx, msg, tree, []string{pr.HeadSHA})
	if err != nil {
		return "", fmt.Errorf("create the rollback commit: %w", err)
	}
	if err := r.api.refs.UpdateRef(ctx, "heads/"+pr.HeadRef, sha, false); err != nil {
		return "", fmt.Errorf("fast-forward %s to the rollback commit %s: %w", pr.HeadRef, breaker.ShortSHA(sha), err)
	}
	r.noteDone("rolled %s back to the tree of %s with commit %s", pr.HeadRef, breaker.ShortSHA(cp), breaker.ShortSHA(sha))
	return sha, nil
}

// resetAck is the acknowledgement shown in the sticky comment: who, when,
// what, and the guidance verbatim (rendered as escaped text).
func resetAck(who, slice, when string, cmd breakerCmd) string {
	what := "reset"
	if cmd.Rollback {
		what = "reset and rolled back"
	}
	ack := fmt.Sprintf("%s %s %s at %s; counts restart from here.", who, what, slice, when)
	if cmd.Guidance != "" {
		ack += "\nGuidance: " + cmd.Guidance
	}
	return ack
}
