package breaker

import "maps"

// tally is the chronological fold of the counted attempts of a slice.
type tally struct {
	perTest map[string]int // failed attempts since the test last passed
	total   int            // every failed attempt since the reset
	reason  TripReason     // the first trip, sticky; TripNone when closed
	test    string         // the test that tripped, for TripPerTest
	count   int            // its failed attempts when it tripped
}

// fold counts the attempts in order after start (a carry's, or the zero
// tally: newTally). Only failures count; a pass zeroes the test's count
// but never the slice total; infra and unknown change nothing. The first
// trip sticks: a later pass does not close the slice. kept is the tally
// after the attempts in keep (a prefix of atts): what the next carry
// holds.
func fold(start tally, atts []tracked, lim Limits, keep func(tracked) bool) (t, kept tally) {
	t = start
	kept = t.clone()
	for i, a := range atts {
		switch a.Result {
		case OutcomeFail:
			t.perTest[a.Test]++
			t.total++
		case OutcomePass:
			t.perTest[a.Test] = 0
		}
		if t.reason == TripNone {
			switch {
			case t.perTest[a.Test] >= lim.PerTest:
				t.reason, t.test, t.count = TripPerTest, a.Test, t.perTest[a.Test]
			case t.total >= lim.Slice:
				t.reason = TripSliceCeiling
			}
		}
		if keep(a) && (i+1 == len(atts) || !keep(atts[i+1])) {
			kept = t.clone()
		}
	}
	return t, kept
}

// newTally is the fold of no attempt.
func newTally() tally { return tally{perTest: map[string]int{}} }

// clone copies t deeply.
func (t tally) clone() tally {
	out := t
	out.perTest = maps.Clone(t.perTest)
	if out.perTest == nil {
		out.perTest = map[string]int{}
	}
	return out
}

// attemptFold is t as a carry keeps it, the tests at 0 left out.
func (t tally) attemptFold() AttemptFold {
	a := AttemptFold{Failed: t.total, Trip: t.reason, Test: t.test, Count: t.count}
	for n, c := range t.perTest {
		if c > 0 {
			if a.PerTest == nil {
				a.PerTest = map[string]int{}
			}
			a.PerTest[n] = c
		}
	}
	return a
}

// summarize returns one TestSummary per test of the attempts, in order of
// first appearance.
func summarize(atts []tracked, t tally, obs Observation) []TestSummary {
	var out []TestSummary
	pos := map[string]int{}
	for _, a := range atts {
		i, ok := pos[a.Test]
		if !ok {
			i = len(out)
			pos[a.Test] = i
			out = append(out, TestSummary{
				Name:           a.Test,
				FailedAttempts: t.perTest[a.Test],
				Status:         runStatus(obs, a.Test),
			})
		}
		out[i].Attempts = append(out[i].Attempts, a.Attempt)
	}
	return out
}

// runStatus is a test's status in this run: pass, fail, error, skip,
// unknown (not in the results) or infra (the tests did not run).
func runStatus(obs Observation, test string) string {
	if obs.Infra != "" {
		return string(OutcomeInfra)
	}
	t, ok := obs.Tests[test]
	if !ok || t.Status == "" {
		return string(OutcomeUnknown)
	}
	switch t.Status {
	case StatusPass, StatusFail, StatusError, StatusSkip:
		return string(t.Status)
	}
	return string(OutcomeUnknown)
}
