package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// zeroSHA is the "after" of a push that deleted its ref.
const zeroSHA = "0000000000000000000000000000000000000000"

// onPush evaluates a pushed branch and publishes on its open pull request.
func onPush(ctx context.Context, r *run, p actionenv.Push) Outcome {
	branch, ok := strings.CutPrefix(p.Ref, "refs/heads/")
	switch {
	case !ok || p.After == zeroSHA:
		r.ax.Logf("breaker: nothing to do: the push is not a new branch head (a tag, or a deleted branch)")
		return Outcome{}
	case p.After == "":
		return r.fail("the push event has no head", errors.New("the push payload's \"after\" is empty or null, so there is no commit to judge; "+
			"run the breaker on push events GitHub sends, or on pull_request"))
	}
	r.setBefore(p.Before)
	// A push of more than relayDistance commits leaves entries nearer
	// than that to before out of the newest commits, and the relay at
	// before holds only the farther ones: read that many of before's
	// commits too (5 points instead of 4).
	r.wideBefore, r.beforeDepth = p.Commits > relayDistance, relayDistance
	var pr *forge.PullRequest
	found, ok, err := r.api.pulls.FindPullRequest(ctx, p.After)
	switch {
	case err != nil:
		r.note("could not look up the pull request of this commit, so no comment: %v", err)
	case ok:
		pr = &found
	default:
		r.note("no open pull request has this commit as its head: no comment")
	}
	return judge(ctx, r, p.After, branch, pr, breaker.BaseFromAPI)
}

// notBinding says why a ledger written as GITHUB_TOKEN binds nothing.
const notBinding = "the ledger is not binding: it is written as GITHUB_TOKEN, a token of the GitHub Actions app, " +
	"and any workflow token of this repository with checks: write (the agent's too) may rename or re-conclude " +
	"that app's check runs, which hides them from the next run. Run the breaker as a GitHub App of its own " +
	"(app-id; breaker init writes it so): only that App can change its check runs"

// onPullRequest evaluates the pull request's head commit, never the merge
// commit GitHub checks out by default.
func onPullRequest(ctx context.Context, r *run, action, before string, pr forge.PullRequest) Outcome {
	switch action {
	case "opened", "synchronize", "reopened":
	default:
		r.ax.Logf("breaker: nothing to do for pull_request %q; the breaker acts on opened, synchronize, reopened and closed", action)
		return Outcome{}
	}
	r.setBefore(before)
	return judge(ctx, r, pr.HeadSHA, pr.HeadRef, &pr, breaker.BaseFromEvent)
}

// setBefore keeps where the pushed branch was before the push, as the
// event says (a push's, or a pull_request synchronize's before): a commit,
// never a new branch's zeros.
func (r *run) setBefore(before string) {
	if before != zeroSHA && ledger.ValidSHA(before) {
		r.before = before
	}
}

// judge is the check of a push: read the ledger, load head once, decide
// with the remote tags, record this head in the ledger (the check run),
// publish (checkpoint tag, comment, summary, outputs), and let an OPEN
// decision fail the check when fail-on-trip is on.
func judge(ctx context.Context, r *run, head, branch string, pr *forge.PullRequest, baseSource string) Outcome {
	spec := loadSpec{head: head, branch: branch}
	if pr != nil {
		spec.pr, spec.fork, spec.agent, spec.author = pr.Number, pr.Fork, true, pr.Author
		spec.base, spec.baseRef, spec.baseSource = pr.BaseSHA, pr.BaseRef, baseSource
	}
	snap, d, refs, err := judgeWith(ctx, r, spec)
	if errors.Is(err, errDefaultBranch) {
		return observeBase(ctx, r, head, branch)
	}
	if errors.Is(err, errPullFromDefault) {
		// A failed check that says why, and no entry: the default
		// branch's commits are recorded only by a push to it.
		writeRefusal(ctx, r, head, "a pull request from the default branch "+branch, err, false)
		return r.fail("refused to judge the pull request", err)
	}
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	if r.in.AppID == 0 {
		r.note("%s", notBinding)
	}
	// The tag exists now: decide again on the same snapshot, so the verdict
	// says so instead of "to be created". A dry run created nothing.
	var x entryExtras
	if sha, created := ensureCheckpoint(ctx, r, d, refs.checkpoint); sha != refs.checkpoint && !r.in.DryRun {
		refs.checkpoint = sha
		d = snap.Decide(refs.engine(d.Slice))
		if created {
			x.tags = append(x.tags, ledger.Tag{Name: d.Checkpoint.Tag, SHA: sha})
		}
	}
	var said string
	if x.onTrip, said = actOnTrip(ctx, r, d, pr); said != "" {
		d.Notes = append(d.Notes, said) // shown in the comment, the check and the summary
	}
	ledgerErr := writeCheckRun(ctx, r, snap, d, x)
	publish(ctx, r, d, refs, pr, "")
	// A dry run records and never blocks: the verdict is in the ledger, the
	// summary and the outputs, and the check passes.
	out := Outcome{Decision: &d, Enforce: r.in.FailOnTrip && !r.in.DryRun}
	if pr != nil && r.state != nil {
		out.Ledger = &LedgerRead{Query: r.state.query, Head: head, CheckRuns: r.state.read}
	}
	if errors.Is(ledgerErr, forge.ErrForbidden) && !r.in.AllowNoLedger && !(d.State == breaker.StateOpen && out.Enforce) {
		// Without the ledger the next run forgets this push: the breaker
		// has no memory, and a check that passes anyway would lie.
		err := fmt.Errorf("the token may not write check runs, so this push is not in the ledger and the breaker remembers nothing across pushes: " +
			"give the job `checks: write` (or run the breaker in the hardened mode for a fork's pull requests), or set allow-no-ledger: true to accept that")
		r.ax.Annotate(actionenv.LevelError, "Circuit breaker: no ledger", err.Error())
		r.ax.Logf("breaker: %v", err)
		out.Err = err
	}
	switch {
	case d.Tripped && r.in.DryRun:
		r.ax.Logf("breaker: dry run: the breaker would be OPEN and fail the check; recorded in the ledger, the check stays green")
	case d.Tripped && !r.in.FailOnTrip:
		r.ax.Logf("breaker: the breaker is OPEN but fail-on-trip is false: the check stays green")
	}
	return out
}
