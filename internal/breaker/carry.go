package breaker

import (
	"maps"
	"sort"
)

// Window is how many of a slice's newest observed pushes a run judges
// afresh (DESIGN §2): a flip found at a push takes back the progress of the
// pushes up to Window-1 before it, and the report and the diagnostic speak
// of these pushes. The pushes before them are folded once into a Carry and
// their judgments are final; the Carry counts them.
//
// So a run needs the newest Window-1 entries of the line and the Carry the
// newest of them keeps, not every entry (issue 29: a run's cost set by the
// newest push, not the pull request's length). The whole line folded from
// its start gives the same decision: both go through foldPushes.
const Window = 16

// FlipState is a test's place in the flip machine: it failed, it passed
// after failing, it failed again (it flips: sticky).
type FlipState uint8

// The flip machine's states.
const (
	FlipNone FlipState = iota
	FlipFailed
	FlipPassedAfter
	FlipFlips
)

// CarryTest is what the fold keeps of one test that failed at a folded
// push.
type CarryTest struct {
	Failed bool // it failed (or vanished after failing) at a folded push
	// Passed says it passed at a folded push, or was known (it ran) before
	// its first failure: its pass after failing is not progress.
	Passed bool
	Flip   FlipState
	// PassedAfterFail: it passed after failing and was not flaky yet;
	// Flaky: it failed again after that (named, never progress).
	PassedAfterFail bool
	Flaky           bool
}

// Carry is the fold of a slice's observed pushes before the window: what
// judging the pushes after them needs, and what the report counts of them.
// The zero Carry (MinFailing 0 aside: NewCarry) folds nothing.
type Carry struct {
	// Slice is the slice whose pushes these are; Others says the line
	// held pushes a run decided for another slice (which the fold leaves
	// out and the line's OPEN slice reads: such a line is read whole).
	Slice  string
	Others bool
	Pushes int // pushes folded
	Prior  int // of them, observed up to the reset record
	// Reset is the head of the newest folded push that records a verified
	// reset of the slice ("" when none): where its attempts split; ResetBy
	// who asked for it and in which comment (what a run without a ledger
	// key reads back).
	Reset   string
	ResetBy ResetBy
	Failed  int    // of them, with results, after the reset, failed
	Last    string // the newest folded push's head
	// Edge is the newest commit a folded push brought (of the heads of the
	// folded pushes, the one latest in the branch's history when folded):
	// the commits at or before it are the carry's, the window's pushes
	// bring the ones after it. "" when no folded head was on the branch.
	Edge string
	// Streak is the failed pushes in a row at the end; ResultsStreak those
	// of them whose results were missing.
	Streak, ResultsStreak int
	Extra                 int  // failed pushes counted by evidence alone
	NoProgress            bool // the streak reached the limit (sticky)
	NoResults             bool // ... and it was made of heads without results
	HadResults            bool // a folded push had results
	MinFailing            int  // the fewest steady failing tests at a folded push with results; -1 before any
	// Recorded is the earliest OPEN verdict a folded ledger push after the
	// reset keeps (its state and reason), Floor the highest count one kept.
	Recorded *Verdict
	Floor    int
	// Verdicts says a folded ledger push of a named slice kept a verdict;
	// Open that the newest of them was a trip (what keeps the slice OPEN
	// for the line of work: OpenSlice).
	Verdicts, Open bool
	// Tests are the tests that failed at a folded push (the base's aside).
	Tests map[string]*CarryTest
	// Attempts is the fold of the declared attempts the folded pushes
	// brought (the commits up to Edge).
	Attempts AttemptFold
	// BMAD is the bmad policy's fold of the folded sessions, PRP the prp
	// policy's of the folded iterations, Liza the liza policy's of their
	// failures; nil under another policy.
	BMAD *BMADFold
	PRP  *PRPFold
	Liza *LizaFold
}

// ResetBy is who asked for a folded reset, and in which comment.
type ResetBy struct {
	Author    string
	CommentID int64
}

// AttemptFold is what a carry keeps of the declared attempts of its
// pushes: each was judged once its push left the window (DESIGN §1, as
// pushes are), and only the counts it left are kept.
type AttemptFold struct {
	Counted, Prior int // attempts folded after the reset, and at or before it
	// Failed counts the folded attempts after the reset that failed;
	// PerTest the failed attempts of each test since it last passed (the
	// ones above 0).
	Failed  int
	PerTest map[string]int
	// Trip is the first trip the attempts made (TripPerTest or
	// TripSliceCeiling, sticky), Test and Count the test and its count for
	// a per-test trip.
	Trip  TripReason
	Test  string
	Count int
}

