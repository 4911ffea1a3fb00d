package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func init() {
	policyViews[breaker.PolicyLiza] = policyView{section: lizaSection, line: lizaLine,
		json: func(d breaker.Decision) any { return reportLiza(lizaOf(d)) },
		reasons: map[breaker.TripReason]reasonWords{
			breaker.TripPattern: {
				seed:    func(breaker.Decision, func(string) string) string { return "anomaly pattern (liza)" },
				stopped: func(breaker.Decision, func(string) string) string { return "an anomaly pattern (liza)" },
			},
		}}
}

// lizaOf is the liza state of a decision made under liza.
func lizaOf(d breaker.Decision) *breaker.LizaState {
	l, _ := d.Detail.(*breaker.LizaState)
	return l
}

// lizaLine is the text report's line.
func lizaLine(d breaker.Decision) string {
	l := lizaOf(d)
	if l.Pattern == "" {
		return fmt.Sprintf("liza %s: %d anomalies, no pattern", l.Status, len(l.Anomalies))
	}
	return fmt.Sprintf("liza %s: %s (%s), %d anomalies", l.Status, l.Pattern, l.Severity, len(l.Anomalies))
}

// lizaSection is seed 004's report: pattern and severity, the trigger
// evidence, the affected artifacts, the recommended actions and the human
// decision.
func lizaSection(d breaker.Decision) string {
	l := lizaOf(d)
	var b strings.Builder
	if l.Status != "TRIGGERED" {
		fmt.Fprintf(&b, "### Liza circuit breaker\n\nNo anomaly pattern: %d anomalies read (%d derived from CI's evidence).\n", len(l.Anomalies), derived(l.Anomalies))
		return b.String()
	}
	fmt.Fprintf(&b, "### Circuit Breaker Report\n\n**Pattern:** %s\\\n**Severity:** %s\n\n", inline(l.Pattern), inline(l.Severity))
	b.WriteString("#### Trigger Evidence\n\n| Task | Anomaly | Detail | Reporter |\n|---|---|---|---|\n")
	for _, a := range lastN(l.Evidence, 30) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(a.Task), inline(a.Type), cell(anomalyDetail(a)), cell(a.Reporter))
	}
	b.WriteString("\n#### Affected Artifacts\n\n")
	if arts := artifacts(l.Evidence); len(arts) > 0 {
		b.WriteString("| Artifact | Named by |\n|---|---|\n")
		for _, a := range arts {
			fmt.Fprintf(&b, "| %s | %s |\n", cell(a[0]), cell(a[1]))
		}
	} else {
		b.WriteString("The anomalies name no artifact (`spec_ref`, `artifact` or `file` in their details).\n")
	}
	b.WriteString("\n#### Recommended Actions\n\n1. HALT current sprint (done: the check fails)\n")
	for i, a := range severityActions[l.Severity] {
		fmt.Fprintf(&b, "%d. %s\n", i+2, a)
	}
	b.WriteString("\n#### Human Decision Required\n\n- [ ] Acknowledge report\n- [ ] Confirm severity assessment\n- [ ] Assign the corrective work\n" +
		"- [ ] Release the checkpoint with the decision logged: `/breaker reset <decision>`\n")
	return b.String()
}

var severityActions = map[string][]string{
	"ARCHITECTURE_FLAW":   {"CREATE an ADR for the recurring failure", "UPDATE the affected specs", "REASSESS the affected tasks", "RESUME after the artifacts are updated"},
	"SCOPE_FLAW":          {"REVISE the PRD or requirements: the trade-offs are creating debt", "REASSESS the affected tasks", "RESUME after the scope is settled"},
	"SPEC_FLAW":           {"UPDATE the specs the anomalies point at", "REASSESS the affected tasks", "RESUME after the specs are updated"},
	"EXTERNAL_DEPENDENCY": {"WAIT for the external service, or escalate to its owners", "RESUME when it is back: this is not the agents' problem"},
}

func anomalyDetail(a breaker.Anomaly) string {
	for _, k := range []string{"error_pattern", "assumption", "root_cause", "blocker_service", "spec_ref", "what"} {
		if v := a.Details[k]; v != "" {
			return k + ": " + v
		}
	}
	return ""
}

// artifacts are the artifacts the evidence names, each once, with the task
// that named it.
func artifacts(as []breaker.Anomaly) [][2]string {
	seen := map[string]bool{}
	var out [][2]string
	for _, a := range as {
		for _, k := range []string{"spec_ref", "artifact", "file"} {
			if v := a.Details[k]; v != "" && !seen[v] {
				seen[v] = true
				out = append(out, [2]string{v, a.Task})
			}
		}
	}
	return out
}

func derived(as []breaker.Anomaly) int {
	n := 0
	for _, a := range as {
		if a.Derived {
			n++
		}
	}
	return n
}

// ReportLiza is what the liza policy found (seed 004).
type ReportLiza struct {
	Status    string            `json:"status"`
	Pattern   *string           `json:"pattern"`
	Severity  *string           `json:"severity"`
	Evidence  []ReportAnomaly   `json:"evidence"`
	Matches   []ReportLizaMatch `json:"matches"`
	Anomalies []ReportAnomaly   `json:"anomalies"`
}

// ReportLizaMatch is a pattern that matched.
type ReportLizaMatch struct {
	Pattern  string `json:"pattern"`
	Severity string `json:"severity"`
	Key      string `json:"key"`
	Count    int    `json:"count"`
}

// ReportAnomaly is one anomaly, logged or derived.
type ReportAnomaly struct {
	Timestamp string            `json:"timestamp"`
	Task      string            `json:"task"`
	Reporter  string            `json:"reporter"`
	Type      string            `json:"type"`
	Details   map[string]string `json:"details"`
	Derived   bool              `json:"derived"`
}

func reportLiza(l *breaker.LizaState) *ReportLiza {
	if l == nil {
		return nil
	}
	out := &ReportLiza{Status: l.Status, Pattern: nullable(l.Pattern), Severity: nullable(l.Severity),
		Evidence: reportAnomalies(l.Evidence), Matches: []ReportLizaMatch{}, Anomalies: reportAnomalies(l.Anomalies)}
	for _, m := range l.Matches {
		out.Matches = append(out.Matches, ReportLizaMatch{Pattern: m.Pattern, Severity: m.Severity, Key: m.Key, Count: m.Count})
	}
	return out
}

func reportAnomalies(as []breaker.Anomaly) []ReportAnomaly {
	out := []ReportAnomaly{}
	for _, a := range as {
		d := a.Details
		if d == nil {
			d = map[string]string{}
		}
		out = append(out, ReportAnomaly{Timestamp: a.Timestamp, Task: a.Task, Reporter: a.Reporter, Type: a.Type, Details: d, Derived: a.Derived})
	}
	return out
}
