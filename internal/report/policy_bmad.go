package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func init() {
	policyViews[breaker.PolicyBMAD] = policyView{section: bmadSection, line: bmadLine,
		json: func(d breaker.Decision) any { return reportBMAD(bmadOf(d)) },
		reasons: map[breaker.TripReason]reasonWords{
			breaker.TripConsecutiveFailures: {
				seed: func(breaker.Decision, func(string) string) string {
					return "consecutive failures (bmad: failed pushes in a row at the threshold)"
				},
				stopped: func(breaker.Decision, func(string) string) string { return "failed pushes in a row (bmad)" },
			},
		}}
}

// bmadOf is the bmad state of a decision made under bmad.
func bmadOf(d breaker.Decision) *breaker.BMADState {
	m, _ := d.Detail.(*breaker.BMADState)
	return m
}

// bmadLine is the text report's line.
func bmadLine(d breaker.Decision) string {
	m := bmadOf(d)
	return fmt.Sprintf("bmad %s: %d consecutive failed sessions (threshold %d), %d sessions", m.Status, m.ConsecutiveFailures, m.Threshold, m.EarlierSessions+len(m.Sessions))
}

// bmadSection is seed 003's summary: the banner, statistics, the last 5
// sessions, the failing tests and the recommended actions.
func bmadSection(d breaker.Decision) string {
	m := bmadOf(d)
	var b strings.Builder
	b.WriteString("### BMAD circuit breaker\n\n")
	if m.Status == "TRIGGERED" {
		rule := strings.Repeat("═", 56)
		b.WriteString(CodeBlock(fmt.Sprintf("%s\n  CIRCUIT BREAKER TRIGGERED\n  Human Intervention Required\n%s\n\nConsecutive Failures: %d\nThreshold: %d",
			rule, rule, m.ConsecutiveFailures, m.Threshold), "text") + "\n\n")
	}
	fmt.Fprintf(&b, "| Status | Sessions | Succeeded | Failed | Consecutive failures | Threshold |\n|---|---|---|---|---|---|\n"+
		"| %s | %d | %d | %d | %d | %d |\n\n", inline(m.Status), m.EarlierSessions+len(m.Sessions), m.Succeeded, m.Failed, m.ConsecutiveFailures, m.Threshold)
	if len(m.Sessions) > 0 {
		b.WriteString("Last sessions:\n\n| Head | Observed | Result | Passing | Failing | Newly passing |\n|---|---|---|---|---|---|\n")
		for _, s := range lastN(m.Sessions, 5) {
			res := "failed"
			if s.Succeeded {
				res = "succeeded"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s |\n", shaSpan(s.Head), when(s.ObservedAt.UTC().Format("2006-01-02 15:04"), s.ObservedAt.IsZero()),
				res, s.Passing, s.Failing, nameList(s.NewlyPassing))
		}
		b.WriteString("\n")
	}
	if len(m.FailingTests) > 0 {
		b.WriteString("Failing tests: " + nameList(m.FailingTests) + "\n\n")
	}
	if m.Status == "TRIGGERED" {
		b.WriteString("Recommended actions:\n\n1. Read the failing tests' errors above and find the root cause the sessions kept missing.\n" +
			"2. Fix it, or change the plan (split the feature, block it), before the agent resumes.\n" +
			"3. Answer `/breaker reset` on the pull request, with guidance for the agent.\n" +
			"4. If failures are expected for this feature, raise `threshold` (3 to 10 recommended) rather than removing the breaker.\n")
	}
	return b.String()
}

// ReportBMAD is the bmad policy's state (seed 003).
type ReportBMAD struct {
	Status              string              `json:"status"`
	ConsecutiveFailures int                 `json:"consecutive_failures"`
	Threshold           int                 `json:"threshold"`
	Succeeded           int                 `json:"succeeded"`
	Failed              int                 `json:"failed"`
	FailingTests        []string            `json:"failing_tests"`
	Sessions            []ReportBMADSession `json:"sessions"`
	// EarlierSessions are the sessions since the reset before Sessions
	// (the newest 16 pushes' ones): counted, not listed.
	EarlierSessions int `json:"earlier_sessions"`
}

// ReportBMADSession is one session (an observed push).
type ReportBMADSession struct {
	Head         string   `json:"head"`
	ObservedAt   *string  `json:"observed_at"`
	Succeeded    bool     `json:"succeeded"`
	NewlyPassing []string `json:"newly_passing"`
	Passing      int      `json:"passing"`
	Failing      int      `json:"failing"`
}

func reportBMAD(b *breaker.BMADState) *ReportBMAD {
	if b == nil {
		return nil
	}
	out := &ReportBMAD{Status: b.Status, ConsecutiveFailures: b.ConsecutiveFailures, Threshold: b.Threshold,
		Succeeded: b.Succeeded, Failed: b.Failed, FailingTests: nonNil(b.FailingTests), Sessions: []ReportBMADSession{}, EarlierSessions: b.EarlierSessions}
	for _, s := range b.Sessions {
		out.Sessions = append(out.Sessions, ReportBMADSession{Head: s.Head, ObservedAt: rfc3339(s.ObservedAt), Succeeded: s.Succeeded,
			NewlyPassing: nonNil(s.NewlyPassing), Passing: s.Passing, Failing: s.Failing})
	}
	return out
}