// tally is the attempts' fold as a starting point.
func (a AttemptFold) tally() tally {
	t := tally{perTest: make(map[string]int, len(a.PerTest)), total: a.Failed, reason: a.Trip, test: a.Test, count: a.Count}
	for n, c := range a.PerTest {
		t.perTest[n] = c
	}
	return t
}

// clone copies a deeply.
func (a AttemptFold) clone() AttemptFold {
	out := a
	out.PerTest = maps.Clone(a.PerTest)
	return out
}

// NewCarry is the fold of no push.
func NewCarry() *Carry { return &Carry{MinFailing: -1, Tests: map[string]*CarryTest{}} }

// Clone copies c deeply.
func (c *Carry) Clone() *Carry {
	out := *c
	out.Tests = make(map[string]*CarryTest, len(c.Tests))
	for n, t := range c.Tests {
		cp := *t
		out.Tests[n] = &cp
	}
	if c.Recorded != nil {
		v := *c.Recorded
		out.Recorded = &v
	}
	out.Attempts = c.Attempts.clone()
	out.BMAD = c.BMAD.clone()
	out.PRP = c.PRP.clone()
	out.Liza = c.Liza.clone()
	return &out
}

// asPrior is c with every push it folded made prior: a reset recorded
// after them ends them (what counts starts again; what progress means
// does not).
func (c *Carry) asPrior() *Carry {
	out := c.Clone()
	out.Prior, out.Failed = out.Pushes, 0
	out.Streak, out.ResultsStreak, out.Extra, out.Floor = 0, 0, 0, 0
	out.NoProgress, out.NoResults, out.Recorded = false, false, nil
	a := &out.Attempts
	a.Prior, a.Counted = a.Prior+a.Counted, 0
	a.Failed, a.PerTest, a.Trip, a.Test, a.Count = 0, nil, "", "", 0
	if out.BMAD != nil {
		out.BMAD = newBMADFold(out.BMAD.Threshold) // the sessions after the reset start again
	}
	if out.PRP != nil {
		out.PRP = newPRPFold(out.PRP.Phase) // and the iterations
	}
	if out.Liza != nil {
		out.Liza = newLizaFold() // and the failures
	}
	return out
}

// kept is c as a ledger entry keeps it: only the tests that failed (one a
// fold knew only as passing is known again, when it first fails, from
// Push.KnownBefore).
func (c *Carry) kept() *Carry {
	out := c.Clone()
	maps.DeleteFunc(out.Tests, func(_ string, t *CarryTest) bool { return !t.Failed })
	return out
}

