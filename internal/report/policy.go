package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// policyBlocks are the other policies' own report sections (seeds 002-004),
// shown after the header in place of greenlight's diagnostics.
func policyBlocks(d breaker.Decision) []block {
	switch {
	case d.PRP != nil:
		return []block{fixed(prpSection(d))}
	case d.BMAD != nil:
		return []block{fixed(bmadSection(d))}
	case d.Liza != nil:
		return []block{fixed(lizaSection(d))}
	}
	return nil
}

// prpSection is seed 002's CIRCUIT_BREAKER_OPEN block when OPEN, then the
// counters and the history of state changes.
func prpSection(d breaker.Decision) string {
	p := d.PRP
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

// bmadSection is seed 003's summary: the banner, statistics, the last 5
// sessions, the failing tests and the recommended actions.
func bmadSection(d breaker.Decision) string {
	m := d.BMAD
	var b strings.Builder
	b.WriteString("### BMAD circuit breaker\n\n")
	if m.Status == "TRIGGERED" {
		rule := strings.Repeat("═", 56)
		b.WriteString(CodeBlock(fmt.Sprintf("%s\n  CIRCUIT BREAKER TRIGGERED\n  Human Intervention Required\n%s\n\nConsecutive Failures: %d\nThreshold: %d",
			rule, rule, m.ConsecutiveFailures, m.Threshold), "text") + "\n\n")
	}
	fmt.Fprintf(&b, "| Status | Sessions | Succeeded | Failed | Consecutive failures | Threshold |\n|---|---|---|---|---|---|\n"+
		"| %s | %d | %d | %d | %d | %d |\n\n", inline(m.Status), len(m.Sessions), m.Succeeded, m.Failed, m.ConsecutiveFailures, m.Threshold)
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

// lizaSection is seed 004's report: pattern and severity, the trigger
// evidence, the affected artifacts, the recommended actions and the human
// decision.
func lizaSection(d breaker.Decision) string {
	l := d.Liza
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

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func when(s string, zero bool) string {
	if zero {
		return ""
	}
	return inline(s)
}

func orNone(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}

// textPolicy is the text report's line for the other policies.
func textPolicy(d breaker.Decision) string {
	switch {
	case d.PRP != nil:
		p := d.PRP
		return fmt.Sprintf("prp %s, phase %s: no progress %d/%d, same error %d/%d, %d iterations",
			p.State, p.Phase, p.NoProgressCount, p.NoProgressThreshold, p.SameErrorCount, p.SameErrorThreshold, p.Iterations)
	case d.BMAD != nil:
		m := d.BMAD
		return fmt.Sprintf("bmad %s: %d consecutive failed sessions (threshold %d), %d sessions", m.Status, m.ConsecutiveFailures, m.Threshold, len(m.Sessions))
	case d.Liza != nil:
		l := d.Liza
		if l.Pattern == "" {
			return fmt.Sprintf("liza %s: %d anomalies, no pattern", l.Status, len(l.Anomalies))
		}
		return fmt.Sprintf("liza %s: %s (%s), %d anomalies", l.Status, l.Pattern, l.Severity, len(l.Anomalies))
	}
	return ""
}
