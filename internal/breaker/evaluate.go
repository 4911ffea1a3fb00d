package breaker

import "strings"

// evaluator carries the input, the normalised policy and the notes of one
// evaluation.
type evaluator struct {
	in     Input
	p      Policy
	notes  []string
	pushes []Push // the slice's observed pushes, deduplicated, oldest first (after in.Carry's)
	prior  int    // how many of pushes were observed up to the reset record
	// window are the newest Window of pushes, the ones the decision
	// summarises (Decision.Pushes, aligned).
	window []Push
	// front[i] is the newest commit (an index of in.Commits) the pushes up
	// to i brought, -1 none, and start the carry's edge's index, -1 none or
	// not on the branch (pushRanges, placeAttempts).
	front []int
	start int
}

// Evaluate folds the branch's commits and this run's observation into the
// verdict for one slice (DESIGN §1–§2). It is pure, never fails and never
// panics: whatever it could not use is said in Decision.Notes. Zero fields
// of in.Policy take DefaultPolicy's values.
func Evaluate(in Input) Decision {
	e := &evaluator{in: in, p: in.Policy.normalized()}
	e.observationNotes()
	e.nearMissNotes()
	cands := collect(in, e.p)
	slice, source := e.judgedSlice(cands)
	before, after, resetPush := slicePushes(in.Pushes, slice)
	e.pushes, e.prior = append(before, after...), len(before)
	resetPush, carryReset := e.carryReset(resetPush, slice) // carryReset: the reset in effect is one the carry folded
	atts := track(in, e.p, cands, slice)
	placed := e.placeAttempts(atts)
	e.resolveOutcomes(atts)
	lock, info := scopeLock(in.Scope, slice)
	e.checkScope(atts, lock)
	cut, resetSHA, note := resetPoint(in, resetPush, before, slice)
	// A reset placed from a carry, which does not hold the heads of the
	// pushes before it: only where the branch still has its head (or
	// forked from it).
	carryPlaced := in.Carry == nil || note == ""
	if note != "" {
		e.notes = append(e.notes, note)
	}
	// A reset after commits the carry's attempts hold: those the carry
	// counted are counted again from here (a run that reads the whole line
	// decides).
	resetInCarry := in.Carry != nil && resetPush != nil && !carryReset && cut < e.start
	prior, current, counted := splitAtReset(atts, cut, e.in.Carry)
	d := Decision{
		Policy:        e.p.Name,
		TrailerPrefix: e.p.TrailerPrefix,
		Slice:         slice,
		SliceSource:   source,
		Head:          e.head(),
		HeadInfra:     in.Observation.Infra,
		HeadInfraKind: in.Observation.InfraKind,
		Limits:        Limits{PerTest: e.p.PerTestLimit, Slice: e.p.SliceLimit, NoProgress: e.p.NoProgressLimit},
		Ledger:        in.Ledger,
		Base:          in.Base,
		Checkpoint:    e.checkpoint(slice, atts),
		ResetSHA:      resetSHA,
		Scope:         info,
		Prior:         attemptsOf(prior),
		Attempts:      attemptsOf(current),
	}
	start := newTally()
	if e.in.Carry != nil {
		start = e.in.Carry.Attempts.tally()
	}
	keep := max(0, len(e.pushes)-Window+1)
	t, kept := fold(start, counted, d.Limits, func(a tracked) bool { return a.push >= 0 && a.push < keep })
	pt := e.foldPushes(atts)
	e.window = e.pushes[len(e.pushes)-len(pt.summaries):]
	d.Pushes = pt.summaries
	d.FailedInARow = pt.Streak
	d.Earlier = Earlier{Pushes: pt.Pushes - len(pt.summaries), Failed: pt.Failed - windowFailed(pt.summaries)}
	d.Earlier.Attempts, d.Earlier.FailedAttempts = e.earlierAttempts(counted)
	d.Carry = pt.next
	d.Carry.Slice, d.Carry.Others = slice, otherSlices(in, slice)
	e.carryAttempts(d.Carry, kept, atts, keep)
	if !e.carryHolds(placed && !resetInCarry && carryPlaced && !(carryReset && reobserved(in.Pushes, resetPush.Head))) {
		d.Carry = nil
	}
	if n := len(d.Pushes); n > 0 {
		last := d.Pushes[n-1]
		d.HeadPasses = last.Source == PushFromRun && last.Infra == "" && len(last.Failing) == 0 && headRan(in)
	}
	d.BaseUnobserved = e.baseNotes(d.Pushes)
	if len(pt.flaky) > 0 {
		e.notef("flaky across pushes (failed, passed, then failed again): %s; a pass of a flaky test is not progress", strings.Join(pt.flaky, ", "))
	}
	t = e.tripReason(t, pt, d.Limits, resetPush != nil)
	e.verdict(&d, t)
	d.Tests = summarize(current, t, in.Observation)
	d.Violations, d.Misreports = findings(current)
	nCurrent := len(counted)
	if e.in.Carry != nil {
		nCurrent += e.in.Carry.Attempts.Counted
	}
	e.sliceNotes(d, len(atts), nCurrent)
	if d.Tripped || in.Force {
		d.Diagnostics = e.diagnose(d, current, t)
	}
	e.applyPolicy(&d)
	if lead := d.LeadTest(); lead != "" {
		d.LeadError = e.ciError(lead)
	}
	d.Notes = e.notes
	return d
}

