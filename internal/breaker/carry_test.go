package breaker

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"
	"time"
)

// A run that starts from the carry the previous run's entry keeps, with
// the pushes after it, decides exactly as a run that folds the whole line
// from its start: state, counts, the window's pushes, the diagnostic, the
// notes, and the carry its own entry keeps. Random lines of work: stuck,
// flaky and fixed tests, vanished tests, the base's failures, pushes whose
// tests did not run, and the OPEN verdicts the runs recorded; commits that
// declare attempts (lying ones too); a fifth of the lines under bmad, a
// fifth under prp, a fifth under liza.
func TestCarry_SameDecisionAsTheWholeLine(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(29))
	lines, compared, folded, resetFolded, refused, attempts, sessions, iterations, failures := 300, 0, 0, 0, 0, 0, 0, 0, 0
	for line := 0; line < lines; line++ {
		l := newRandomLine(rng)
		l.declare(rng, line%2 == 1)
		switch line % 5 {
		case 2:
			l.policy, l.threshold = PolicyBMAD, 3+rng.Intn(4)
		case 3:
			l.policy, l.phase = PolicyPRP, []string{"RED", "GREEN", "REFACTOR", "DOCUMENT"}[rng.Intn(4)]
		case 4:
			l.policy = PolicyLiza
		}
		for k := 1; k <= l.n; k++ {
			whole := Evaluate(l.input(k, nil))
			if k > 1 && l.carries[k-1] != nil {
				fast := Evaluate(l.input(k, l.carries[k-1]))
				switch {
				case fast.Carry == nil && whole.Carry != nil:
					refused++ // the carry cannot stand (a reset whose head is gone): the caller reads the whole line
				case !reflect.DeepEqual(whole, fast):
					t.Fatalf("line %d, push %d of %d: %s differ; from the carry\n%s\nthe whole line\n%s", line, k, l.n, differing(whole, fast), brief(fast), brief(whole))
				}
				compared++
				if l.carries[k-1].Pushes > 0 {
					folded++
				}
				if l.carries[k-1].Reset != "" {
					resetFolded++
				}
				if l.carries[k-1].Attempts.Counted > 0 {
					attempts++
				}
				if b := l.carries[k-1].BMAD; b != nil && b.Sessions > 0 {
					sessions++
				}
				if p := l.carries[k-1].PRP; p != nil && p.Iterations > 0 {
					iterations++
				}
				if z := l.carries[k-1].Liza; z != nil && len(z.Tests) > 0 {
					failures++
				}
			}
			l.record(k, whole)
		}
	}
	t.Logf("%d runs from a carry: %d of them folded pushes, %d a reset, %d declared attempts, %d bmad sessions, %d prp iterations, %d liza failures; %d could not start from it",
		compared, folded, resetFolded, attempts, sessions, iterations, failures, refused)
	if attempts < lines/2 || sessions < lines/8 || iterations < lines/8 || failures < lines/8 {
		t.Errorf("only %d runs started from a carry that folded declared attempts, %d from one that folded bmad's sessions, %d prp's iterations, %d liza's failures",
			attempts, sessions, iterations, failures)
	}
	if refused > compared/10 {
		t.Errorf("%d of %d runs could not start from the carry", refused, compared)
	}
	if folded < lines || resetFolded < lines/4 {
		t.Fatalf("only %d of %d runs started from a carry that folded a push, %d from one that folded a reset: the lines are too short to test it", folded, compared, resetFolded)
	}
}

// randomLine is one line of work: its pushes' statuses, and what the runs
// recorded as they went.
type randomLine struct {
	n         int
	policy    string // "" for greenlight's
	threshold int    // bmad's
	phase     string // prp's
	tests     []string
	base      map[string]bool
	heads     []string                // by push (0-based): a commit of the history, or one force-pushed away
	status    []map[string]TestStatus // by push (0-based); nil for a push whose tests did not run
	infra     []string                // the InfraKind of such a push
	resets    map[int]bool            // pushes (0-based) whose run records a maintainer's reset
	commits   []Commit
	// What the runs recorded: each push's verdict and the carry each run's
	// entry keeps.
	verdicts []*Verdict
	slices   []string
	carries  map[int]*Carry
}

