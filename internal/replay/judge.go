package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/gitlog"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// judge walks every push of every pull request in the order CI saw them,
// as the Action would have: each is loaded from the clone at its head
// with what its run left, decided by the engine with the ledger entries
// of the pushes before it (every pull request's: an entry reaches another
// pull request through its commits, as the Action's ledger does), and its
// entry joins the ledger.
func judge(ctx context.Context, o Options, reads []pullRead, bases map[string]baseRead, rep *Report) error {
	type at struct{ pr, head int }
	var order []at
	for i, p := range reads {
		for j := range p.Heads {
			order = append(order, at{i, j})
		}
	}
	slices.SortStableFunc(order, func(a, b at) int {
		return reads[a.pr].Heads[a.head].At.Compare(reads[b.pr].Heads[b.head].At)
	})
	rep.PullRequests = make([]PullRequest, len(reads))
	for i, p := range reads {
		rep.PullRequests[i] = newPullRequest(p)
	}
	var entries []ledger.Entry
	for n, x := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, h := reads[x.pr], reads[x.pr].Heads[x.head]
		out := &rep.PullRequests[x.pr]
		push := Push{N: len(out.Pushes) + 1, Head: h.SHA, RunID: h.RunID, At: h.At, Conclusion: h.Conclusion,
			Minutes: round1(h.Minutes), Evidence: h.Evidence, EvidenceDetail: h.Detail}
		obs, partial := observation(h)
		base := bases[strings.ToLower(h.BaseSHA)]
		pr := p.PR.Number
		if h.At.Before(p.PR.CreatedAt) {
			pr = 0 // a push to the branch before the pull request was opened
		}
		opts := evaluate.Options{RepoDir: o.RepoDir, Head: h.SHA, Base: h.BaseSHA, BaseRef: h.BaseRef, BaseSource: breaker.BaseFromAPI,
			Branch: p.PR.HeadRef, Policy: o.Policy, Ledger: evaluate.Ledger{Entries: entries, Source: "replay"},
			Run:      evaluate.Run{ObservedAt: h.At, RunID: h.RunID, Event: h.Event, PR: pr, Branch: p.PR.HeadRef},
			Observed: &obs, Partial: partial, BaseFailing: setOf(base.Failing), BaseObserved: base.Observed}
		snap, err := evaluate.Load(ctx, opts)
		if errors.Is(err, gitlog.ErrMissingObject) {
			// A head the clone lacks (force-pushed away, never fetched):
			// its evidence still joins the ledger, as a force-pushed-away
			// head's does for the Action, so its failures count for the
			// pushes after it. Dropping it would let them pass.
			e, err := evidenceEntry(h, p.PR, pr, lastOf(entries, p.PR.Number), obs)
			if err != nil {
				return err
			}
			entries = append(entries, e)
			push.Failing = failingOf(h)
			push.Note = "not in the clone: no verdict of its own; its evidence joins the ledger, as a force-pushed-away head's does"
			out.Pushes = append(out.Pushes, push)
			continue
		}
		if err != nil {
			push.Note = "not judged: " + err.Error()
			out.Incomplete = true
			out.Pushes = append(out.Pushes, push)
			continue
		}
		d := snap.Decide(breaker.Refs{})
		// The entry as a later run reads it back: encoded (its test names
		// become a filter, it fits a check run) and decoded.
		block, _ := ledger.Encode(snap.Entry(d), nil)
		e, err := ledger.Decode(block)
		if err != nil {
			return fmt.Errorf("the ledger entry of %s does not read back: %w", breaker.ShortSHA(h.SHA), err)
		}
		entries = append(entries, e)
		push.State, push.Reason, push.Test, push.Slice = string(d.State), string(d.TripReason), d.TrippedTest, d.Slice
		push.FailedInARow, push.Failing = d.FailedInARow, failingOf(h)
		out.Pushes = append(out.Pushes, push)
		o.say(Progress{Phase: "judge", Done: n + 1, Total: len(order)})
	}
	return nil
}

// observation is a head's evidence as the engine's observation: every
// test of an artifact; the tests a log names (partial: the others are
// unknown); for a head CI passed with nothing read, no failing test
// (partial too); for a failed head with nothing read, the evidence floor.
func observation(h headRead) (testresult.Report, bool) {
	switch {
	case h.Evidence == EvidenceArtifact:
		return testresult.Report{Tests: toTests(h.Tests)}, false
	case h.Evidence == EvidenceLog:
		return testresult.Report{Tests: toTests(h.Tests)}, true
	case failed(h.Conclusion):
		return testresult.Report{InfraKind: breaker.InfraConclusion,
			Infra: "CI concluded " + h.Conclusion + " and left no result file or log line naming a failing test"}, true
	case h.Conclusion == "success":
		return testresult.Report{}, true
	}
	return testresult.Report{InfraKind: breaker.InfraCancelled, Infra: "CI concluded " + h.Conclusion}, true
}

func toTests(ts []test) []testresult.Test {
	out := make([]testresult.Test, len(ts))
	for i, t := range ts {
		out[i] = testresult.Test{Name: t.Name, Status: t.Status, Message: t.Message}
	}
	return out
}

func failingOf(h headRead) []string {
	var out []string
	for _, t := range h.Tests {
		if t.Status.Failed() {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

func setOf(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }

// lastOf is the newest entry of pull request pr, nil when none.
func lastOf(entries []ledger.Entry, pr int) *ledger.Entry {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].PR == pr {
			return &entries[i]
		}
	}
	return nil
}

// evidenceEntry is the ledger entry of a head the clone lacks: what its
// run left (its failing tests, the statuses it names of the tests that
// failed before, or its conclusion alone), the slice and the verdict of
// the entry before it (a verdict is a floor: never lower than before).
func evidenceEntry(h headRead, p forge.PastPullRequest, pr int, last *ledger.Entry, obs testresult.Report) (ledger.Entry, error) {
	e := ledger.Entry{Schema: ledger.Schema, Head: h.SHA, ObservedAt: h.At.UTC(), RunID: h.RunID, Event: h.Event, PR: pr,
		Branch: p.HeadRef, Tests: []ledger.Test{}, Known: &ledger.Known{}, Verdict: ledger.Verdict{State: breaker.StateClosed}}
	if last != nil {
		e.Slice, e.Verdict = last.Slice, last.Verdict
	}
	if obs.Infra != "" {
		infra := obs.Infra
		e.Infra, e.InfraKind = &infra, obs.InfraKind
	}
	earlier := map[string]bool{}
	if last != nil {
		for _, t := range last.Tests {
			earlier[t.FullName()] = true
		}
	}
	c := testresult.CountTests(obs.Tests)
	e.Counts = ledger.Counts{Total: c.Total, Passed: c.Passed, Failed: c.Failed, Errored: c.Errored, Skipped: c.Skipped}
	for _, t := range obs.Tests {
		if t.Status.Failed() || earlier[t.FullName()] {
			lt := ledger.Test{Name: t.FullName(), Status: t.Status}
			if t.Status.Failed() {
				lt.Fingerprint = ledger.Fingerprint(t.Message, "")
			}
			e.Tests = append(e.Tests, lt)
		}
	}
	block, _ := ledger.Encode(e, nil)
	return ledger.Decode(block)
}
