package cli

import (
	"errors"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

// zeroSHA is the "after" of a push that deleted its ref.
const zeroSHA = "0000000000000000000000000000000000000000"

// target is what one run evaluates and where it publishes.
type target struct {
	head     string               // the commit to evaluate; "" = HEAD of the workspace
	branch   string               // the branch, for the S-<n> fallback
	pr       *breaker.PullRequest // the pull request to comment on; nil when none
	force    bool                 // the pull cord: diagnostic whatever the counts
	readOnly bool                 // no tags
	ack      string               // an acknowledgement for the sticky comment
	resetAt  string               // when set, the reset point instead of the remote reset tag
}

// onPush evaluates a pushed branch and publishes on its open pull request.
func (r *actionRun) onPush(p *actionenv.Push) int {
	branch, ok := strings.CutPrefix(p.Ref, "refs/heads/")
	if !ok || p.After == zeroSHA || p.After == "" {
		r.ax.Logf("breaker: nothing to do: the push is not a new branch head (a tag, or a deleted branch)")
		return ExitClosed
	}
	t := target{head: p.After, branch: branch}
	pr, found, err := r.forge.FindPullRequest(r.ctx, p.After)
	switch {
	case err != nil:
		r.note("could not look up the pull request of this commit, so no comment: %v", err)
	case found:
		t.pr = &pr
	default:
		r.note("no open pull request has this commit as its head: no comment")
	}
	return r.evaluateAndPublish(t)
}

// onPullRequest evaluates the pull request's head commit, never the merge
// commit GitHub checks out by default.
func (r *actionRun) onPullRequest(action string, pr breaker.PullRequest) int {
	switch action {
	case "opened", "synchronize", "reopened":
	default:
		r.ax.Logf("breaker: nothing to do for pull_request %q; the breaker acts on opened, synchronize, reopened and closed", action)
		return ExitClosed
	}
	return r.evaluateAndPublish(target{head: pr.HeadSHA, branch: pr.HeadRef, pr: &pr})
}

// onDispatch is the /gl-debug pull cord: the diagnostic now, read only.
func (r *actionRun) onDispatch(d *actionenv.Dispatch) int {
	t := target{branch: strings.TrimPrefix(d.Ref, "refs/heads/"), force: true, readOnly: true}
	if r.in.Slice == "" {
		if s := strings.TrimSpace(d.Inputs["slice"]); s != "" {
			if !actionenv.ValidSlice(s) {
				return r.fail("bad dispatch input", errors.New("workflow_dispatch input slice is not a slice id; use letters, digits, '.', '_' and '-', e.g. S-3"))
			}
			r.in.Slice = s
		}
	}
	ev, remote, err := r.evaluate(t)
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	if head := ev.Decision.Head; head != "" {
		pr, found, err := r.forge.FindPullRequest(r.ctx, head)
		switch {
		case err != nil:
			r.note("could not look up the pull request of %s, so no comment: %v", short(head), err)
		case found:
			t.pr = &pr
		}
	}
	r.publish(t, ev.Decision, remote)
	return ExitClosed
}

// evaluateAndPublish evaluates t with the remote state, then publishes the
// decision: checkpoint tag, sticky comment, step summary, outputs, log.
func (r *actionRun) evaluateAndPublish(t target) int {
	ev, remote, err := r.evaluate(t)
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	return r.publish(t, ev.Decision, remote)
}

// remoteRefs are the breaker's refs for one slice as the remote has them.
type remoteRefs struct {
	checkpoint, reset string // "" when missing
}

// evaluate runs the engine with the remote refs of the slice. When the
// slice is not named, a first pass without refs finds it; the refs are read
// only when there is a slice, and the engine runs again only when a ref
// exists.
func (r *actionRun) evaluate(t target) (evaluation, remoteRefs, error) {
	opts := r.evalOptions(t)
	var remote remoteRefs
	opts.Refs = &breaker.Refs{}
	ev, err := r.deps.evaluate(r.ctx, opts)
	if err != nil {
		return ev, remote, err
	}
	slice := ev.Decision.Slice
	if slice == "" || !actionenv.ValidSlice(slice) {
		return ev, remote, nil
	}
	remote, err = r.readRefs(slice)
	if err != nil {
		return ev, remote, err
	}
	if t.resetAt != "" {
		remote.reset = t.resetAt
	}
	if remote == (remoteRefs{}) {
		return ev, remote, nil
	}
	opts.Refs = remote.asRefs(slice)
	ev, err = r.deps.evaluate(r.ctx, opts)
	return ev, remote, err
}

func (r *actionRun) evalOptions(t target) evalOptions {
	return evalOptions{
		RepoDir: r.gh.Workspace, Head: t.head, Base: r.in.Base, Slice: r.in.Slice,
		Branch: t.branch, Results: r.in.Results, Graph: r.in.Graph,
		TrailerPrefix: r.in.TrailerPrefix, TagPrefix: r.in.TagPrefix, Force: t.force,
	}
}

func (rr remoteRefs) asRefs(slice string) *breaker.Refs {
	refs := &breaker.Refs{Checkpoints: map[string]string{}, Resets: map[string]string{}}
	if rr.checkpoint != "" {
		refs.Checkpoints[slice] = rr.checkpoint
	}
	if rr.reset != "" {
		refs.Resets[slice] = rr.reset
	}
	return refs
}

// exitFor maps a published decision to the exit code.
func (r *actionRun) exitFor(t target, d breaker.Decision) int {
	if t.force || !d.Tripped {
		return ExitClosed
	}
	if !r.in.FailOnTrip {
		r.ax.Logf("breaker: the breaker is OPEN but fail-on-trip is false: the check stays green")
		return ExitClosed
	}
	return ExitTripped
}
