package breaker

import (
	"fmt"
	"strings"
	"time"
)

func init() {
	registerPolicy(PolicyRule{Name: PolicyPRP, Seed: "002", OpenState: string(StateOpen), apply: (*evaluator).applyPRP})
}

// PolicyName names the policy whose state this is.
func (*PRPState) PolicyName() string { return PolicyPRP }

// The prp phases and their thresholds (seed 002).
var prpThresholds = map[string][2]int{ // no progress, same error
	"RED": {3, 5}, "GREEN": {2, 3}, "REFACTOR": {5, 5}, "DOCUMENT": {3, 5},
}

// TrailerPRPPhase is the trailer key that names the prp phase of a commit.
const TrailerPRPPhase = "PRP-Phase"

// CheckPhase returns nil for a prp phase name (any case).
func CheckPhase(phase string) error {
	if _, ok := prpThresholds[strings.ToUpper(phase)]; !ok {
		return fmt.Errorf("phase %q is not one of RED, GREEN, REFACTOR, DOCUMENT", phase)
	}
	return nil
}

// PRPState is the prp policy's state, in seed 002's schema, rebuilt from
// the observed pushes since the last reset.
type PRPState struct {
	Phase               string
	PhaseSource         string // "trailer", "flag" or "default"
	NoProgressThreshold int
	SameErrorThreshold  int
	State               string // CLOSED, HALF_OPEN or OPEN
	NoProgressCount     int
	SameErrorCount      int
	LastProgressMetric  map[string]map[string]int
	LastErrorHash       string
	LastError           string
	OpenedAt            *time.Time
	OpenReason          string
	Iterations          int
	TestsPassing        int
	TestsTotal          int
	PassingChanged      bool // tests passing changed at the last iteration
	History             []PRPEvent
}

// PRPEvent is one entry of the prp history.
type PRPEvent struct {
	Timestamp time.Time
	Event     string // "state_change", "progress", "error", "reset"
	FromState string
	ToState   string
	Reason    string
}

// PRPFold is the prp fold of the iterations a carry holds: seed 002's
// state machine after them, under the phase it was folded with.
type PRPFold struct {
	Phase           string
	State           State
	Iterations      int
	NoProgressCount int
	SameErrorCount  int
	LastErrorHash   string
	// Prev are the newest folded iteration's counts (when Iterations > 0),
	// what the next one's progress is measured against; PassingChanged
	// says its passing count differed from the one before.
	Prev           PushCounts
	PassingChanged bool
	OpenedAt       *time.Time
	OpenReason     string
}

// newPRPFold is the fold of no iteration.
func newPRPFold(phase string) *PRPFold { return &PRPFold{Phase: phase, State: StateClosed} }

// clone copies f deeply (nil stays nil).
func (f *PRPFold) clone() *PRPFold {
	if f == nil {
		return nil
	}
	out := *f
	if f.OpenedAt != nil {
		t := *f.OpenedAt
		out.OpenedAt = &t
	}
	return &out
}

// iterate folds one iteration (an observed push whose tests ran, after
// the reset) through seed 002's state machine: CLOSED → HALF_OPEN after 2
// iterations without progress, HALF_OPEN → OPEN at the phase's threshold,
// HALF_OPEN → CLOSED on progress, and OPEN on the phase's count of
// identical errors; OPEN stays OPEN. event (nil: none) is told each event.
func (f *PRPFold) iterate(p Push, event func(PRPEvent)) {
	if event == nil {
		event = func(PRPEvent) {}
	}
	thr := prpThresholds[f.Phase]
	move := func(at time.Time, to State, reason string) {
		event(PRPEvent{Timestamp: at, Event: "state_change", FromState: string(f.State), ToState: string(to), Reason: reason})
		f.State = to
		if to == StateOpen {
			t := at
			f.OpenedAt, f.OpenReason = &t, reason
		}
	}
	if p.Reset != nil {
		event(PRPEvent{Timestamp: p.Reset.At, Event: "reset", FromState: string(f.State), ToState: string(StateClosed),
			Reason: "Circuit reset by " + p.Reset.Author})
	}
	var prev *PushCounts
	if f.Iterations > 0 {
		prev = &f.Prev
	}
	f.Iterations++
	progress := prpProgress(f.Phase, prev, p.Counts)
	if hash := errorHash(p); hash == "" {
		f.SameErrorCount = 0
	} else if hash == f.LastErrorHash {
		f.SameErrorCount++
	} else {
		f.SameErrorCount = 1
	}
	f.LastErrorHash = errorHash(p)
	f.PassingChanged = prev == nil || prev.Passed != p.Counts.Passed
	f.Prev = p.Counts
	if progress {
		f.NoProgressCount = 0
		event(PRPEvent{Timestamp: p.ObservedAt, Event: "progress", FromState: string(f.State), ToState: string(f.State),
			Reason: fmt.Sprintf("progress at %s", ShortSHA(p.Head))})
	} else {
		f.NoProgressCount++
	}
	switch f.State {
	case StateOpen:
		return
	case StateClosed:
		if !progress && f.NoProgressCount >= 2 {
			move(p.ObservedAt, StateHalfOpen, fmt.Sprintf("No progress for %d iterations", f.NoProgressCount))
		}
	case StateHalfOpen:
		switch {
		case progress:
			move(p.ObservedAt, StateClosed, "Progress detected, circuit closing")
		case f.NoProgressCount >= thr[0]:
			move(p.ObservedAt, StateOpen, fmt.Sprintf("No progress for %d iterations", f.NoProgressCount))
		}
	}
	if f.State != StateOpen && f.SameErrorCount >= thr[1] {
		move(p.ObservedAt, StateOpen, fmt.Sprintf("Same error repeated %d times", f.SameErrorCount))
	}
}