// FlakyNames are the tests that failed, passed and failed again at folded
// pushes, sorted.
func (c *Carry) FlakyNames() []string {
	var out []string
	for n, t := range c.Tests {
		if t.Flaky {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// pushTally is the fold of the observed pushes of a slice: the carry at
// the end, the window's summaries, and the carry a ledger entry of this
// run keeps (the fold of every push but the newest Window-1).
type pushTally struct {
	*Carry
	summaries []PushSummary
	flaky     []string
	next      *Carry
}

// foldPushes folds the slice's pushes in order (DESIGN §2) after carry
// (nil: none before them). The first prior pushes (observed up to the
// reset) are summarised but neither counted nor part of the streak; they
// are history for what progress means. declared(i) says whether push i's
// commits declare attempts, failedAttempt(i) whether one of them counted
// as failed. Only the newest Window pushes are summarised; the ones before
// are folded into the carry.
//
// A push makes progress only when CI shows something it had not shown
// before: a test passing that failed at every earlier push where it ran,
// or fewer failing tests than at every earlier push. Oscillating between
// failing sets, or a flaky test passing again, is not progress; a push
// with failing tests and no progress is failed. A test that fails, passes
// and fails again flips: its passes are no progress and it is left out of
// "fewer" at every push up to Window-1 before the push that showed the flip
// (so a pass taken as progress is judged again once the flip shows).
func foldPushes(carry *Carry, ps []Push, prior int, limit int, declared func(i int) bool, failedAttempt func(i int) bool, base map[string]bool) pushTally {
	return foldEach(carry, ps, prior, limit, declared, failedAttempt, base, nil)
}

// foldEach is foldPushes, calling each (when not nil) with every push's
// summary as judged, the folded ones' included: the progress table's view.
func foldEach(carry *Carry, ps []Push, prior int, limit int, declared func(i int) bool, failedAttempt func(i int) bool, base map[string]bool, each func(PushSummary)) pushTally {
	c := NewCarry()
	if carry != nil {
		c = carry.Clone()
	}
	n := len(ps)
	flipAt := flipPoints(c, ps, base)
	split, keep := max(0, n-Window), max(0, n-Window+1)
	t := pushTally{Carry: c}
	if keep == 0 {
		t.next = c.kept()
	}
	for i, p := range ps {
		judge := min(i+Window-1, n-1)
		flip := func(name string) bool {
			at, ok := flipAt[name]
			return ok && at <= judge
		}
		s := PushSummary{Head: p.Head, ObservedAt: p.ObservedAt, Source: p.Source, Infra: p.Infra, Prior: i < prior, Declared: declared(i)}
		c.step(p, &s, flip, base, failedAttempt(i), i == n-1, limit)
		if each != nil {
			each(s)
		}
		if i >= split {
			t.summaries = append(t.summaries, s)
		}
		if i+1 == keep {
			t.next = c.kept()
		}
	}
	t.flaky = c.FlakyNames()
	return t
}

// flipPoints says, for each test that flips, at which push (an index of
// ps) it first flipped: -1 for one the carry knows flips already. It runs
// the flip machine over ps from the carry's states, which the fold moves
// on as it goes.
func flipPoints(c *Carry, ps []Push, base map[string]bool) map[string]int {
	state := map[string]FlipState{}
	at := map[string]int{}
	for name, t := range c.Tests {
		state[name] = t.Flip
		if t.Flip == FlipFlips {
			at[name] = -1
		}
	}
	for i, p := range ps {
		if p.Infra != "" {
			continue
		}
		for name, pt := range p.Tests {
			if next, ok := flipNext(state[name], pt.Status, base[name]); ok {
				state[name] = next
				if next == FlipFlips {
					at[name] = i
				}
			}
		}
	}
	return at
}

// flipNext is the flip machine's move on one status: ok false when it
// stays.
func flipNext(st FlipState, s TestStatus, isBase bool) (FlipState, bool) {
	switch {
	case isBase || st == FlipFlips:
	case s.Failed() && st == FlipPassedAfter:
		return FlipFlips, true
	case s.Failed() && st != FlipFailed:
		return FlipFailed, true
	case s == StatusPass && st == FlipFailed:
		return FlipPassedAfter, true
	}
	return st, false
}

// step folds one push: a push whose tests did not run (untested), the
// failing set with the base's and the vanished tests (failingAt), progress
// (progressAt), the tests' history (remember), flaky tests (flakyAt), the
// streak (count), the verdict the ledger kept (record). last says p is the
// newest push: what it passed is remembered by nothing after it.
func (c *Carry) step(p Push, s *PushSummary, flip func(string) bool, base map[string]bool, failedAttempt, last bool, limit int) {
	for _, name := range p.KnownBefore {
		if t := c.Tests[name]; t == nil {
			c.Tests[name] = &CarryTest{Passed: true}
		} else if !t.Failed {
			t.Passed = true
		}
	}
	if p.Infra != "" {
		c.untested(p, s, limit)
	} else {
		c.HadResults = true
		c.ResultsStreak = 0
		failing, steady := c.failingAt(p, s, flip, base)
		c.progressAt(p, s, steady, flip)
		s.Failed = len(failing) > 0 && !s.Progress
		s.Failing = sortedKeys(failing)
		c.remember(p, s.Vanished, base, last)
		c.flakyAt(failing)
		if c.MinFailing < 0 || steady < c.MinFailing {
			c.MinFailing = steady
		}
		c.count(s, failedAttempt, limit)
		if s.Failed && !s.Prior {
			c.Failed++
		}
	}
	if !s.Prior && p.Infra == "" {
		if c.BMAD != nil {
			c.BMAD.session(p)
		}
		if c.PRP != nil {
			c.PRP.iterate(p, nil)
		}
		if c.Liza != nil {
			c.Liza.add(p)
		}
	}
	c.record(p, s.Prior)
	if p.Reset != nil && p.Slice != "" {
		c.Reset = p.Head
		c.ResetBy = ResetBy{Author: p.Reset.Author, CommentID: p.Reset.CommentID}
	}
	c.Pushes++
	if s.Prior {
		c.Prior++
	}
	c.Last = p.Head
}

// untested folds a push whose tests did not run. Missing results after
// pushes that had them, results the agent's own tested run withheld
// (cancelled or skipped, nothing uploaded) from the first push on, and a
// head that does not build, are failed pushes: never a way to stop
// counting. A cancelled run outside the agent's code is not counted.
func (c *Carry) untested(p Push, s *PushSummary, limit int) {
	counted := p.InfraKind == InfraBuild || p.InfraKind == InfraConclusion || p.InfraKind == InfraWithheld ||
		(p.InfraKind == InfraNoResults && c.HadResults)
	if !counted || s.Prior {
		return
	}
	s.Failed, s.Counted = true, true
	c.Extra++
	c.Streak++
	if p.InfraKind == InfraNoResults || p.InfraKind == InfraWithheld {
		c.ResultsStreak++
	} else {
		c.ResultsStreak = 0
	}
	if c.Streak >= limit {
		c.NoProgress = true
		c.NoResults = c.NoResults || c.ResultsStreak >= limit
	}
}

// failingAt is the push's failing set: its failing tests that do not fail
// on the base (those are noted as the base's), and the tests that failed
// before and are now absent or skipped (a test that vanishes has not
// passed). steady counts the failing tests that do not flip: what "fewer
// failing" compares.
func (c *Carry) failingAt(p Push, s *PushSummary, flip func(string) bool, base map[string]bool) (failing map[string]bool, steady int) {
	failing = map[string]bool{}
	for name, pt := range p.Tests {
		switch {
		case pt.Status.Failed() && base[name]:
			s.BaseFailing = append(s.BaseFailing, name)
		case pt.Status.Failed():
			failing[name] = true
		}
	}
	sort.Strings(s.BaseFailing)
	for name, t := range c.Tests {
		if !t.Failed || failing[name] {
			continue
		}
		pt, ok := p.Tests[name]
		switch {
		case ok && (pt.Status == StatusSkip || pt.Status == StatusAbsent), !ok && p.Complete:
			failing[name] = true
			s.Vanished = append(s.Vanished, name)
		}
	}
	sort.Strings(s.Vanished)
	for name := range failing {
		if !flip(name) {
			steady++
		}
	}
	return failing, steady
}

// progressAt says whether the push made progress: a test passes that
// failed at every earlier push where it ran (and does not flip), or fewer
// steady tests fail than at every earlier push.
func (c *Carry) progressAt(p Push, s *PushSummary, steady int, flip func(string) bool) {
	for name, pt := range p.Tests {
		if pt.Status != StatusPass {
			continue
		}
		if t := c.Tests[name]; t != nil && t.Failed && !t.Passed && !flip(name) {
			s.Progress = true
			return
		}
	}
	if c.MinFailing >= 0 && steady < c.MinFailing {
		s.Progress = true
	}
}

// remember adds the push to each test's history: where it failed (a
// vanished test has not passed), where it passed, which passed after
// failing, and the flip machine. The newest push's passes of tests that
// never failed are remembered by nothing after it: skipped (a run's push
// holds every test of the suite).
func (c *Carry) remember(p Push, vanished []string, base map[string]bool, last bool) {
	for name, pt := range p.Tests {
		if base[name] {
			continue // the base's failure: no history for progress
		}
		t := c.Tests[name]
		if t == nil {
			if !pt.Status.Failed() && (last || pt.Status != StatusPass) {
				continue
			}
			t = &CarryTest{}
			c.Tests[name] = t
		}
		switch {
		case pt.Status.Failed():
			t.Failed = true
		case pt.Status == StatusPass:
			if t.Failed && !t.Flaky {
				t.PassedAfterFail = true
			}
			t.Passed = true
		}
		if next, ok := flipNext(t.Flip, pt.Status, false); ok {
			t.Flip = next
		}
	}
	for _, name := range vanished {
		if t := c.Tests[name]; t != nil {
			t.Failed = true
		}
	}
}

// flakyAt marks the tests that failed, passed and fail again now.
func (c *Carry) flakyAt(failing map[string]bool) {
	for name := range failing {
		if t := c.Tests[name]; t != nil && t.PassedAfterFail {
			t.Flaky = true
		}
	}
}

// count adds a judged push to the streak of failed pushes: a failed push
// no failed attempt accounts for is counted by evidence alone, and the
// streak at the limit trips (no_progress, sticky).
func (c *Carry) count(s *PushSummary, failedAttempt bool, limit int) {
	if s.Prior {
		return
	}
	if s.Failed {
		c.Streak++
		if !failedAttempt {
			s.Counted = true
			c.Extra++
		}
	} else {
		c.Streak = 0
	}
	if c.Streak >= limit {
		c.NoProgress = true
	}
}

// record keeps what a ledger push's verdict says: the first OPEN one (the
// reason the slice tripped for) and the highest count, whether or not its
// tests ran (a no_results trip is recorded at a push without results); and
// whether the newest verdict of a named slice was a trip (OpenSlice).
func (c *Carry) record(p Push, prior bool) {
	v := p.Verdict
	if v == nil {
		return
	}
	// An inherited OPEN (TripAgentOpen) lasts while the other line is
	// OPEN: it is decided again at every run, never kept.
	trip := v.State == StateOpen && v.TripReason != TripManual && v.TripReason != TripNone && v.TripReason != TripAgentOpen
	if p.Source == PushFromLedger && p.Slice != "" {
		c.Verdicts, c.Open = true, trip
	}
	if prior {
		return
	}
	if trip && c.Recorded == nil {
		// Its reason is what keeps the slice OPEN; its count is the floor's.
		c.Recorded = &Verdict{State: v.State, TripReason: v.TripReason}
	}
	c.Floor = max(c.Floor, v.TotalFailed)
}
