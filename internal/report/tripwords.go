package report

import (
	"fmt"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// reasons are the words of greenlight's trip reasons, the one home of
// them: as the seed says a reason (the report's trip reason line, the text
// report, the agent's words) and as the headline says why the breaker
// stopped the pull request. A policy's own reasons come with its view
// (policyView.reasons). name renders a test or slice name for the output
// at hand: a code span in markdown, a safe line in text.
var reasons = map[breaker.TripReason]reasonWords{
	breaker.TripPerTest: {
		seed: func(d breaker.Decision, _ func(string) string) string {
			return fmt.Sprintf("per-test limit (%d/%d)", max(d.TripCount, failedOf(d, d.TrippedTest)), d.Limits.PerTest)
		},
		stopped: func(d breaker.Decision, name func(string) string) string {
			if d.TrippedTest != "" {
				return "the agent is looping on " + name(d.TrippedTest)
			}
			return "the agent is looping on one test"
		},
	},
	breaker.TripSliceCeiling: {
		seed: func(d breaker.Decision, _ func(string) string) string {
			return fmt.Sprintf("slice ceiling (%d/%d)", d.TotalFailed, d.Limits.Slice)
		},
		stopped: func(d breaker.Decision, name func(string) string) string {
			return fmt.Sprintf("%d failed attempts in slice %s", d.TotalFailed, name(d.Slice))
		},
	},
	breaker.TripNoProgress: {
		seed: func(d breaker.Decision, _ func(string) string) string {
			return fmt.Sprintf("no progress (%d failed pushes in a row; CI's evidence)", d.Limits.NoProgress)
		},
		stopped: func(d breaker.Decision, _ func(string) string) string {
			return fmt.Sprintf("%d pushes in a row without progress", d.Limits.NoProgress)
		},
	},
	breaker.TripNoResults: {
		seed: func(d breaker.Decision, _ func(string) string) string {
			return fmt.Sprintf("no results (%d pushes in a row whose test results were missing)", d.Limits.NoProgress)
		},
		stopped: func(d breaker.Decision, _ func(string) string) string {
			return fmt.Sprintf("%d pushes in a row without test results", d.Limits.NoProgress)
		},
	},
	breaker.TripLedgerTampered: {
		seed: func(breaker.Decision, func(string) string) string {
			return "ledger tampered (an entry of CI's evidence does not verify)"
		},
		stopped: func(breaker.Decision, func(string) string) string { return "a record of CI's evidence does not verify" },
	},
	breaker.TripAgentOpen: {
		seed: func(breaker.Decision, func(string) string) string {
			return "agent open (the same agent's line of work elsewhere is OPEN, and this one repeats it)"
		},
		stopped: func(breaker.Decision, func(string) string) string {
			return "the same agent's other pull request is stopped, and this one repeats it"
		},
	},
	breaker.TripManual: {
		seed: func(breaker.Decision, func(string) string) string {
			return "manual (a human asked for this diagnostic)"
		},
		stopped: func(breaker.Decision, func(string) string) string { return "a human asked for this diagnostic" },
	},
}

// wordsOf are the words of the decision's trip reason: the policy's own
// when it owns the reason, else greenlight's; false for none or an unknown
// one.
func wordsOf(d breaker.Decision) (reasonWords, bool) {
	if w, ok := policyReason(d); ok {
		return w, true
	}
	w, ok := reasons[d.TripReason]
	return w, ok
}

// tripReason words the trip reason as the seed does: "per-test limit
// (3/3)".
func tripReason(d breaker.Decision) string {
	if w, ok := wordsOf(d); ok {
		return w.seed(d, span)
	}
	if d.TripReason == breaker.TripNone {
		if dist := distance(d, span); dist != "" {
			return "none yet (" + dist + ")"
		}
		return "none (nothing has failed in this slice)"
	}
	return inline(string(d.TripReason))
}

// stoppedWords say in plain words why the breaker stopped the pull
// request (the machine's reason stays in the JSON and the state line).
func stoppedWords(d breaker.Decision) string {
	if w, ok := wordsOf(d); ok && d.TripReason != breaker.TripManual {
		return w.stopped(d, span)
	}
	return "the circuit breaker tripped"
}

// TextTripReason is the trip line of the text report, for a log or an
// annotation: "tripped: per-test limit (3/3) on TestLogin".
func TextTripReason(d breaker.Decision) string { return textReason(d) }

// textReason is the text report's trip line.
func textReason(d breaker.Decision) string {
	switch d.TripReason {
	case breaker.TripNone:
		return "not tripped"
	case breaker.TripManual:
		return "diagnostic requested by a human"
	}
	w, ok := wordsOf(d)
	if !ok {
		return "trip reason " + SafeLine(string(d.TripReason))
	}
	line := "tripped: " + w.seed(d, SafeLine)
	if d.TripReason == breaker.TripPerTest {
		line += " on " + SafeLine(d.TrippedTest)
	}
	return line
}
