package action_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// labelCalls counts the requests that put a label on #7.
func (r *rig) labelCalls() int {
	n := 0
	for _, c := range r.srv.Calls() {
		if c.Method == "POST" && strings.HasSuffix(c.Path, "/issues/7/labels") {
			n++
		}
	}
	return n
}

// onTripWrites counts the requests that change what a trip does on a
// pull request: labels, assignees, review requests, cancelled runs and
// the draft mutations.
func (r *rig) onTripWrites() int {
	n := 0
	for _, c := range r.srv.Calls() {
		if c.Method != "GET" && (strings.Contains(c.Path, "/labels") || strings.Contains(c.Path, "/assignees") ||
			strings.Contains(c.Path, "/requested_reviewers") || strings.Contains(c.Path, "/cancel") ||
			c.Path == "/graphql" && (strings.Contains(c.Body, "convertPullRequestToDraft") || strings.Contains(c.Body, "markPullRequestReadyForReview"))) {
			n++
		}
	}
	return n
}

// On a trip the pull request says so where agents and orchestrators look
// (issue 32): on-trip-label puts the label on at the trip, once however
// many runs see the OPEN circuit, records it in the trip's entry, and a
// maintainer's verified reset takes it off.
func TestOnTrip_LabelPutOnOnceAndTakenOffByTheReset(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["on-trip-label"] = "breaker: stopped"
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	head := r.tripOn(7, "copilot/fix-login")
	if got := r.srv.Labels(7); !slices.Contains(got, "breaker: stopped") {
		t.Fatalf("after the trip the pull request's labels are %v", got)
	}
	e, err := ledger.Decode(r.checkRun(head).Text)
	if err != nil || e.OnTrip == nil || e.OnTrip.Label != "breaker: stopped" {
		t.Fatalf("the trip's entry records %+v (%v); want the label", e.OnTrip, err)
	}
	r.commit("Fix the login once more")
	r.results(map[string]string{"TestLogin": "fail"})
	r.open(7, "copilot/fix-login")
	if o := r.push("copilot/fix-login"); o.state() != "OPEN" || r.labelCalls() != 1 {
		t.Fatalf("the next failing push: %q, %d label requests; want OPEN and still one", o.state(), r.labelCalls())
	}
	if o := r.comment(7, "alice", "/breaker reset copilot-fix-login try the cache"); o.Err != nil {
		t.Fatalf("the reset: %v\n%s", o.Err, o.stdout)
	}
	if got := r.srv.Labels(7); slices.Contains(got, "breaker: stopped") {
		t.Errorf("after the reset the label is still on: %v", got)
	}
}

