package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// On a trip the pull request says so where agents and orchestrators look
// (issue 32): on-trip-label puts a label on it and on-trip-remove-labels
// takes off the labels that start the agent, once, recorded in the trip's
// ledger entry so that a verified reset undoes exactly what the breaker
// did. A missing permission is a note, never another verdict.

// recordedOnTrip is what the entries of pull request pr recorded doing at
// a trip since its last verified reset, nil when nothing.
func recordedOnTrip(r *run, pr int) *ledger.OnTrip {
	if r.state == nil {
		return nil
	}
	if from := r.state.ledger.From; from != nil && from.Carry != nil && from.Carry.OnTrip && from.PR == pr {
		// The read holds the newest entries only: the carry says one before
		// them recorded it (since the last reset).
		return &ledger.OnTrip{}
	}
	entries := append([]ledger.Entry(nil), r.state.ledger.Entries...)
	ledger.Sort(entries)
	who := evaluate.Run{PR: pr}
	var rec *ledger.OnTrip
	for _, e := range entries {
		if !who.Belongs(e) {
			continue
		}
		if e.Reset != nil {
			rec = nil
		}
		if e.OnTrip != nil {
			// The trip's record, and what later runs put back after the
			// agent undid it: a reset undoes all of it.
			if rec == nil {
				rec = &ledger.OnTrip{}
			}
			merged := mergeOnTrip(*rec, *e.OnTrip)
			rec = &merged
		}
	}
	return rec
}

