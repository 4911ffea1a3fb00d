package breaker

import "fmt"

// emptyDiagnostic is the pull cord's diagnostic when there is no counted
// attempt: every field says why it does not apply (seed 001 §4).
func (e *evaluator) emptyDiagnostic(d Decision) Diagnostic {
	why := fmt.Sprintf("not applicable: no commit carries a %s trailer for slice %s", e.p.Key(TrailerTest), d.Slice)
	if len(d.Prior) > 0 {
		why = fmt.Sprintf("not applicable: every attempt of slice %s is at or before the reset at %s",
			d.Slice, ShortSHA(d.ResetSHA))
	}
	return Diagnostic{
		TestExpectation:  why,
		ActualError:      why,
		BestHypothesis:   why,
		SpecificQuestion: "Which test should the agent work on next in slice " + d.Slice + "?",
		RecoveryOptions:  e.recovery(d, ""),
	}
}