// A label someone else put on is not the breaker's: left on at the trip,
// left on at the reset. A token that may not label gets a note, and the
// verdict is the same.
func TestOnTrip_OthersLabelsAndMissingPermission(t *testing.T) {
	t.Parallel()
	t.Run("someone else's label", func(t *testing.T) {
		t.Parallel()
		r := newRig(t)
		r.inputs["on-trip-label"] = "needs human"
		r.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "copilot/fix-login", BaseRef: "main", State: "open", Labels: []string{"needs human"}})
		r.git("checkout", "-q", "-b", "copilot/fix-login")
		r.tripOn(7, "copilot/fix-login")
		if r.labelCalls() != 0 {
			t.Errorf("%d label requests; the label was there already", r.labelCalls())
		}
		r.comment(7, "alice", "/breaker reset copilot-fix-login")
		if got := r.srv.Labels(7); !slices.Contains(got, "needs human") {
			t.Errorf("the reset took off a label the breaker did not put on: %v", got)
		}
	})
	t.Run("no permission", func(t *testing.T) {
		t.Parallel()
		r := newRig(t)
		r.inputs["on-trip-label"] = "breaker: stopped"
		r.inputs["cancel-workflows"] = "true"
		r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: 9001, Branch: "copilot/fix-login", Event: "pull_request", Status: "in_progress"})
		// GitHub's answer to a token without issues: write or actions:
		// write ("Resource not accessible by integration", 403: the REST
		// reference's error for a missing permission).
		r.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/issues/7/labels", Status: 403, Times: 5})
		r.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/actions/runs/*/cancel", Status: 403, Times: 5})
		r.git("checkout", "-q", "-b", "copilot/fix-login")
		r.git("commit", "-q", "--allow-empty", "-m", "Start")
		var o outcome
		for range 3 {
			r.commit("Fix the login")
			r.results(map[string]string{"TestLogin": "fail"})
			r.open(7, "copilot/fix-login")
			o = r.push("copilot/fix-login")
		}
		if o.state() != "OPEN" || o.Err != nil || !strings.Contains(o.stdout, "could not put the label") || !strings.Contains(o.stdout, "`actions: write`") {
			t.Fatalf("state %q, err %v; want OPEN, no error, and a note\n%s", o.state(), o.Err, o.stdout)
		}
	})
}

// on-trip-remove-labels takes off, at the trip, the labels that start the
// agent, and a verified reset puts back the ones it took off; a listed
// label the pull request does not carry is neither taken off nor put back.
func TestOnTrip_TheLabelsThatStartTheAgentComeOffUntilTheReset(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["on-trip-remove-labels"] = "fix-me, claude"
	r.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "copilot/fix-login", BaseRef: "main", State: "open", Labels: []string{"fix-me", "bug"}})
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	head := r.tripOn(7, "copilot/fix-login")
	if got := r.srv.Labels(7); slices.Contains(got, "fix-me") || !slices.Contains(got, "bug") {
		t.Fatalf("after the trip the labels are %v; want fix-me off, bug kept", got)
	}
	if e, err := ledger.Decode(r.checkRun(head).Text); err != nil || e.OnTrip == nil || strings.Join(e.OnTrip.Removed, ",") != "fix-me" {
		t.Fatalf("the trip's entry records %+v (%v); want fix-me removed", e.OnTrip, err)
	}
	r.comment(7, "alice", "/breaker reset copilot-fix-login")
	if got := r.srv.Labels(7); !slices.Contains(got, "fix-me") || slices.Contains(got, "claude") {
		t.Errorf("after the reset the labels are %v; want fix-me back, and no claude", got)
	}
}

// on-trip-unassign unassigns the agent at the trip, from the pull request
// and from the issue it closes — GitHub stops Copilot's coding agent when
// it is unassigned — and a verified reset assigns it again; a person
// assigned beside it stays.
func TestOnTrip_TheAgentIsUnassignedUntilTheReset(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["on-trip-unassign"] = "Copilot"
	r.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "copilot/fix-login", BaseRef: "main", State: "open", Assignees: []string{"Copilot", "alice"}})
	r.srv.AddIssue(12, []string{"Copilot"}, 7) // the issue #7 closes, assigned to the agent
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	head := r.tripOn(7, "copilot/fix-login")
	if got := r.srv.Assignees(7); slices.Contains(got, "Copilot") || !slices.Contains(got, "alice") {
		t.Fatalf("after the trip the assignees are %v; want Copilot unassigned, alice kept", got)
	}
	if got := r.srv.IssueAssignees(12); slices.Contains(got, "Copilot") {
		t.Fatalf("after the trip the issue #7 closes is still assigned to %v", got)
	}
	if e, err := ledger.Decode(r.checkRun(head).Text); err != nil || e.OnTrip == nil || strings.Join(e.OnTrip.Unassigned, ",") != "Copilot" {
		t.Fatalf("the trip's entry records %+v (%v); want Copilot unassigned", e.OnTrip, err)
	}
	r.comment(7, "alice", "/breaker reset copilot-fix-login")
	if got := r.srv.Assignees(7); !slices.Contains(got, "Copilot") {
		t.Errorf("after the reset the assignees are %v; want Copilot again", got)
	}
	if got := r.srv.IssueAssignees(12); !slices.Contains(got, "Copilot") {
		t.Errorf("after the reset the issue's assignees are %v; want Copilot again", got)
	}
}

// on-trip-request-review asks the named person and team to review at the
// trip, and a verified reset takes the request back.
func TestOnTrip_AReviewIsRequestedUntilTheReset(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["on-trip-request-review"] = "bob, acme/reviewers"
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	r.tripOn(7, "copilot/fix-login")
	if got := r.srv.ReviewRequests(7); strings.Join(got, ",") != "bob,team:reviewers" {
		t.Fatalf("after the trip the review requests are %v; want bob and the team", got)
	}
	r.comment(7, "alice", "/breaker reset copilot-fix-login")
	if got := r.srv.ReviewRequests(7); len(got) != 0 {
		t.Errorf("after the reset the review requests are %v; want none", got)
	}
}

// on-trip-draft turns a pull request that was ready into a draft at the
// trip (GraphQL's convertPullRequestToDraft) and a verified reset marks it
// ready again; one that was a draft already stays one after the reset.
func TestOnTrip_ADraftUntilTheReset(t *testing.T) {
	t.Parallel()
	for _, wasDraft := range []bool{false, true} {
		r := newRig(t)
		r.inputs["on-trip-draft"] = "true"
		r.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "copilot/fix-login", BaseRef: "main", State: "open", Draft: wasDraft})
		r.git("checkout", "-q", "-b", "copilot/fix-login")
		r.tripOn(7, "copilot/fix-login")
		if !r.srv.Draft(7) {
			t.Fatalf("was a draft %v: not a draft after the trip", wasDraft)
		}
		r.comment(7, "alice", "/breaker reset copilot-fix-login")
		if r.srv.Draft(7) != wasDraft {
			t.Errorf("was a draft %v: a draft %v after the reset", wasDraft, r.srv.Draft(7))
		}
	}
}

// cancel-workflows cancels, at the trip, the workflow runs still going on
// the pull request's branch — the agent's next attempts — and leaves this
// run, other branches' and finished runs alone.
func TestOnTrip_TheAgentsRunsAreCancelled(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["cancel-workflows"] = "true"
	r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: 9001, Branch: "copilot/fix-login", Event: "pull_request", Status: "in_progress"})
	r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: 9002, Branch: "copilot/fix-login", Event: "pull_request", Status: "completed"})
	r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: 9003, Branch: "people/docs", Event: "pull_request", Status: "in_progress"})
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	head := r.tripOn(7, "copilot/fix-login")
	cancelled := map[int64]bool{}
	for _, run := range r.srv.WorkflowRuns() {
		cancelled[run.ID] = run.Cancelled
	}
	if !cancelled[9001] || cancelled[9002] || cancelled[9003] {
		t.Fatalf("cancelled %v; want only 9001, the branch's run still going", cancelled)
	}
	if e, err := ledger.Decode(r.checkRun(head).Text); err != nil || e.OnTrip == nil || len(e.OnTrip.Cancelled) != 1 {
		t.Fatalf("the trip's entry records %+v (%v); want the cancelled run", e.OnTrip, err)
	}
}

// Every on-trip input at once (issue 32): the trip labels, takes the
// trigger label off, unassigns the agent from the pull request and the
// issue it closes, makes a draft, asks for a review and cancels the
// agent's run; the next run of the OPEN circuit
// changes nothing; a verified reset undoes each (the draft: it was ready).
func TestOnTrip_EveryInputOnceAndUndoneByTheReset(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for k, v := range map[string]string{"on-trip-label": "breaker: stopped", "on-trip-remove-labels": "fix-me",
		"on-trip-unassign": "Copilot", "on-trip-request-review": "bob", "on-trip-draft": "true", "cancel-workflows": "true"} {
		r.inputs[k] = v
	}
	r.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "copilot/fix-login", BaseRef: "main", State: "open",
		Labels: []string{"fix-me"}, Assignees: []string{"Copilot"}})
	r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: 9001, Branch: "copilot/fix-login", Event: "pull_request", Status: "in_progress"})
	r.srv.AddIssue(12, []string{"Copilot"}, 7) // the issue #7 closes
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	r.tripOn(7, "copilot/fix-login")
	state := func() string {
		runs := r.srv.WorkflowRuns()
		return strings.Join([]string{strings.Join(r.srv.Labels(7), "+"), strings.Join(r.srv.Assignees(7), "+"),
			strings.Join(r.srv.IssueAssignees(12), "+"),
			strings.Join(r.srv.ReviewRequests(7), "+"), map[bool]string{true: "draft", false: "ready"}[r.srv.Draft(7)],
			map[bool]string{true: "cancelled", false: "running"}[runs[0].Cancelled]}, " | ")
	}
	if got, want := state(), "breaker: stopped |  |  | bob | draft | cancelled"; got != want {
		t.Fatalf("after the trip: %q, want %q", got, want)
	}
	if c := r.srv.Comments(7); len(c) != 1 || !strings.Contains(c[0].Body, "on the trip the breaker put the label") {
		t.Errorf("the comment does not say what the trip did: %v", c)
	}
	writes := r.onTripWrites
	before := writes()
	r.commit("Fix the login once more")
	r.results(map[string]string{"TestLogin": "fail"})
	r.open(7, "copilot/fix-login")
	if o := r.push("copilot/fix-login"); o.state() != "OPEN" || writes() != before {
		t.Fatalf("the next run of the OPEN circuit: %q, %d more on-trip writes; want OPEN and none", o.state(), writes()-before)
	}
	if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.Err != nil {
		t.Fatalf("the reset: %v", o.Err)
	}
	if got, want := state(), "fix-me | Copilot | Copilot |  | ready | cancelled"; got != want {
		t.Errorf("after the reset: %q, want %q (a cancelled run stays cancelled)", got, want)
	}
}

// The stop stays on (issue 46): after the trip the agent takes the
// breaker's label off, puts its trigger label back, assigns itself again
// and marks the pull request ready. The next OPEN run puts all of it back,
// once, and says the agent undid the stop; a run after it, with nothing
// undone, writes nothing; a verified reset still undoes it all.
func TestOnTrip_TheStopStaysOn(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for k, v := range map[string]string{"on-trip-label": "breaker: stopped", "on-trip-remove-labels": "fix-me",
		"on-trip-unassign": "Copilot", "on-trip-draft": "true"} {
		r.inputs[k] = v
	}
	r.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "copilot/fix-login", BaseRef: "main", State: "open",
		Labels: []string{"fix-me"}, Assignees: []string{"Copilot"}})
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	r.tripOn(7, "copilot/fix-login")
	state := func() string {
		return strings.Join([]string{strings.Join(r.srv.Labels(7), "+"), strings.Join(r.srv.Assignees(7), "+"),
			map[bool]string{true: "draft", false: "ready"}[r.srv.Draft(7)]}, " | ")
	}
	const stopped = "breaker: stopped |  | draft"
	if got := state(); got != stopped {
		t.Fatalf("after the trip: %q, want %q", got, stopped)
	}
	writes := r.onTripWrites
	// The agent undoes the stop with its own token.
	r.srv.EditPullRequest(7, func(pr *forge.PullRequest) {
		pr.Labels, pr.Assignees, pr.Draft = []string{"fix-me"}, []string{"Copilot"}, false
	})
	before := writes()
	r.commit("Fix the login once more")
	r.results(map[string]string{"TestLogin": "fail"})
	r.open(7, "copilot/fix-login")
	o := r.push("copilot/fix-login")
	if o.state() != "OPEN" || state() != stopped {
		t.Fatalf("the next OPEN run: %q, pull request %q; want OPEN and %q", o.state(), state(), stopped)
	}
	if n := writes() - before; n != 4 {
		t.Errorf("the stop put back with %d writes, want 4 (the label on, the trigger off, unassign, draft)", n)
	}
	if c := r.srv.Comments(7); len(c) != 1 || !strings.Contains(c[0].Body, "the agent undid the stop") {
		t.Errorf("the comment does not say the agent undid the stop: %v", c)
	}
	e, err := ledger.Decode(r.checkRun(r.git("rev-parse", "HEAD")).Text)
	if err != nil || e.OnTrip == nil || e.OnTrip.Label != "breaker: stopped" || !e.OnTrip.Drafted {
		t.Errorf("the run's entry records %+v (%v); want what it put back", e.OnTrip, err)
	}
	before = writes()
	r.commit("Fix the login yet again")
	r.open(7, "copilot/fix-login")
	if o := r.push("copilot/fix-login"); o.state() != "OPEN" || writes() != before {
		t.Errorf("a run with nothing undone: %q, %d on-trip writes; want OPEN and none", o.state(), writes()-before)
	}
	if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.Err != nil {
		t.Fatalf("the reset: %v", o.Err)
	}
	if got, want := state(), "fix-me | Copilot | ready"; got != want {
		t.Errorf("after the reset: %q, want %q", got, want)
	}
}