// mergeOnTrip is what a and b did together.
func mergeOnTrip(a, b ledger.OnTrip) ledger.OnTrip {
	union := func(x, y []string) []string {
		out := append([]string(nil), x...)
		for _, s := range y {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	if a.Label == "" {
		a.Label = b.Label
	}
	a.Removed, a.Unassigned, a.Reviewers = union(a.Removed, b.Removed), union(a.Unassigned, b.Unassigned), union(a.Reviewers, b.Reviewers)
	a.IssueUnassigned = append(append([]ledger.IssueLogins(nil), a.IssueUnassigned...), b.IssueUnassigned...)
	a.Drafted = a.Drafted || b.Drafted
	a.Cancelled = append(append([]int64(nil), a.Cancelled...), b.Cancelled...)
	return a
}

// actOnTrip does what the on-trip inputs ask on the tripped pull request,
// unless an earlier run of this OPEN circuit already did (a later run
// changes nothing). A label someone else put on is not the breaker's: it
// is neither recorded nor taken off later. It returns what to record, and
// what to say in the report ("" when nothing was done).
func actOnTrip(ctx context.Context, r *run, d breaker.Decision, pr *forge.PullRequest) (*ledger.OnTrip, string) {
	add, remove, unassign, review := r.in.OnTripLabel, r.in.OnTripRemoveLabels, r.in.OnTripUnassign, r.in.OnTripRequestReview
	if (add == "" && len(remove) == 0 && len(unassign) == 0 && len(review) == 0 && !r.in.OnTripDraft && !r.in.CancelWorkflows) || pr == nil || !d.Tripped {
		return nil, ""
	}
	if recordedOnTrip(r, pr.Number) != nil {
		return keepStopOn(ctx, r, pr.Number)
	}
	current, err := r.api.pulls.PullRequest(ctx, pr.Number)
	if err != nil {
		r.note("could not read #%d's labels, so the on-trip labels were left as they are: %v", pr.Number, err)
		return nil, ""
	}
	if add != "" && slices.Contains(current.Labels, add) {
		r.note("#%d already carries the label %s: left as it is", pr.Number, quote(add))
	}
	rec := putStop(ctx, r, pr.Number, current, "")
	if len(unassign) > 0 {
		rec.IssueUnassigned = unassignFromIssues(ctx, r, pr.Number, unassign)
	}
	if len(review) > 0 {
		people, teams := splitReviewers(review)
		if labelError(r, r.api.reviews.RequestReview(ctx, pr.Number, people, teams), "ask "+strings.Join(review, ", ")+" to review", pr.Number) {
			rec.Reviewers = review
		}
	}
	if r.in.CancelWorkflows {
		rec.Cancelled = cancelRuns(ctx, r, current.HeadRef)
	}
	if rec.Label == "" && len(rec.Removed) == 0 && len(rec.Unassigned) == 0 && len(rec.IssueUnassigned) == 0 && len(rec.Reviewers) == 0 && !rec.Drafted && len(rec.Cancelled) == 0 {
		return nil, ""
	}
	r.noteDone("on the trip: %s (a verified reset undoes it)", describeOnTrip(rec))
	return &rec, "on the trip the breaker " + describeOnTrip(rec) + "; a maintainer's verified /breaker reset undoes it"
}

// keepStopOn is a later run of the OPEN circuit (issue 46, "the stop stays
// on"): the stop is already recorded, and whatever of it the agent undid
// (the label taken off, its trigger label put back, itself assigned again,
// the draft marked ready) is put back, once, said so, and recorded with the
// trip's so that a verified reset undoes it all. Review requests and
// cancelled runs are done once: nothing to put back.
func keepStopOn(ctx context.Context, r *run, pr int) (*ledger.OnTrip, string) {
	if r.in.OnTripLabel == "" && len(r.in.OnTripRemoveLabels) == 0 && len(r.in.OnTripUnassign) == 0 && !r.in.OnTripDraft {
		return nil, ""
	}
	current, err := r.api.pulls.PullRequest(ctx, pr)
	if err != nil {
		r.note("could not read #%d to check that the stop is still on: %v", pr, err)
		return nil, ""
	}
	rec := putStop(ctx, r, pr, current, " again")
	if rec.Label == "" && len(rec.Removed) == 0 && len(rec.Unassigned) == 0 && !rec.Drafted {
		return nil, ""
	}
	what := describeOnTrip(rec)
	r.noteDone("the agent undid the stop while the circuit is OPEN; the breaker put it back: %s (a verified reset undoes it)", what)
	return &rec, "the agent undid the stop while the circuit is OPEN; the breaker put it back (" + what + "); a maintainer's verified /breaker reset undoes it"
}

// putStop makes the pull request as it is read (current) what the on-trip
// inputs ask of it: the trigger labels off, the breaker's label on (one
// already there is not the breaker's, and not recorded), the agent
// unassigned, a draft. It records what it did; again words the notes of a
// later run's putting back on pull request pr.
func putStop(ctx context.Context, r *run, pr int, current forge.PullRequest, again string) ledger.OnTrip {
	var rec ledger.OnTrip
	for _, l := range r.in.OnTripRemoveLabels {
		if slices.Contains(current.Labels, l) &&
			labelError(r, r.api.labels.RemoveLabel(ctx, pr, l), "take the label "+quote(l)+" off"+again, pr) {
			rec.Removed = append(rec.Removed, l)
		}
	}
	if add := r.in.OnTripLabel; add != "" && !slices.Contains(current.Labels, add) &&
		labelError(r, r.api.labels.AddLabels(ctx, pr, []string{add}), "put the label "+quote(add)+" on"+again, pr) {
		rec.Label = add
	}
	var assigned []string
	for _, l := range r.in.OnTripUnassign {
		if i := slices.IndexFunc(current.Assignees, func(a string) bool { return forge.SameLogin(a, l) }); i >= 0 {
			assigned = append(assigned, current.Assignees[i])
		}
	}
	if len(assigned) > 0 && labelError(r, r.api.assignees.RemoveAssignees(ctx, pr, assigned), "unassign "+strings.Join(assigned, ", ")+again+" from", pr) {
		rec.Unassigned = assigned
	}
	if r.in.OnTripDraft && !current.Draft && current.NodeID != "" &&
		labelError(r, r.api.drafts.ConvertToDraft(ctx, current.NodeID), "convert to a draft"+again, pr) {
		rec.Drafted = true
	}
	return rec
}

// undoOnTrip undoes, at a verified reset of pull request pr, what the trip
// did: the label it put on comes off, the labels it took off go back.
func undoOnTrip(ctx context.Context, r *run, pr int) {
	rec := recordedOnTrip(r, pr)
	if rec == nil {
		return
	}
	if rec.Label != "" {
		labelError(r, r.api.labels.RemoveLabel(ctx, pr, rec.Label), "take the label "+quote(rec.Label)+" off", pr)
	}
	if len(rec.Removed) > 0 {
		labelError(r, r.api.labels.AddLabels(ctx, pr, rec.Removed), "put back the labels "+strings.Join(rec.Removed, ", ")+" on", pr)
	}
	if len(rec.Unassigned) > 0 {
		labelError(r, r.api.assignees.AddAssignees(ctx, pr, rec.Unassigned), "assign "+strings.Join(rec.Unassigned, ", ")+" again to", pr)
	}
	for _, iu := range rec.IssueUnassigned {
		labelError(r, r.api.assignees.AddAssignees(ctx, iu.Issue, iu.Logins), "assign "+strings.Join(iu.Logins, ", ")+" again to", iu.Issue)
	}
	if len(rec.Reviewers) > 0 {
		people, teams := splitReviewers(rec.Reviewers)
		labelError(r, r.api.reviews.RemoveReviewRequest(ctx, pr, people, teams), "take back the review request of", pr)
	}
	if rec.Drafted {
		if cur, err := r.api.pulls.PullRequest(ctx, pr); err != nil {
			r.note("could not read #%d to mark it ready for review again: %v", pr, err)
		} else {
			labelError(r, r.api.drafts.MarkReadyForReview(ctx, cur.NodeID), "mark ready for review again", pr)
		}
	}
	r.noteDone("undid what the trip did on #%d: %s", pr, describeOnTrip(*rec))
}

// labelError notes a failed label request (what it tried, on which pull
// request, and the permission when that was it); it reports success.
func labelError(r *run, err error, what string, pr int) bool {
	target, perm := "", "`actions: write`"
	if pr > 0 {
		target, perm = fmt.Sprintf(" #%d", pr), "`issues: write` or `pull-requests: write`"
	}
	switch {
	case errors.Is(err, forge.ErrForbidden):
		r.note("could not %s%s: the token may not (give the job %s); the verdict is the same", what, target, perm)
	case err != nil:
		r.note("could not %s%s: %v", what, target, err)
	default:
		return true
	}
	return false
}

func describeOnTrip(rec ledger.OnTrip) string {
	var parts []string
	if rec.Label != "" {
		parts = append(parts, "put the label "+quote(rec.Label)+" on")
	}
	if len(rec.Removed) > 0 {
		parts = append(parts, "took off "+strings.Join(rec.Removed, ", "))
	}
	if len(rec.Unassigned) > 0 {
		parts = append(parts, "unassigned "+strings.Join(rec.Unassigned, ", "))
	}
	for _, iu := range rec.IssueUnassigned {
		parts = append(parts, fmt.Sprintf("unassigned %s from #%d", strings.Join(iu.Logins, ", "), iu.Issue))
	}
	if len(rec.Reviewers) > 0 {
		parts = append(parts, "asked "+strings.Join(rec.Reviewers, ", ")+" to review")
	}
	if rec.Drafted {
		parts = append(parts, "made it a draft")
	}
	if len(rec.Cancelled) > 0 {
		parts = append(parts, fmt.Sprintf("cancelled %d workflow runs still going on the branch", len(rec.Cancelled)))
	}
	return strings.Join(parts, "; ")
}

// unassignFromIssues unassigns the listed logins from the issues pull
// request pr closes, and returns what it did.
func unassignFromIssues(ctx context.Context, r *run, pr int, unassign []string) []ledger.IssueLogins {
	issues, err := r.api.assignees.ClosingIssues(ctx, pr)
	if !labelError(r, err, "read the issues closed by", pr) {
		return nil
	}
	var out []ledger.IssueLogins
	for _, is := range issues {
		var who []string
		for _, a := range is.Assignees {
			if slices.ContainsFunc(unassign, func(l string) bool { return forge.SameLogin(a, l) }) {
				who = append(who, a)
			}
		}
		if len(who) > 0 && labelError(r, r.api.assignees.RemoveAssignees(ctx, is.Number, who), "unassign "+strings.Join(who, ", ")+" from", is.Number) {
			out = append(out, ledger.IssueLogins{Issue: is.Number, Logins: who})
		}
	}
	return out
}

// cancelRuns cancels the workflow runs in progress on branch, this one
// aside, and returns those it cancelled.
func cancelRuns(ctx context.Context, r *run, branch string) []int64 {
	if branch == "" {
		return nil
	}
	ids, err := r.api.runs.InProgressRuns(ctx, branch)
	if !labelError(r, err, "list the workflow runs still going on "+branch, 0) {
		return nil
	}
	self := r.gh.RunID
	var done []int64
	for _, id := range ids {
		if id == self {
			continue
		}
		if labelError(r, r.api.runs.CancelRun(ctx, id), fmt.Sprintf("cancel workflow run %d", id), 0) {
			done = append(done, id)
		}
	}
	return done
}

// splitReviewers separates people (logins) from teams (ORG/SLUG, given to
// GitHub as the slug).
func splitReviewers(rs []string) (people, teams []string) {
	for _, x := range rs {
		if _, slug, ok := strings.Cut(x, "/"); ok {
			teams = append(teams, slug)
		} else {
			people = append(people, x)
		}
	}
	return people, teams
}

func quote(s string) string { return "\"" + s + "\"" }
