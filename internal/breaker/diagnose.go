package breaker

import (
	"fmt"
	"strings"
)

// diagnose builds the seed 001 §4 diagnostics: the tripped test for a
// per-test trip, every currently failing test for the slice ceiling, every
// test not passing for the manual pull cord.
func (e *evaluator) diagnose(d Decision, current []tracked, t tally) []Diagnostic {
	if len(current) == 0 {
		if g, ok := e.evidenceDiagnostic(d); ok {
			return []Diagnostic{g}
		}
		return []Diagnostic{e.emptyDiagnostic(d)}
	}
	var out []Diagnostic
	for _, test := range diagnosedTests(d, current, e.in.Observation) {
		out = append(out, e.diagnostic(d, test, ofTest(current, test)))
	}
	return out
}

// diagnosedTests picks the tests that get a diagnostic, in order of first
// appearance; never empty when there are attempts.
func diagnosedTests(d Decision, current []tracked, obs Observation) []string {
	if d.TripReason == TripPerTest {
		return []string{d.TrippedTest}
	}
	var tests []string
	for _, s := range summarize(current, tally{}, obs) {
		last := s.Attempts[len(s.Attempts)-1].Result
		failingNow := s.Status == string(StatusFail) || s.Status == string(StatusError)
		switch {
		case d.TripReason == TripSliceCeiling && (failingNow || last == OutcomeFail):
			tests = append(tests, s.Name)
		case d.TripReason == TripManual && last != OutcomePass:
			tests = append(tests, s.Name)
		}
	}
	if len(tests) == 0 {
		tests = []string{current[len(current)-1].Test}
	}
	return tests
}

// diagnostic is the eight-field report for one test.
func (e *evaluator) diagnostic(d Decision, test string, atts []tracked) Diagnostic {
	var scope []ScopeFinding
	for _, a := range atts {
		scope = append(scope, a.findings...)
	}
	return Diagnostic{
		Test:             test,
		TestExpectation:  e.expectation(test),
		ActualError:      e.actualError(test, atts),
		AttemptLog:       attemptLog(atts),
		CumulativeFiles:  fileTouches(atts),
		ScopeViolations:  scope,
		BestHypothesis:   e.hypothesis(atts),
		SpecificQuestion: e.question(d, test, atts),
		RecoveryOptions:  e.recovery(d, test),
	}
}

// expectation says what CI knows the test expects, never more.
func (e *evaluator) expectation(test string) string {
	s := fmt.Sprintf("The test %s passes.", test)
	t, ok := e.observed(test)
	if line := expectedLine(t.Message, t.Output); ok && line != "" {
		// Quoted as CI wrote it, never re-escaped (a Go %q would show
		// \"abc\" for "abc").
		return s + fmt.Sprintf(" CI's failure message states: “%s”. This comes from the test name "+
			"and CI's failure message; the breaker does not read test source.", line)
	}
	return s + " CI's results carry no expectation text for it: this comes from the test name " +
		"only; the breaker does not read test source."
}

// actualError is CI's exact output when CI observed the test failing,
// else the agent's account marked as such, else a plain "nothing captured".
func (e *evaluator) actualError(test string, atts []tracked) string {
	lead := fmt.Sprintf("No CI output for %q in this run.", test)
	if t, ok := e.observed(test); ok {
		out := ciOutput(t)
		switch {
		case t.Status.Failed() && out != "":
			return out
		case t.Status.Failed():
			lead = fmt.Sprintf("CI observed %q as %s at %s but captured no failure message or output.",
				test, t.Status, ShortSHA(e.head()))
		case t.Status != "":
			return fmt.Sprintf("CI observed %q as %s at %s, with no failure output.%s",
				test, t.Status, ShortSHA(e.head()), scopeReason(atts))
		}
	}
	if infra := e.in.Observation.Infra; infra != "" {
		lead = fmt.Sprintf("The tests did not run in this run (%s): no CI output for %q.", infra, test)
	}
	for i := len(atts) - 1; i >= 0; i-- {
		if atts[i].AgentError != "" {
			return fmt.Sprintf("%s The agent's account (%s at %s), not CI output:\n%s",
				lead, e.p.Key(TrailerError), ShortSHA(atts[i].SHA), atts[i].AgentError)
		}
	}
	return fmt.Sprintf("%s No output was captured: the agent gave no %s trailer either.", lead, e.p.Key(TrailerError))
}

// observed returns CI's observation of test in this run, if the tests ran.
func (e *evaluator) observed(test string) (ObservedTest, bool) {
	if e.in.Observation.Infra != "" {
		return ObservedTest{}, false
	}
	t, ok := e.in.Observation.Tests[test]
	return t, ok
}

// expectedLine returns the first line of the failure text that states an
// expectation ("expected X, got Y", "got X, want Y"), capped.
func expectedLine(texts ...string) string {
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			l := strings.ToLower(line)
			if strings.Contains(l, "expect") || strings.Contains(l, "want") {
				return capText(strings.TrimSpace(line), 300)
			}
		}
	}
	return ""
}

// ofTest returns the attempts on one test.
func ofTest(atts []tracked, test string) []tracked {
	var out []tracked
	for _, a := range atts {
		if a.Test == test {
			out = append(out, a)
		}
	}
	return out
}

// capText cuts s to at most n runes, marking the cut.
func capText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// scopeReason explains, when it applies, that attempts count as failed
// because of scope violations even though the test passes.
func scopeReason(atts []tracked) string {
	for _, a := range atts {
		if a.Source == SourceScope {
			return fmt.Sprintf(" Attempt %d counts as failed because it changed files outside the "+
				"slice's scope without justification.", a.Number)
		}
	}
	return ""
}

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