func newRandomLine(rng *rand.Rand) *randomLine {
	l := &randomLine{n: 2 + rng.Intn(60), carries: map[int]*Carry{}, base: map[string]bool{}, resets: map[int]bool{}}
	nt := 2 + rng.Intn(5)
	fail := make([]float64, nt)
	for i := 0; i < nt; i++ {
		name := fmt.Sprintf("T%d", i)
		if rng.Intn(4) == 0 {
			name = fmt.Sprintf("T%d/case_%d", i/2, i) // a subtest
		}
		l.tests = append(l.tests, name)
		fail[i] = []float64{0, 0.1, 0.5, 0.9, 1}[rng.Intn(5)]
	}
	if rng.Intn(5) == 0 {
		l.base[l.tests[0]] = true
	}
	for k := 0; k < l.n; k++ {
		l.commits = append(l.commits, Commit{SHA: sha(k + 1), Parent: sha(k), Subject: fmt.Sprintf("fix %d", k+1)})
		l.heads = append(l.heads, sha(k+1))
		if k+1 < l.n && rng.Intn(8) == 0 {
			l.heads[k] = sha(100 + k) // force-pushed away since
		}
		if k > 0 && rng.Intn(14) == 0 {
			l.resets[k] = true
		}
		if rng.Intn(12) == 0 {
			l.status = append(l.status, nil)
			l.infra = append(l.infra, []string{InfraNoResults, InfraBuild, InfraCancelled}[rng.Intn(3)])
			continue
		}
		st := map[string]TestStatus{}
		for i, name := range l.tests {
			switch r := rng.Float64(); {
			case r < 0.04:
				// absent from the results
			case r < 0.08:
				st[name] = StatusSkip
			case rng.Float64() < fail[i]:
				st[name] = StatusFail
			default:
				st[name] = StatusPass
			}
		}
		l.status = append(l.status, st)
		l.infra = append(l.infra, "")
	}
	return l
}

// input is run k's input (1-based): the ledger's pushes 1..k-1 as the
// reader gives them and this run's push k; from carry, only the pushes
// after it.
func (l *randomLine) input(k int, carry *Carry) Input {
	in := Input{Policy: DefaultPolicy(), Commits: l.commits[:k], Branch: "agent/S-1", Carry: carry,
		BaseFailing: l.base, BaseObserved: len(l.base) > 0}
	if l.policy != "" {
		in.Policy.Name, in.Threshold, in.Phase = l.policy, l.threshold, l.phase
	}
	from := 0
	if carry != nil {
		from = carry.Pushes
	}
	names := l.names(k)
	for j := from; j < k-1; j++ {
		in.Pushes = append(in.Pushes, l.ledgerPush(j, k-1, carry == nil, names))
	}
	run := Push{Head: sha(k), ObservedAt: l.at(k - 1), Source: PushFromRun, Complete: true, Tests: map[string]PushTest{}, Declared: map[string]PushTest{}}
	obs := Observation{Head: sha(k), Tests: map[string]ObservedTest{}, Failing: map[string]ObservedTest{}}
	if st := l.status[k-1]; st == nil {
		run.Infra, run.InfraKind = "the tests did not run", l.infra[k-1]
		obs.Infra, obs.InfraKind = run.Infra, run.InfraKind
	} else {
		for name, s := range st {
			run.Tests[name] = PushTest{Status: s, Message: "boom " + name}
			obs.Tests[name] = ObservedTest{Name: name, Status: s, Message: "boom " + name}
			if s.Failed() {
				obs.Failing[name] = obs.Tests[name]
			}
		}
		for _, name := range names { // as evaluate.declare
			run.Declared[name] = PushTest{Status: StatusAbsent}
			if s, ok := st[name]; ok {
				run.Declared[name] = PushTest{Status: s, Message: "boom " + name}
			}
		}
	}
	if l.resets[k-1] { // as evaluate.Snapshot.DecideReset: the run's push records it
		run.Slice, run.Reset = "S-1", &ResetRecord{Author: "maintainer", Text: "/breaker reset S-1"}
		in.Slice = "S-1"
	}
	in.Observation = obs
	run.Counts = l.counts(k - 1)
	in.Pushes = append(in.Pushes, run)
	return in
}

// counts are push j's test counts, as its run's results give them.
func (l *randomLine) counts(j int) PushCounts {
	var c PushCounts
	for _, s := range l.status[j] {
		c.Total++
		switch {
		case s == StatusPass:
			c.Passed++
		case s.Failed():
			c.Failed++
		}
	}
	return c
}

