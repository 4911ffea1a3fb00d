package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// maxAgentWords bounds the block addressed to the agent.
const maxAgentWords = 2000

// AgentWords is a short plain-text block addressed to the agent that
// pushed, for the places agents that iterate on CI read: the failed
// check's text and the job's log (issue 32). Before the trip it says how
// many failed pushes (or attempts on a test) are left and what the
// protocol asks of the next push; at the trip, seed 000's rule: stop
// changing code, do not push again, write the diagnosis on the pull
// request and wait for a human. "" while nothing has failed. Test names
// and CI's error come from the results, which the agent's code writes:
// each is one clipped line, and the caller puts the block in a code block
// (CodeBlock) or the log's untrusted section, never in markdown as is.
func AgentWords(d breaker.Decision) string {
	left := d.TripsLeft()
	if !d.Tripped && left < 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("To the agent working on this branch, from the circuit breaker in CI:\n\n")
	if d.Tripped {
		fmt.Fprintf(&b, "The circuit breaker is OPEN (%s): this pull request is stopped.\n", plainTrip(d))
		b.WriteString("- Stop changing code. Do not push again.\n")
		b.WriteString("- Write your diagnosis as a comment on the pull request: what you tried, CI's error,\n")
		b.WriteString("  your best hypothesis for the root cause, and the one question a person must answer.\n")
		b.WriteString("- Then wait for a human: a maintainer resets the breaker when you may go on.\n")
		return clipBlock(b.String())
	}
	switch left {
	case 0, 1:
		b.WriteString("One more failed push stops this pull request.\n")
	default:
		fmt.Fprintf(&b, "%d more failed pushes stop this pull request.\n", left)
	}
	if d.FailedInARow > 0 && d.Limits.NoProgress > 0 {
		fmt.Fprintf(&b, "- Pushes in a row without progress: %d of %d.\n", d.FailedInARow, d.Limits.NoProgress)
	}
	worst, err := worstTest(d)
	if worst != nil && worst.FailedAttempts > 0 {
		fmt.Fprintf(&b, "- %s has failed %d of %d attempts.\n", SafeLine(Clip(worst.Name, 200)), worst.FailedAttempts, d.Limits.PerTest)
	}
	b.WriteString("Before the next push: read CI's error, make one targeted change for one failing test,\n")
	b.WriteString("and say in the commit message what you changed and why.\n")
	if err != "" {
		fmt.Fprintf(&b, "CI's error: %s\n", SafeLine(Clip(err, 300)))
	}
	if worst != nil {
		prefix := d.TrailerPrefix
		if prefix == "" {
			prefix = breaker.DefaultTrailerPrefix
		}
		fmt.Fprintf(&b, "If you write commit trailers: %sTest: %s and %sStrategy: <what you try>.\n", prefix, SafeLine(Clip(worst.Name, 200)), prefix)
	}
	return clipBlock(b.String())
}

// plainTrip is why the breaker tripped, in words without markdown.
func plainTrip(d breaker.Decision) string {
	s := strings.ReplaceAll(tripReason(d), "`", "")
	if d.TripReason == breaker.TripPerTest && d.TrippedTest != "" {
		s += " on " + SafeLine(Clip(d.TrippedTest, 200))
	}
	return s
}

// worstTest is the test with the most failed attempts, and CI's error at
// its newest attempt that has one.
func worstTest(d breaker.Decision) (*breaker.TestSummary, string) {
	var worst *breaker.TestSummary
	for i := range d.Tests {
		if t := &d.Tests[i]; worst == nil || t.FailedAttempts > worst.FailedAttempts {
			worst = t
		}
	}
	if worst == nil {
		return nil, ""
	}
	for i := len(worst.Attempts) - 1; i >= 0; i-- {
		if e := worst.Attempts[i].Error; e != "" {
			line, _, _ := strings.Cut(strings.TrimSpace(e), "\n")
			return worst, line
		}
	}
	return worst, ""
}

func clipBlock(s string) string {
	if len(s) > maxAgentWords {
		s = Clip(s, maxAgentWords-1) + "\n"
	}
	return s
}
