package breaker

// tally is the chronological fold of the counted attempts of a slice.
type tally struct {
	perTest map[string]int // failed attempts since the test last passed
	total   int            // every failed attempt since the reset
	reason  TripReason     // the first trip, sticky; TripNone when closed
	test    string         // the test that tripped, for TripPerTest
	count   int            // its failed attempts when it tripped
}

// fold counts the attempts in order. Only failures count; a pass zeroes
// the test's count but never the slice total; infra and unknown change
// nothing. The first trip sticks: a later pass does not close the slice.
func fold(atts []tracked, lim Limits) tally {
	t := tally{perTest: map[string]int{}}
	for _, a := range atts {
		switch a.Result {
		case OutcomeFail:
			t.perTest[a.Test]++
			t.total++
		case OutcomePass:
			t.perTest[a.Test] = 0
		}
		if t.reason != TripNone {
			continue
		}
		switch {
		case t.perTest[a.Test] >= lim.PerTest:
			t.reason, t.test, t.count = TripPerTest, a.Test, t.perTest[a.Test]
		case t.total >= lim.Slice:
			t.reason = TripSliceCeiling
		}
	}
	return t
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
