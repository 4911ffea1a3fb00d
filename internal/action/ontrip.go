package action

import (
	"context"
	"errors"
	"slices"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// On a trip the pull request says so where agents and orchestrators look
// (issue 32): the on-trip-label input puts a label on it, once, recorded
// in the trip's ledger entry so that a verified reset takes off exactly
// what the breaker put on. A missing permission is a note, never another
// verdict.

// recordedLabel is the label an entry of pull request pr recorded putting
// on since its last verified reset, "" when none.
func recordedLabel(r *run, pr int) string {
	if r.state == nil {
		return ""
	}
	entries := append([]ledger.Entry(nil), r.state.ledger.Entries...)
	ledger.Sort(entries)
	who := evaluate.Run{PR: pr}
	label := ""
	for _, e := range entries {
		if !who.Belongs(e) {
			continue
		}
		if e.Reset != nil {
			label = ""
		}
		if e.OnTrip != nil && e.OnTrip.Label != "" {
			label = e.OnTrip.Label
		}
	}
	return label
}

// labelOnTrip puts the on-trip label on the tripped pull request, unless
// this trip already did (a later run of the same OPEN circuit changes
// nothing) or someone else's label is there (then it is not the breaker's
// to take off). It returns what to record in the entry.
func labelOnTrip(ctx context.Context, r *run, d breaker.Decision, pr *forge.PullRequest) *ledger.OnTrip {
	label := r.in.OnTripLabel
	if label == "" || pr == nil || !d.Tripped || recordedLabel(r, pr.Number) == label {
		return nil
	}
	current, err := r.forge.PullRequest(ctx, pr.Number)
	if err != nil {
		r.note("could not read #%d's labels to put %q on it: %v", pr.Number, label, err)
		return nil
	}
	if slices.Contains(current.Labels, label) {
		r.note("#%d already carries the label %q: left as it is", pr.Number, label)
		return nil
	}
	switch err := r.forge.AddLabels(ctx, pr.Number, []string{label}); {
	case errors.Is(err, forge.ErrForbidden):
		r.note("could not put the label %q on #%d: the token may not (give the job `issues: write` or `pull-requests: write`); the verdict is the same", label, pr.Number)
		return nil
	case err != nil:
		r.note("could not put the label %q on #%d: %v", label, pr.Number, err)
		return nil
	}
	r.noteDone("put the label %q on #%d (a verified reset takes it off)", label, pr.Number)
	return &ledger.OnTrip{Label: label}
}

// unlabelOnReset takes off the label the trip put on pull request pr.
func unlabelOnReset(ctx context.Context, r *run, pr int) {
	label := recordedLabel(r, pr)
	if label == "" {
		return
	}
	switch err := r.forge.RemoveLabel(ctx, pr, label); {
	case errors.Is(err, forge.ErrForbidden):
		r.note("could not take the label %q off #%d: the token may not (give the job `issues: write`)", label, pr)
	case err != nil:
		r.note("could not take the label %q off #%d: %v", label, pr, err)
	default:
		r.noteDone("took the label %q off #%d, which the trip had put on", label, pr)
	}
}
