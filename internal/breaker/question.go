package breaker

import "fmt"

// question is the agent's newest question, else an answerable question
// grounded in the evidence.
func (e *evaluator) question(d Decision, test string, atts []tracked) string {
	for i := len(atts) - 1; i >= 0; i-- {
		if q := atts[i].Question; q != "" {
			return fmt.Sprintf("The agent asks (%s at %s): %s", e.p.Key(TrailerQuestion), ShortSHA(atts[i].SHA), q)
		}
	}
	for _, a := range atts {
		if a.Misreported {
			return fmt.Sprintf("Attempt %d claimed %q passed but CI observed it failing: "+
				"does the agent run the same test command as CI?", a.Number, test)
		}
		for _, s := range a.findings {
			if s.Verdict == VerdictViolation {
				return fmt.Sprintf("Attempt %d changed %s, outside slice %s's scope, without a %s line: "+
					"should that file be in the slice's scope, or must the fix stay inside it?",
					a.Number, s.File, d.Slice, e.p.Key(TrailerJustify))
			}
		}
	}
	t := errorTrend(atts)
	switch {
	case t.changedAt != 0:
		return fmt.Sprintf("The error changed at attempt %d from %q to %q: which is closer to what %q expects?",
			t.changedAt, capText(t.from, 200), capText(t.to, 200), test)
	case t.errors > 1:
		return fmt.Sprintf("The error %q did not change across %d attempts: does %q depend on something "+
			"outside the files these attempts changed, and if so which file or contract?", capText(t.last, 200), t.errors, test)
	case t.errors == 1:
		return fmt.Sprintf("Is the failure %q what %q should report, and what should change to make it pass?",
			capText(t.last, 200), test)
	case e.in.Observation.Infra != "":
		return fmt.Sprintf("The tests did not run in this run (%s): what does the build or runner need "+
			"so that %q runs?", e.in.Observation.Infra, test)
	}
	return fmt.Sprintf("Neither CI nor the agent recorded a failure output for %q: can you run it and "+
		"paste the failure, or say what it expects?", test)
}