func (l *randomLine) at(j int) time.Time {
	return time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC).Add(time.Duration(j) * time.Minute)
}

// ledgerPush is push j (0-based) as a run that has read the ledger up to
// push last-1 gets it from the entry its run wrote: the failing tests, the
// ones that failed before, the verdict, and the tests failing for the
// first time that ran before (KnownBefore). whole adds what the reader of
// the whole line adds from the entries' filters: a pass, at every push
// with results from the first that knew it, of each test that fails at
// some ledger push.
//
// The entry holds the tests the commits declared when it was written, so
// the push's Declared has each name the reader's commits declare (names)
// whose test ran there.
func (l *randomLine) ledgerPush(j, last int, whole bool, names []string) Push {
	p := Push{Head: l.heads[j], ObservedAt: l.at(j), Source: PushFromLedger, Slice: l.slices[j], Verdict: l.verdicts[j],
		Tests: map[string]PushTest{}, Declared: map[string]PushTest{}, Counts: l.counts(j)}
	if l.resets[j] {
		p.Reset = &ResetRecord{Author: "maintainer", Text: "/breaker reset S-1"}
	}
	st := l.status[j]
	if st == nil {
		p.Infra, p.InfraKind = "the tests did not run", l.infra[j]
		return p
	}
	for _, name := range names {
		if s, ok := st[name]; ok {
			p.Declared[name] = PushTest{Status: s}
		}
	}
	for _, name := range l.tests {
		s, ok := st[name]
		switch {
		case ok && s.Failed():
			p.Tests[name] = PushTest{Status: s, Fingerprint: "fp-" + name}
			if l.firstFailure(name) == j && l.ranBefore(name, j) {
				p.KnownBefore = append(p.KnownBefore, name)
			}
		case l.firstFailure(name) >= 0 && l.firstFailure(name) < j:
			if !ok {
				s = StatusAbsent
			}
			p.Tests[name] = PushTest{Status: s}
		case whole && l.failsInLedger(name, last) && l.firstKnown(name) <= j:
			p.Tests[name] = PushTest{Status: StatusPass}
		}
	}
	return p
}

// declare gives the line's commits attempt trailers: about half of them
// name one or two tests, some with a Result the agent made up; lying says
// every Result is pass.
func (l *randomLine) declare(rng *rand.Rand, lying bool) {
	for i := range l.commits {
		if rng.Intn(2) == 0 {
			continue
		}
		c := &l.commits[i]
		for n := 1 + rng.Intn(2); n > 0; n-- {
			c.Trailers = append(c.Trailers, Trailer{Key: "Greenlight-Test", Value: l.tests[rng.Intn(len(l.tests))]})
		}
		switch r := rng.Intn(4); {
		case lying:
			c.Trailers = append(c.Trailers, Trailer{Key: "Greenlight-Result", Value: "pass"})
		case r == 0:
			c.Trailers = append(c.Trailers, Trailer{Key: "Greenlight-Result", Value: []string{"pass", "fail", "infra"}[rng.Intn(3)]})
		}
	}
}