// applyPRP folds the iterations after the carry's (the observed pushes
// whose tests ran, after the reset) through seed 002's state machine
// (PRPFold.iterate). The history lists the events of the newest Window
// pushes; the iterations before them are counted. OPEN stays OPEN until a
// verified human reset.
func (e *evaluator) applyPRP(d *Decision) {
	phase, source := e.prpPhase()
	thr := prpThresholds[phase]
	f := newPRPFold(phase)
	if c := e.in.Carry; c != nil && c.PRP != nil {
		f = c.PRP.clone()
	}
	st := &PRPState{Phase: phase, PhaseSource: source, NoProgressThreshold: thr[0], SameErrorThreshold: thr[1]}
	d.Detail = st
	split := len(e.pushes) - len(e.window)
	for i, p := range e.pushes {
		if i < e.prior || p.Infra != "" {
			continue
		}
		if i < split {
			f.iterate(p, nil)
			continue
		}
		f.iterate(p, func(ev PRPEvent) { st.History = append(st.History, ev) })
		st.LastError = lastError(p)
	}
	st.State, st.NoProgressCount, st.SameErrorCount, st.Iterations = string(f.State), f.NoProgressCount, f.SameErrorCount, f.Iterations
	st.LastErrorHash, st.PassingChanged, st.OpenedAt, st.OpenReason = f.LastErrorHash, f.PassingChanged && f.Iterations > 0, f.OpenedAt, f.OpenReason
	if f.Iterations > 0 {
		st.TestsPassing, st.TestsTotal = f.Prev.Passed, f.Prev.Total
		st.LastProgressMetric = map[string]map[string]int{phase: {"tests_passing": f.Prev.Passed, "tests_total": f.Prev.Total}}
	}
	d.PolicyState = st.State
	switch {
	case f.State == StateOpen && strings.HasPrefix(f.OpenReason, "Same error"):
		setOpen(d, TripSameError)
	case f.State == StateOpen:
		setOpen(d, TripNoProgress)
	case f.State == StateHalfOpen:
		setClosed(d, StateHalfOpen)
		e.notef("prp: HALF_OPEN after %d iterations without progress: the check passes, with a warning; OPEN at %d in phase %s",
			f.NoProgressCount, thr[0], phase)
	default:
		setClosed(d, StateClosed)
	}
}

// prpProgress applies the phase's progress rule to two consecutive pushes;
// the first push is progress only when nothing fails. A test that vanished
// lowers the total, so fewer failures with fewer tests are not progress.
func prpProgress(phase string, prev *PushCounts, b PushCounts) bool {
	if prev == nil {
		return b.Failed == 0
	}
	a := *prev
	switch phase {
	case "RED": // tests generated
		return b.Total > a.Total
	case "REFACTOR": // refactoring keeps the tests green, or makes them greener
		return b.Failed < a.Failed || (b.Failed == 0 && b.Total >= a.Total)
	case "DOCUMENT": // docs are not measured by tests: a green push is progress
		return b.Failed == 0
	}
	return b.Passed > a.Passed || (b.Failed < a.Failed && b.Total == a.Total) // GREEN
}

// prpPhase is the phase: the newest commit's PRP-Phase trailer, else the
// requested phase, else GREEN; a trailer that names no phase is noted.
func (e *evaluator) prpPhase() (phase, source string) {
	return prpPhaseOf(e.in, e.notef)
}

// prpPhaseOf is prpPhase, telling note (nil: nobody) of each trailer that
// names no phase.
func prpPhaseOf(in Input, note func(format string, args ...any)) (phase, source string) {
	for i := len(in.Commits) - 1; i >= 0; i-- {
		if v, ok := TrailerValue(in.Commits[i].Trailers, TrailerPRPPhase); ok {
			if CheckPhase(v) == nil {
				return strings.ToUpper(v), "trailer"
			}
			if note != nil {
				note("commit %s: %s %q is not a phase (RED, GREEN, REFACTOR, DOCUMENT): ignored", ShortSHA(in.Commits[i].SHA), TrailerPRPPhase, v)
			}
		}
	}
	if in.Phase != "" && CheckPhase(in.Phase) == nil {
		return strings.ToUpper(in.Phase), "flag"
	}
	return "GREEN", "default"
}
