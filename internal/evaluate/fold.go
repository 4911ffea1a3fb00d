package evaluate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// A run can start from the carry of the line's newest entry (Ledger.From)
// instead of every entry: Ledger.Entries are then the entries after the
// carry, From the newest of them (docs/ledger.md "The folded state"). The
// decision is the one the whole line gives (breaker.Carry) when the carry
// was folded under the same rules: the same no-progress limit, the same
// base failures, this run's tests all known at the newest push with
// results (so a test failing for the first time ran before), and the
// engine says the decision is one a carry can hold (Decision.Carry: the
// greenlight rules, no declared attempt, no reset). FoldRefused says when
// it is not; the caller then reads the whole line and decides again.

// foldFrom is what Load knows of a read that starts from a carry.
type foldFrom struct {
	from ledger.Entry
	why  string // why the carry cannot stand for the line; "" when it can
}

// baseDigest is the Digest of the base's failing tests.
func baseDigest(base map[string]bool) string {
	names := make([]string, 0, len(base))
	for n := range base {
		names = append(names, n)
	}
	return ledger.Digest(names)
}

// startFrom is the engine's carry for a read that starts from from, and
// why it cannot stand ("" when it can), before the decision.
func startFrom(from ledger.Entry, edge string, window []ledger.Entry, in breaker.Input, run breaker.Push, names string) (*breaker.Carry, string) {
	w := from.Carry
	switch {
	case w == nil:
		return nil, "the newest entry keeps no carry"
	case w.NoProgressLimit() != in.Policy.Normalized().NoProgressLimit:
		return nil, fmt.Sprintf("its carry was folded with a no-progress limit of %d, this run's is %d", w.NoProgressLimit(), in.Policy.Normalized().NoProgressLimit)
	case w.Base != baseDigest(in.BaseFailing):
		return nil, "the base's failing tests changed since its carry was folded"
	}
	if run.Infra == "" {
		var newest *ledger.Entry
		for i := range window {
			if e := &window[i]; e.Infra == nil && (newest == nil || newest.Seq < e.Seq) {
				newest = e
			}
		}
		switch {
		case newest == nil:
			return nil, "no entry after the carry had results to compare this run's tests with"
		case newest.Names == "" || newest.Names != names:
			return nil, "this run's tests are not the ones the newest push with results ran (a test may be new)"
		}
	}
	c := from.Fold(edge)
	ledger.ExpandReset(c, in.Commits)
	return c, ""
}

// FoldRefused says why the decision of a snapshot loaded from a carry
// cannot stand for the whole line ("" when it can, or when the snapshot
// read the whole line).
func (s Snapshot) FoldRefused(d breaker.Decision) string {
	f := s.fold
	switch {
	case f == nil:
		return ""
	case f.why != "":
		return f.why
	case d.Carry == nil:
		return "the decision is not one a carry holds (another policy, a declared attempt, a reset or a record that does not verify)"
	case d.Slice != f.from.Slice || f.from.Carry.Others:
		return "the line of work has pushes of another slice than " + d.Slice
	}
	return ""
}

// Folded says the snapshot was loaded from a carry.
func (s Snapshot) Folded() bool { return s.fold != nil }

// foldHint is the carry this run's entry keeps, and the tests failing at
// it for the first time that ran before, given what the entry's tests
// already name (history) and the line's entries read.
func (s Snapshot) foldHint(d breaker.Decision, history map[string]bool, line []ledger.Entry) (*ledger.FoldHint, []string) {
	var first []string
	for full, pt := range s.run.Tests {
		if pt.Status.Failed() && !history[full] && !s.input.BaseFailing[full] {
			first = append(first, full)
		}
	}
	sort.Strings(first)
	ran := first[:0:0]
	if s.fold != nil {
		ran = first // the names matched the newest push with results: all ran before
	} else {
		known := knownSets(line)
		for _, n := range first {
			if slices.ContainsFunc(known, func(k knownSet) bool { return k.has(n) }) {
				ran = append(ran, n)
			}
		}
	}
	if d.Carry == nil {
		return nil, ran
	}
	if s.namedPending() {
		// The push's before has no entry yet (its run may still write
		// one): no carry holds it, so the next run reads the whole line.
		return nil, ran
	}
	total := d.Earlier.Pushes + len(d.Pushes)
	var read int64
	for _, e := range s.ledger.Entries {
		read = max(read, e.CheckRunID)
	}
	if s.fold != nil && s.fold.from.Carry != nil {
		read = max(read, s.fold.from.Carry.Read)
	}
	return &ledger.FoldHint{Carry: d.Carry, After: total - d.Carry.Pushes, Limit: d.Limits.NoProgress, Base: baseDigest(s.input.BaseFailing), Read: read}, ran
}

// namedPending says this run's entry names the push's before, which has
// no entry yet (Snapshot.PrevHeads).
func (s Snapshot) namedPending() bool {
	b := s.meta.Before
	if b == "" || breaker.SameSHA(b, s.run.Head) {
		return false
	}
	for _, e := range s.ledger.Entries {
		if breaker.SameSHA(e.Head, b) {
			return false
		}
	}
	for _, c := range s.input.Commits {
		if breaker.SameSHA(c.SHA, b) {
			return true
		}
	}
	return false
}

// carryRows are the tests the read's carry holds, as rows of its entry
// (their suites and names), so the entry this run writes asks about them.
func (s Snapshot) carryRows() []ledger.Test {
	if s.fold == nil || s.fold.from.Carry == nil {
		return nil
	}
	var out []ledger.Test
	for i, t := range s.fold.from.Tests {
		if i < len(s.fold.from.Carry.Tests) && s.fold.from.Carry.Tests[i] != '-' {
			out = append(out, t)
		}
	}
	return out
}

// foldSince is the oldest earlier head in this head's history as the
// newest entry named it: a read from a carry holds only the newest
// entries.
func (s Snapshot) foldSince(since string, history map[string]bool) string {
	if s.fold != nil && s.fold.from.Since != "" && history[strings.ToLower(s.fold.from.Since)] {
		return s.fold.from.Since
	}
	return since
}
