package replay

import (
	"context"
	"errors"
	"fmt"
	"github.com/greenlight-ci/breaker/internal/gitfetch"
	"slices"
	"strings"
	"time"

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
	type at struct {
		pr, head, reset int // head, or reset (head -1): an index of the pull request's
		when            time.Time
	}
	var order []at
	for i, p := range reads {
		for j, h := range p.Heads {
			order = append(order, at{i, j, -1, h.At})
		}
		for k, x := range p.Resets {
			order = append(order, at{i, -1, k, x.At})
		}
	}
	// In time order; a reset in the same second as a push comes after it.
	slices.SortStableFunc(order, func(a, b at) int {
		if c := a.when.Compare(b.when); c != 0 {
			return c
		}
		return cmpBool(a.reset >= 0, b.reset >= 0)
	})
	rep.PullRequests = make([]PullRequest, len(reads))
	for i, p := range reads {
		rep.PullRequests[i] = newPullRequest(p)
	}
	last := map[int]evaluate.Options{} // each pull request's newest judged push, as it was loaded
	var entries []ledger.Entry
	for n, x := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		if x.reset >= 0 {
			e, ok, err := judgeReset(ctx, reads[x.pr].Resets[x.reset], last[x.pr], entries, &rep.PullRequests[x.pr])
			if err != nil {
				return err
			}
			if ok {
				entries = append(entries, e)
			}
			continue
		}
		p, h := reads[x.pr], reads[x.pr].Heads[x.head]
		out := &rep.PullRequests[x.pr]
		push := Push{N: len(out.Pushes) + 1, Head: h.SHA, RunID: h.RunID, At: h.At, Conclusion: h.Conclusion,
			Minutes: round1(h.Minutes), Evidence: h.Evidence, EvidenceDetail: h.Detail}
		obs, partial := observation(h, leftResults(p))
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
		fetched := ""
		if errors.Is(err, gitlog.ErrMissingObject) {
			// A head force-pushed away: origin may still serve it by its id.
			if ferr := gitfetch.Head(ctx, o.RepoDir, h.SHA); ferr != nil {
				fetched = "; fetching it failed: " + ferr.Error()
			} else {
				snap, err = evaluate.Load(ctx, opts)
				push.Note = "not in the clone: fetched from origin by its id (a head force-pushed away)"
			}
		}
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
			push.Note = "not in the clone: no verdict of its own; its evidence joins the ledger, as a force-pushed-away head's does" + fetched
			out.Pushes = append(out.Pushes, push)
			continue
		}
		if err != nil {
			push.Note = "not judged: " + err.Error()
			out.Incomplete = true
			out.Pushes = append(out.Pushes, push)
			continue
		}
		last[x.pr] = opts
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

// judgeReset judges reset x as the Action's reset run would have: at the
// pull request's newest judged push (pushOpts, loaded again with the
// ledger as it is now), decided as reset there, its entry joining the
// ledger (ok). A reset before any judged push, or of a slice the pull
// request does not have, is noted and changes nothing, as the Action
// would have refused it.
func judgeReset(ctx context.Context, x resetRead, pushOpts evaluate.Options, entries []ledger.Entry, out *PullRequest) (ledger.Entry, bool, error) {
	r := Reset{At: x.At, Author: x.Author, Slice: x.Slice}
	defer func() { out.Resets = append(out.Resets, r) }()
	if pushOpts.Head == "" {
		r.Note = "before any push replay judged: nothing to reset"
		return ledger.Entry{}, false, nil
	}
	opts := pushOpts
	opts.Ledger = evaluate.Ledger{Entries: entries, Source: "replay"}
	opts.Run.ObservedAt, opts.Run.RunID, opts.Run.Event = x.At, x.CommentID, "issue_comment"
	snap, err := evaluate.Load(ctx, opts)
	if err != nil {
		r.Note = "not judged: " + err.Error()
		return ledger.Entry{}, false, nil
	}
	e, why, err := resetEntry(snap, x)
	if err != nil {
		return ledger.Entry{}, false, fmt.Errorf("the reset by %s does not read back: %w", x.Author, err)
	}
	r.Head, r.Slice, r.Note = snap.Head(), e.Slice, why
	return e, why == "", nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// observation is a head's evidence as the engine's observation: every
// test of an artifact; the tests a log names (partial: the others are
// unknown); for a head CI passed with nothing read, no failing test
// (partial too). A failed head with nothing read is what the Action reads
// of a run that left no result file (evaluate.NothingRead: results
// missing, counted once an earlier push had results) in a pull request
// whose runs left results (results: an artifact or a log read at some
// push); in one that left none replay can read, its failure is the
// evidence floor (breaker.InfraConclusion): the Action would have read
// result files there, which replay cannot find. A cancelled or skipped
// run is not counted: the breaker's step in it did not run.
func observation(h headRead, results bool) (testresult.Report, bool) {
	switch {
	case h.Evidence == EvidenceArtifact:
		return testresult.Report{Tests: toTests(h.Tests)}, false
	case h.Evidence == EvidenceLog:
		return testresult.Report{Tests: toTests(h.Tests)}, true
	case failed(h.Conclusion) && results:
		return evaluate.NothingRead("", testresult.Report{InfraKind: breaker.InfraNoResults,
			Infra: "CI concluded " + h.Conclusion + " and its run left no result file or log line naming a failing test"}), true
	case failed(h.Conclusion):
		return testresult.Report{InfraKind: breaker.InfraConclusion,
			Infra: "CI concluded " + h.Conclusion + " and left no result file or log line naming a failing test"}, true
	case h.Conclusion == "success":
		return testresult.Report{}, true
	}
	return testresult.Report{InfraKind: breaker.InfraCancelled, Infra: "CI concluded " + h.Conclusion}, true
}

// leftResults says some run of the pull request left results replay read
// (an artifact, or a log naming tests).
func leftResults(p pullRead) bool {
	return slices.ContainsFunc(p.Heads, func(h headRead) bool { return h.Evidence == EvidenceArtifact || h.Evidence == EvidenceLog })
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