// judgedSlice is the slice the verdict is for (verdictSlice), saying so
// when an earlier OPEN slice wins over the one the newest attempt or the
// branch names.
func (e *evaluator) judgedSlice(cands []candidate) (string, string) {
	slice, source := verdictSlice(e.in, cands)
	if source == SliceFromOpen {
		if named, _ := verdictSlice(Input{Slice: "", Branch: e.in.Branch}, cands); named != slice && named != "" {
			e.notef("slice %s was left OPEN at an earlier push and no verified reset has closed it: the line of work is judged on it, not on %s, which the newest attempt or the branch names", slice, named)
		}
	}
	return slice, source
}

// carryReset is the reset in effect with a carry: a reset after every push
// the carry folded ends them all (the carry becomes prior), else the reset
// the carry folded, if any (folded true).
func (e *evaluator) carryReset(resetPush *Push, slice string) (_ *Push, folded bool) {
	c := e.in.Carry
	switch {
	case c == nil:
	case resetPush != nil:
		e.in.Carry = c.asPrior()
	case c.Reset != "":
		return &Push{Head: c.Reset, Slice: slice}, true
	}
	return resetPush, false
}

// carryHolds says the next run may start from this decision's carry. A
// carry holds the greenlight fold of pushes and attempts, and bmad's of
// sessions: another policy's state (or bmad's under another threshold),
// attempts the carry's edge no longer places, a reset among the attempts a
// carry holds, a folded reset whose head the branch no longer has (placed
// by the pushes before it) or that a push observed again (which joins the
// pushes before it) are read from the whole line (placed false), and so is
// a ledger with entries that did not verify.
func (e *evaluator) carryHolds(placed bool) bool {
	return e.carryHoldsPolicy() && placed && len(e.in.Ledger.Tampered) == 0 && len(e.in.Ledger.SetAside) == 0
}

// tripReason completes the fold's tally with the pushes' counts and the
// reasons only the whole line knows: missing results, no progress, the
// slice ceiling, an OPEN verdict recorded earlier (it stays OPEN for the
// reason it tripped for), the same agent OPEN elsewhere (unless this line
// was reset), and a rewritten ledger.
func (e *evaluator) tripReason(t tally, pt pushTally, limits Limits, reset bool) tally {
	in := e.in
	t.total = max(t.total+pt.Extra, pt.Floor)
	if t.reason == TripNone {
		switch {
		case pt.NoResults:
			t.reason = TripNoResults
		case pt.NoProgress:
			t.reason = TripNoProgress
		case t.total >= limits.Slice:
			t.reason = TripSliceCeiling
		}
	}
	if pt.Recorded != nil && t.reason != pt.Recorded.TripReason {
		// What it judged may have been force-pushed away; its verdict was
		// not.
		test := ""
		if pt.Recorded.TripReason == TripPerTest {
			test = t.test
		}
		if t.reason == TripNone {
			e.notef("the slice was OPEN (%s) at an earlier observed push; it stays OPEN until a verified reset", pt.Recorded.TripReason)
		}
		t.reason, t.test = pt.Recorded.TripReason, test
	}
	if len(in.Ledger.SetAside) > 0 {
		e.notef("check runs of the breaker's name that did not verify, written before the verified reset, are set aside by it: %s",
			strings.Join(shortAll(in.Ledger.SetAside), ", "))
	}
	if o, why, ok := elsewhere(in); ok && t.reason == TripNone && !reset {
		t.reason, t.test = TripAgentOpen, ""
		e.notef("the same agent's %s is OPEN (%s) and %s: this line of work starts OPEN until a maintainer resets it, or closes %s",
			o.Where, o.Reason, why, o.Where)
	}
	if len(in.Ledger.Tampered) > 0 {
		t.reason, t.test = TripLedgerTampered, ""
		e.notef("ledger entries that do not verify with the ledger key (someone rewrote CI's evidence): %s",
			strings.Join(shortAll(in.Ledger.Tampered), ", "))
	}
	return t
}

// verdict sets the state and trip fields from the fold; Force without a
// trip is the manual pull cord and leaves the slice CLOSED.
func (e *evaluator) verdict(d *Decision, t tally) {
	d.TotalFailed = t.total
	d.State = StateClosed
	switch {
	case t.reason != TripNone:
		d.State, d.Tripped, d.TripReason, d.TrippedTest, d.TripCount = StateOpen, true, t.reason, t.test, t.count
	case e.in.Force:
		d.TripReason = TripManual
	}
}

// head is the commit this run is about: the observed head, else the
// newest commit.
func (e *evaluator) head() string {
	if e.in.Observation.Head != "" {
		return e.in.Observation.Head
	}
	if n := len(e.in.Commits); n > 0 {
		return e.in.Commits[n-1].SHA
	}
	return ""
}

