package breaker

import "time"

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
	Sessions            []BMADSession // every session since the reset, oldest first
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

// applyBMAD folds the pushes into consecutive failed sessions: a success
// resets the count; at the threshold the breaker is TRIGGERED (OPEN, exit
// 42) and stays so until a verified human reset. The first session
// succeeds only when nothing fails. COMPLETE: everything passes at the last
// session.
func (e *evaluator) applyBMAD(d *Decision) {
	st := &BMADState{Threshold: e.in.Threshold, Status: "HEALTHY"}
	if st.Threshold == 0 {
		st.Threshold = DefaultThreshold
	}
	d.Detail = st
	var prev *Push
	triggered := false
	for _, p := range e.policyPushes(*d) {
		s := BMADSession{Head: p.Head, ObservedAt: p.ObservedAt, Passing: p.Counts.Passed, Failing: p.Counts.Failed}
		if prev == nil {
			s.Succeeded = p.Counts.Failed == 0
		} else {
			for name, was := range prev.Tests {
				if now, ok := p.Tests[name]; ok && was.Status != StatusPass && now.Status == StatusPass {
					s.NewlyPassing = append(s.NewlyPassing, name)
				}
			}
			s.Succeeded = len(s.NewlyPassing) > 0
		}
		if s.Succeeded {
			st.Succeeded++
			if !triggered {
				st.ConsecutiveFailures = 0
			}
		} else {
			st.Failed++
			if !triggered {
				st.ConsecutiveFailures++
			}
		}
		if st.ConsecutiveFailures >= st.Threshold {
			triggered = true
		}
		st.Sessions = append(st.Sessions, s)
		st.FailingTests = failingNames(p)
		prev = &p
	}
	switch {
	case triggered:
		st.Status = "TRIGGERED"
		setOpen(d, TripConsecutiveFailures)
	case prev != nil && prev.Counts.Failed == 0 && prev.Counts.Total > 0:
		st.Status = "COMPLETE"
		setClosed(d, StateClosed)
	default:
		setClosed(d, StateClosed)
	}
	d.PolicyState = st.Status
}