// names are the <prefix>Test names of run k's commits, in order.
func (l *randomLine) names(k int) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range l.commits[:k] {
		for _, v := range TrailerValues(c.Trailers, "Greenlight-Test") {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// firstFailure is the first push (0-based) where name failed; -1 if none.
func (l *randomLine) firstFailure(name string) int {
	for j, st := range l.status {
		if st != nil && st[name].Failed() {
			return j
		}
	}
	return -1
}

// firstKnown is the first push with results that had name.
func (l *randomLine) firstKnown(name string) int {
	for j, st := range l.status {
		if _, ok := st[name]; ok {
			return j
		}
	}
	return len(l.status)
}

// ranBefore says a push with results before j came at or after the first
// that knew name: the whole line's reader gives it a pass there.
func (l *randomLine) ranBefore(name string, j int) bool {
	for i := l.firstKnown(name); i < j; i++ {
		if l.status[i] != nil {
			return true
		}
	}
	return false
}

// failsInLedger says name fails at one of pushes 0..last-1.
func (l *randomLine) failsInLedger(name string, last int) bool {
	f := l.firstFailure(name)
	return f >= 0 && f < last
}

// record keeps what run k decided: its verdict and slice for the entry,
// and the carry the entry keeps.
func (l *randomLine) record(k int, d Decision) {
	l.verdicts = append(l.verdicts, &Verdict{State: d.State, TripReason: d.TripReason, TotalFailed: d.TotalFailed})
	l.slices = append(l.slices, d.Slice)
	l.carries[k] = d.Carry
}

// differing names the fields of two decisions that differ.
func differing(a, b Decision) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	return out
}

// brief is the part of a decision a failure message shows.
func brief(d Decision) string {
	var flips []string
	if d.Carry != nil {
		for n, t := range d.Carry.Tests {
			flips = append(flips, fmt.Sprintf("%s:%+v", n, *t))
		}
	}
	sort.Strings(flips)
	if d.Carry != nil {
		flips = append(flips, fmt.Sprintf("attempts %+v edge %s last %s", d.Carry.Attempts, ShortSHA(d.Carry.Edge), ShortSHA(d.Carry.Last)))
	}
	var ps []string
	for _, p := range d.Pushes {
		ps = append(ps, fmt.Sprintf("%s failed=%v progress=%v counted=%v failing=%v", ShortSHA(p.Head), p.Failed, p.Progress, p.Counted, p.Failing))
	}
	return fmt.Sprintf("%s %s total=%d streak=%d earlier=%+v slice=%s(%s)\npushes %v\ncarry %+v\nnotes %q", d.State, d.TripReason, d.TotalFailed, d.FailedInARow, d.Earlier, d.Slice, d.SliceSource, ps, flips, d.Notes)
}

// A carry whose edge the branch no longer has cannot say which of the
// branch's attempts it holds: the decision keeps no carry (the caller
// reads the whole line and decides again); without attempts it can.
func TestCarry_NoneWhenItsEdgeIsGoneAndTheBranchDeclaresAttempts(t *testing.T) {
	t.Parallel()
	carry := NewCarry()
	carry.Slice, carry.Pushes, carry.Edge, carry.Last = "S-1", 20, sha(99), sha(99)
	carry.Attempts = AttemptFold{Counted: 4, Failed: 2, PerTest: map[string]int{"TestA": 2}}
	in := Input{Policy: DefaultPolicy(), Branch: "agent/S-1", Carry: carry,
		Commits:     []Commit{{SHA: sha(1), Parent: sha(0), Subject: "rewritten", Trailers: []Trailer{{Key: "Greenlight-Test", Value: "TestA"}}}},
		Observation: Observation{Head: sha(1), Tests: map[string]ObservedTest{"TestA": {Name: "TestA", Status: StatusFail}}},
		Pushes: []Push{{Head: sha(1), Source: PushFromRun, Complete: true, Tests: map[string]PushTest{"TestA": {Status: StatusFail}},
			Declared: map[string]PushTest{"TestA": {Status: StatusFail}}}}}
	if d := Evaluate(in); d.Carry != nil {
		t.Errorf("the decision keeps a carry (%+v) though its edge is gone", d.Carry.Attempts)
	}
	in.Commits[0].Trailers = nil
	in.Pushes[0].Declared = nil
	if d := Evaluate(in); d.Carry == nil {
		t.Error("without declared attempts the gone edge refuses the carry")
	}
}

// A carry folded under greenlight holds no bmad or prp fold: a run under
// either keeps no carry (the caller reads the whole line), and leaves the
// carry it was given as it was.
func TestCarry_NoneUnderAnotherPolicysCarry(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{PolicyBMAD, PolicyPRP, PolicyLiza} {
		c := NewCarry()
		c.Slice = "S-1"
		in := Input{Policy: Policy{Name: policy}, Branch: "agent/S-1", Carry: c,
			Commits:     []Commit{{SHA: sha(1), Parent: sha(0)}},
			Observation: Observation{Head: sha(1)},
			Pushes:      []Push{{Head: sha(1), Source: PushFromRun, Complete: true}}}
		if d := Evaluate(in); d.Carry != nil {
			t.Errorf("%s: the decision keeps a carry, from a carry folded under greenlight", policy)
		}
		if c.BMAD != nil || c.PRP != nil {
			t.Errorf("%s: the carry given to Evaluate was changed: %+v %+v", policy, c.BMAD, c.PRP)
		}
	}
}
