package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func init() {
	policyViews[breaker.PolicyPRP] = policyView{section: prpSection, line: prpLine,
		json: func(d breaker.Decision) any { return reportPRP(prpOf(d)) },
		reasons: map[breaker.TripReason]reasonWords{
			breaker.TripSameError: {
				seed: func(breaker.Decision, func(string) string) string {
					return "same error (prp: the same error at the phase's threshold)"
				},
				stopped: func(breaker.Decision, func(string) string) string { return "the same error again and again (prp)" },
			},
			breaker.TripNoProgress: {
				seed: func(d breaker.Decision, _ func(string) string) string {
					p := prpOf(d)
					return fmt.Sprintf("no progress (prp: %d iterations without progress in phase %s)", p.NoProgressCount, p.Phase)
				},
				stopped: func(d breaker.Decision, _ func(string) string) string {
					return fmt.Sprintf("%d iterations without progress (prp, phase %s)", prpOf(d).NoProgressCount, prpOf(d).Phase)
				},
			},
		}}
}

// prpOf is the prp state of a decision made under prp.
func prpOf(d breaker.Decision) *breaker.PRPState {
	p, _ := d.Detail.(*breaker.PRPState)
	return p
}

// prpLine is the text report's line.
func prpLine(d breaker.Decision) string {
	p := prpOf(d)
	return fmt.Sprintf("prp %s, phase %s: no progress %d/%d, same error %d/%d, %d iterations",
		p.State, p.Phase, p.NoProgressCount, p.NoProgressThreshold, p.SameErrorCount, p.SameErrorThreshold, p.Iterations)
}

// prpSection is seed 002's CIRCUIT_BREAKER_OPEN block when OPEN, then the
// counters and the history of state changes.
func prpSection(d breaker.Decision) string {
	p := prpOf(d)
	var b strings.Builder
	b.WriteString("### PRP circuit breaker\n\n")
	if p.State == string(breaker.StateOpen) {
		change := "no change"
		if p.PassingChanged {
			change = "changed at the last iteration"
		}
		block := fmt.Sprintf("---CIRCUIT_BREAKER_OPEN---\nPHASE: %s\nREASON: %s\nITERATIONS: %d\nTESTS_PASSING: %d/%d (%s)\nLAST_ERROR: %s\n\n"+
			"OPTIONS:\n1. [R]eset and retry with current approach: /breaker reset %s\n2. [S]kip %s phase (mark tests as known failures): a person decides on the pull request\n"+
			"3. [A]bort execution: close the pull request\n4. [M]odify approach (provide new guidance): /breaker reset %s <guidance>\n---END_CIRCUIT_BREAKER_OPEN---",
			p.Phase, p.OpenReason, p.Iterations, p.TestsPassing, p.TestsTotal, change, orNone(p.LastError), d.Slice, p.Phase, d.Slice)
		b.WriteString(CodeBlock(truncateRunes(block, 4000), "text") + "\n\n")
		if p.Phase == "GREEN" {
			b.WriteString("In the GREEN phase: consider refactoring the approach or splitting the feature.\n\n")
		}
	}
	fmt.Fprintf(&b, "| State | Phase | No progress | Same error | Iterations | Tests passing |\n|---|---|---|---|---|---|\n"+
		"| %s | %s (%s) | %d/%d | %d/%d | %d | %d/%d |\n\n",
		inline(p.State), inline(p.Phase), inline(p.PhaseSource), p.NoProgressCount, p.NoProgressThreshold,
		p.SameErrorCount, p.SameErrorThreshold, p.Iterations, p.TestsPassing, p.TestsTotal)
	if len(p.History) > 0 {
		b.WriteString("| When | Event | From | To | Reason |\n|---|---|---|---|---|\n")
		for _, h := range lastN(p.History, 20) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", when(h.Timestamp.UTC().Format("2006-01-02 15:04"), h.Timestamp.IsZero()), inline(h.Event),
				inline(h.FromState), inline(h.ToState), inline(h.Reason))
		}
	}
	return b.String()
}

// ReportPRP is the prp policy's state (seed 002's schema).
type ReportPRP struct {
	Phase              string                    `json:"phase"`
	PhaseSource        string                    `json:"phase_source"`
	Thresholds         ReportPRPThresholds       `json:"thresholds"`
	State              string                    `json:"state"`
	NoProgressCount    int                       `json:"no_progress_count"`
	SameErrorCount     int                       `json:"same_error_count"`
	LastProgressMetric map[string]map[string]int `json:"last_progress_metric"`
	LastErrorHash      *string                   `json:"last_error_hash"`
	LastError          *string                   `json:"last_error"`
	OpenedAt           *string                   `json:"opened_at"`
	OpenReason         *string                   `json:"open_reason"`
	Iterations         int                       `json:"iterations"`
	TestsPassing       int                       `json:"tests_passing"`
	TestsTotal         int                       `json:"tests_total"`
	History            []ReportPRPEvent          `json:"history"`
}

// ReportPRPThresholds are the phase's thresholds.
type ReportPRPThresholds struct {
	NoProgress int `json:"no_progress"`
	SameError  int `json:"same_error"`
}

// ReportPRPEvent is one prp history entry.
type ReportPRPEvent struct {
	Timestamp *string `json:"timestamp"`
	Event     string  `json:"event"`
	FromState string  `json:"from_state"`
	ToState   string  `json:"to_state"`
	Reason    string  `json:"reason"`
}

func reportPRP(p *breaker.PRPState) *ReportPRP {
	if p == nil {
		return nil
	}
	out := &ReportPRP{Phase: p.Phase, PhaseSource: p.PhaseSource,
		Thresholds: ReportPRPThresholds{NoProgress: p.NoProgressThreshold, SameError: p.SameErrorThreshold},
		State:      p.State, NoProgressCount: p.NoProgressCount, SameErrorCount: p.SameErrorCount,
		LastProgressMetric: p.LastProgressMetric, LastErrorHash: nullable(p.LastErrorHash), LastError: nullable(p.LastError),
		OpenReason: nullable(p.OpenReason), Iterations: p.Iterations, TestsPassing: p.TestsPassing, TestsTotal: p.TestsTotal,
		History: []ReportPRPEvent{}}
	if out.LastProgressMetric == nil {
		out.LastProgressMetric = map[string]map[string]int{}
	}
	if p.OpenedAt != nil {
		out.OpenedAt = rfc3339(*p.OpenedAt)
	}
	for _, h := range p.History {
		out.History = append(out.History, ReportPRPEvent{Timestamp: rfc3339(h.Timestamp), Event: h.Event, FromState: h.FromState, ToState: h.ToState, Reason: h.Reason})
	}
	return out
}
