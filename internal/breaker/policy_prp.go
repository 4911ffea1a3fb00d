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

// applyPRP folds the pushes through seed 002's state machine: an
// iteration is an observed push; CLOSED → HALF_OPEN after 2 iterations
// without progress, HALF_OPEN → OPEN at the phase's threshold, HALF_OPEN →
// CLOSED on progress, and OPEN on the phase's count of identical errors.
// OPEN stays OPEN until a verified human reset.
func (e *evaluator) applyPRP(d *Decision) {
	phase, source := e.prpPhase()
	thr := prpThresholds[phase]
	st := &PRPState{Phase: phase, PhaseSource: source, NoProgressThreshold: thr[0], SameErrorThreshold: thr[1], State: string(StateClosed)}
	d.Detail = st
	move := func(at time.Time, to State, reason string) {
		st.History = append(st.History, PRPEvent{Timestamp: at, Event: "state_change", FromState: st.State, ToState: string(to), Reason: reason})
		st.State = string(to)
		if to == StateOpen {
			t := at
			st.OpenedAt, st.OpenReason = &t, reason
		}
	}
	var prev *Push
	for _, p := range e.policyPushes(*d) {
		if p.Reset != nil {
			st.History = append(st.History, PRPEvent{Timestamp: p.Reset.At, Event: "reset", FromState: st.State, ToState: string(StateClosed),
				Reason: "Circuit reset by " + p.Reset.Author})
		}
		st.Iterations++
		progress := prpProgress(phase, prev, p)
		if hash := errorHash(p); hash == "" {
			st.SameErrorCount = 0
		} else if hash == st.LastErrorHash {
			st.SameErrorCount++
		} else {
			st.SameErrorCount = 1
		}
		st.LastErrorHash, st.LastError = errorHash(p), lastError(p)
		st.PassingChanged = prev == nil || prev.Counts.Passed != p.Counts.Passed
		st.TestsPassing, st.TestsTotal = p.Counts.Passed, p.Counts.Total
		st.LastProgressMetric = map[string]map[string]int{phase: {"tests_passing": p.Counts.Passed, "tests_total": p.Counts.Total}}
		if progress {
			st.NoProgressCount = 0
			st.History = append(st.History, PRPEvent{Timestamp: p.ObservedAt, Event: "progress", FromState: st.State, ToState: st.State,
				Reason: fmt.Sprintf("progress at %s", ShortSHA(p.Head))})
		} else {
			st.NoProgressCount++
		}
		prev = &p
		switch State(st.State) {
		case StateOpen:
			continue
		case StateClosed:
			if !progress && st.NoProgressCount >= 2 {
				move(p.ObservedAt, StateHalfOpen, fmt.Sprintf("No progress for %d iterations", st.NoProgressCount))
			}
		case StateHalfOpen:
			switch {
			case progress:
				move(p.ObservedAt, StateClosed, "Progress detected, circuit closing")
			case st.NoProgressCount >= st.NoProgressThreshold:
				move(p.ObservedAt, StateOpen, fmt.Sprintf("No progress for %d iterations", st.NoProgressCount))
			}
		}
		if State(st.State) != StateOpen && st.SameErrorCount >= st.SameErrorThreshold {
			move(p.ObservedAt, StateOpen, fmt.Sprintf("Same error repeated %d times", st.SameErrorCount))
		}
	}
	d.PolicyState = st.State
	switch {
	case State(st.State) == StateOpen && strings.HasPrefix(st.OpenReason, "Same error"):
		setOpen(d, TripSameError)
	case State(st.State) == StateOpen:
		setOpen(d, TripNoProgress)
	case State(st.State) == StateHalfOpen:
		setClosed(d, StateHalfOpen)
		e.notef("prp: HALF_OPEN after %d iterations without progress: the check passes, with a warning; OPEN at %d in phase %s",
			st.NoProgressCount, st.NoProgressThreshold, phase)
	default:
		setClosed(d, StateClosed)
	}
}

// prpProgress applies the phase's progress rule to two consecutive pushes;
// the first push is progress only when nothing fails. A test that vanished
// lowers the total, so fewer failures with fewer tests are not progress.
func prpProgress(phase string, prev *Push, p Push) bool {
	if prev == nil {
		return p.Counts.Failed == 0
	}
	a, b := prev.Counts, p.Counts
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
// requested phase, else GREEN.
func (e *evaluator) prpPhase() (phase, source string) {
	for i := len(e.in.Commits) - 1; i >= 0; i-- {
		if v, ok := TrailerValue(e.in.Commits[i].Trailers, TrailerPRPPhase); ok {
			if CheckPhase(v) == nil {
				return strings.ToUpper(v), "trailer"
			}
			e.notef("commit %s: %s %q is not a phase (RED, GREEN, REFACTOR, DOCUMENT): ignored", ShortSHA(e.in.Commits[i].SHA), TrailerPRPPhase, v)
		}
	}
	if e.in.Phase != "" && CheckPhase(e.in.Phase) == nil {
		return strings.ToUpper(e.in.Phase), "flag"
	}
	return "GREEN", "default"
}
