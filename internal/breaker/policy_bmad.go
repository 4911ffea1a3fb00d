package breaker

import (
	"maps"
	"sort"
	"time"
)

func init() {
	registerPolicy(PolicyRule{Name: PolicyBMAD, Seed: "003", OpenState: "TRIGGERED", apply: (*evaluator).applyBMAD})
}

// PolicyName names the policy whose state this is.
func (*BMADState) PolicyName() string { return PolicyBMAD }

// BMADState is the bmad policy's state (seed 003): sessions are observed
// pushes; a session succeeds when a test that was not passing now passes.
type BMADState struct {
	Status              string // HEALTHY, TRIGGERED or COMPLETE
	ConsecutiveFailures int
	Threshold           int
	Sessions            []BMADSession // the sessions of the newest Window pushes, oldest first
	EarlierSessions     int           // the sessions before them, since the reset: counted, not listed
	Succeeded, Failed   int
	FailingTests        []string // failing at the last session
}

// BMADSession is one session.
type BMADSession struct {
	Head         string
	ObservedAt   time.Time
	Succeeded    bool
	NewlyPassing []string // tests that were not passing and pass now
	Passing      int
	Failing      int
}

// BMADFold is the bmad fold of the sessions a carry holds (DESIGN §6, the
// folded state): the counts, whether the threshold was reached, and what
// the next session is compared with.
type BMADFold struct {
	Threshold           int
	Sessions            int // folded sessions
	Succeeded, Failed   int
	ConsecutiveFailures int
	Triggered           bool
	// NotPassing are the newest folded session's tests that did not pass,
	// with their status: a pass of one at the next session is a success.
	// PrevFailed and PrevTotal are its counts.
	NotPassing            map[string]TestStatus
	PrevFailed, PrevTotal int
}

// newBMADFold is the fold of no session.
func newBMADFold(threshold int) *BMADFold {
	if threshold == 0 {
		threshold = DefaultThreshold
	}
	return &BMADFold{Threshold: threshold}
}

// clone copies f deeply (nil stays nil).
func (f *BMADFold) clone() *BMADFold {
	if f == nil {
		return nil
	}
	out := *f
	out.NotPassing = maps.Clone(f.NotPassing)
	return &out
}

// session folds one session (a push whose tests ran, after the reset): it
// succeeds when a test that did not pass at the session before passes
// now, or, for the first, when nothing fails. A success resets the count
// of consecutive failures; at the threshold the breaker is triggered, and
// the count stays as it was.
func (f *BMADFold) session(p Push) BMADSession {
	s := BMADSession{Head: p.Head, ObservedAt: p.ObservedAt, Passing: p.Counts.Passed, Failing: p.Counts.Failed}
	if f.Sessions == 0 {
		s.Succeeded = p.Counts.Failed == 0
	} else {
		for name := range f.NotPassing {
			if now, ok := p.Tests[name]; ok && now.Status == StatusPass {
				s.NewlyPassing = append(s.NewlyPassing, name)
			}
		}
		sort.Strings(s.NewlyPassing)
		s.Succeeded = len(s.NewlyPassing) > 0
	}
	if s.Succeeded {
		f.Succeeded++
		if !f.Triggered {
			f.ConsecutiveFailures = 0
		}
	} else {
		f.Failed++
		if !f.Triggered {
			f.ConsecutiveFailures++
		}
	}
	if f.ConsecutiveFailures >= f.Threshold {
		f.Triggered = true
	}
	f.Sessions++
	f.NotPassing = map[string]TestStatus{}
	for name, t := range p.Tests {
		if t.Status != StatusPass {
			f.NotPassing[name] = t.Status
		}
	}
	f.PrevFailed, f.PrevTotal = p.Counts.Failed, p.Counts.Total
	return s
}

// applyBMAD folds the sessions after the carry's (the pushes whose tests
// ran, after the reset): the newest Window pushes' sessions are listed,
// the ones before counted (EarlierSessions). TRIGGERED (OPEN, exit 42)
// stays so until a verified human reset. COMPLETE: everything passes at
// the newest session.
func (e *evaluator) applyBMAD(d *Decision) {
	f := newBMADFold(e.in.Threshold)
	if c := e.in.Carry; c != nil && c.BMAD != nil {
		f = c.BMAD.clone()
	}
	st := &BMADState{Threshold: f.Threshold, Status: "HEALTHY"}
	d.Detail = st
	split := len(e.pushes) - len(e.window)
	for i, p := range e.pushes {
		if i < e.prior || p.Infra != "" {
			continue
		}
		s := f.session(p)
		if i >= split {
			st.Sessions = append(st.Sessions, s)
		}
	}
	st.ConsecutiveFailures, st.Succeeded, st.Failed = f.ConsecutiveFailures, f.Succeeded, f.Failed
	st.EarlierSessions = f.Sessions - len(st.Sessions)
	st.FailingTests = nil
	for name, status := range f.NotPassing {
		if status.Failed() {
			st.FailingTests = append(st.FailingTests, name)
		}
	}
	sort.Strings(st.FailingTests)
	switch {
	case f.Triggered:
		st.Status = "TRIGGERED"
		setOpen(d, TripConsecutiveFailures)
	case f.Sessions > 0 && f.PrevFailed == 0 && f.PrevTotal > 0:
		st.Status = "COMPLETE"
		setClosed(d, StateClosed)
	default:
		setClosed(d, StateClosed)
	}
	d.PolicyState = st.Status
}