// checkpoint is the slice's rollback point: the parent of its first
// attempt, counting attempts before any reset.
func (e *evaluator) checkpoint(slice string, atts []tracked) Checkpoint {
	cp := Checkpoint{Tag: RefName(e.p, RefCheckpoint, slice)}
	switch {
	case len(atts) > 0:
		cp.SHA = atts[0].commit.Parent
	case len(e.pushes) > 0 && len(e.in.Commits) > 0:
		// No declared attempt: the branch's fork point is where every
		// pushed fix started from.
		cp.SHA = e.in.Commits[0].Parent
	}
	if sha, ok := e.in.Refs.Checkpoints[slice]; ok && sha != "" {
		cp.Exists, cp.ExistingSHA = true, sha
	}
	if err := CheckSlice(slice); err != nil && slice != "" {
		e.notef("%v; it cannot name a git tag, so there is no checkpoint tag and no reset", err)
	}
	return cp
}

// attemptsOf strips the evaluation bookkeeping from tracked attempts.
func attemptsOf(atts []tracked) []Attempt {
	var out []Attempt
	for _, a := range atts {
		out = append(out, a.Attempt)
	}
	return out
}

// findings lists the scope findings and misreports of the counted attempts.
func findings(atts []tracked) (scope []ScopeFinding, mis []Misreport) {
	for _, a := range atts {
		scope = append(scope, a.findings...)
		if a.Misreported {
			mis = append(mis, Misreport{SHA: a.SHA, Test: a.Test, Claimed: a.Claimed, Observed: a.observed})
		}
	}
	return scope, mis
}

// baseNotes says which failing tests are the base's (they fail on the base
// commit too: shown, not counted), or, when the base was not observed and
// some push failed, that such tests count as the pull request's; it
// reports the latter.
func (e *evaluator) baseNotes(ps []PushSummary) (unobserved bool) {
	base := map[string]bool{}
	failed := false
	for _, p := range ps {
		for _, n := range p.BaseFailing {
			base[n] = true
		}
		// Said where the breaker keeps a ledger (the Action), whose runs on
		// the default branch could have observed the base.
		failed = failed || (p.Failed && p.Source == PushFromLedger)
	}
	switch {
	case len(base) > 0:
		e.notef("fails on the base too, so the base's and not counted: %s", strings.Join(sortedKeys(base), ", "))
	case !e.in.BaseObserved && failed:
		e.notef("the base commit was not observed by the breaker, so a test that fails on the base too counts as this branch's; " +
			"run the breaker on pushes to the default branch to record what fails there")
		return true
	}
	return false
}

// reobserved says a push observed head.
func reobserved(ps []Push, head string) bool {
	for _, p := range ps {
		if SameSHA(p.Head, head) {
			return true
		}
	}
	return false
}

// otherSlices says the line holds a push decided for a slice other than
// slice (or the carry says it did).
func otherSlices(in Input, slice string) bool {
	if in.Carry != nil && (in.Carry.Others || in.Carry.Slice != slice) {
		return true
	}
	for _, p := range in.Pushes {
		if p.Slice != "" && p.Slice != slice {
			return true
		}
	}
	return false
}

// windowFailed counts the summarised pushes with results, after the
// reset, that failed (what Carry.Failed counts).
func windowFailed(ps []PushSummary) int {
	n := 0
	for _, p := range ps {
		if p.Failed && !p.Prior && p.Infra == "" {
			n++
		}
	}
	return n
}

// headRan reports whether this run's results hold at least one test.
func headRan(in Input) bool {
	for _, p := range in.Pushes {
		if p.Source == PushFromRun && p.Infra == "" && len(p.Tests) > 0 {
			return true
		}
	}
	return false
}

// earlierAttempts counts the attempts after the reset that were judged
// and folded before the window (the carry's included), and how many of
// them failed.
func (e *evaluator) earlierAttempts(counted []tracked) (n, failed int) {
	if c := e.in.Carry; c != nil {
		n, failed = c.Attempts.Counted, c.Attempts.Failed
	}
	for _, a := range counted {
		if a.folded {
			n++
			if a.Result == OutcomeFail {
				failed++
			}
		}
	}
	return n, failed
}

// carryAttempts sets what next (the carry this run's entry keeps: the
// fold of every push but the newest keep... of e.pushes before index
// keep) holds of the attempts: kept, the tally after the attempts the
// pushes before keep brought, their numbers, and the newest commit they
// brought.
func (e *evaluator) carryAttempts(next *Carry, kept tally, atts []tracked, keep int) {
	var from AttemptFold
	if c := e.in.Carry; c != nil {
		from = c.Attempts
	}
	a := kept.attemptFold()
	a.Counted, a.Prior = from.Counted, from.Prior
	for _, t := range atts {
		if t.carried || t.push < 0 || t.push >= keep {
			continue
		}
		if t.counted {
			a.Counted++
		} else {
			a.Prior++
		}
	}
	next.Attempts = a
	if keep > 0 {
		next.Edge = ""
		if f := e.front[keep-1]; f >= 0 {
			next.Edge = e.in.Commits[f].SHA
		}
	}
}
