package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// MaxPrior bounds the prior-attempts block a reset records.
const MaxPrior = 6000

// maxPriorAttempts is how many attempts, newest kept, the block lists.
const maxPriorAttempts = 12

// PriorAttempts is seed 001 §6's <prior_attempts> block for the agent's
// next invocation after a reset (issue 32): why the circuit tripped, what
// each attempt tried (its strategy, or its subject, and the files it
// touched), CI's error at it, the best hypothesis, and the maintainer's
// guidance. d is the decision as it stood before the reset. Everything in
// it is one line per field, clipped; the whole is bounded by MaxPrior.
func PriorAttempts(d breaker.Decision, author, guidance string) string {
	var b strings.Builder
	b.WriteString("<prior_attempts>\n")
	switch {
	case d.Tripped:
		fmt.Fprintf(&b, "Circuit tripped after %d failed attempts in slice %s: %s.\n", d.TotalFailed, priorLine(d.Slice, 100), plainTrip(d))
	default:
		fmt.Fprintf(&b, "Reset after %d failed attempts in slice %s.\n", d.TotalFailed, priorLine(d.Slice, 100))
	}
	diags := d.Diagnostics
	if len(diags) == 0 {
		diags = attemptDiagnostics(d.Attempts)
	}
	for _, dg := range diags {
		name := dg.Test
		if name == "" {
			name = "(no test named)"
		}
		fmt.Fprintf(&b, "\nFor test %q:\n- what was tried:\n", priorLine(name, 200))
		log := dg.AttemptLog
		if len(log) > maxPriorAttempts {
			fmt.Fprintf(&b, "  (the %d newest of %d)\n", maxPriorAttempts, len(log))
			log = log[len(log)-maxPriorAttempts:]
		}
		for _, a := range log {
			fmt.Fprintf(&b, "  - %d (%s): %s", a.Attempt, breaker.ShortSHA(a.SHA), priorLine(a.Strategy, 200))
			if len(a.Files) > 0 {
				names := make([]string, 0, min(len(a.Files), 5))
				for _, f := range a.Files[:min(len(a.Files), 5)] {
					names = append(names, priorLine(f, 120))
				}
				more := ""
				if len(a.Files) > 5 {
					more = fmt.Sprintf(" and %d more", len(a.Files)-5)
				}
				fmt.Fprintf(&b, "; files: %s%s", strings.Join(names, ", "), more)
			}
			fmt.Fprintf(&b, "; result: %s\n", priorLine(a.Result, 120))
		}
		if e := strings.TrimSpace(dg.ActualError); e != "" {
			first, _, _ := strings.Cut(e, "\n")
			fmt.Fprintf(&b, "- CI's error: %s\n", priorLine(first, 300))
		}
		if h := dg.BestHypothesis; h != "" {
			fmt.Fprintf(&b, "- hypothesis: %s\n", priorLine(h, 400))
		}
	}
	if len(diags) == 0 {
		b.WriteString("\nNo attempt was recorded (no commit since the checkpoint, or none observed).\n")
	}
	g := strings.TrimSpace(guidance)
	if g == "" {
		g = "(none given)"
	}
	fmt.Fprintf(&b, "\nGuidance from %s: %s\n", priorLine(author, 100), priorLine(g, 1500))
	b.WriteString("Do not repeat a strategy listed above.\n</prior_attempts>\n")
	s := b.String()
	if len(s) > MaxPrior {
		const tail = "…\n</prior_attempts>\n"
		cut := MaxPrior - len(tail)
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + tail
	}
	return s
}

// attemptDiagnostics groups declared attempts by test, as a diagnostic's
// attempt log, when the decision carries no diagnostics.
func attemptDiagnostics(atts []breaker.Attempt) []breaker.Diagnostic {
	var out []breaker.Diagnostic
	at := map[string]int{}
	for _, a := range atts {
		i, ok := at[a.Test]
		if !ok {
			i = len(out)
			at[a.Test] = i
			out = append(out, breaker.Diagnostic{Test: a.Test})
		}
		files := make([]string, len(a.Files))
		for j, f := range a.Files {
			files[j] = f.Path
		}
		out[i].AttemptLog = append(out[i].AttemptLog, breaker.LogEntry{Attempt: a.Number, SHA: a.SHA, Strategy: a.Strategy, Files: files, Result: string(a.Result)})
		if a.Error != "" {
			out[i].ActualError = a.Error
		}
	}
	return out
}

// priorLine is one field of the block: one line, clipped, without
// terminal controls, and never able to close the block early.
func priorLine(s string, n int) string {
	s = SafeLine(Clip(s, n))
	return strings.ReplaceAll(s, "</prior_attempts>", "</prior_attempts >")
}
