package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// resultRunes caps a result shown on one line of an attempts log; the exact
// output is in the collapsed block that follows the log.
const resultRunes = 240

func countsTable(d breaker.Decision) string {
	return "### Failed attempts\n\n" + countsRows(d) +
		fmt.Sprintf("\n**Slice total:** %d/%d failed attempts\n", d.TotalFailed, d.Limits.Slice)
}

// countsRows is the per-test counts' table, or a line saying there is none.
func countsRows(d breaker.Decision) string {
	if len(d.Tests) == 0 {
		return "No attempt in this slice yet.\n"
	}
	var b strings.Builder
	b.WriteString("| Test | Failed attempts | Status this run |\n|------|-----------------|-----------------|\n")
	for _, t := range d.Tests {
		fmt.Fprintf(&b, "| %s | %d/%d | %s |\n", cell(t.Name), t.FailedAttempts, d.Limits.PerTest, inline(t.Status))
	}
	return b.String()
}

func diagnosticsBlocks(d breaker.Decision) []block {
	n := len(d.Diagnostics)
	if n == 0 && d.TripReason == breaker.TripManual {
		return []block{fixed("No test of this slice is failing: there is nothing to diagnose.\n")}
	}
	var bs []block
	for i, g := range d.Diagnostics {
		if n > 1 {
			bs = append(bs, fixed(fmt.Sprintf("---\n\n**Diagnostic %d of %d:** %s\n", i+1, n, span(g.Test))))
		}
		bs = append(bs, diagnosticBlocks(d, g)...)
	}
	return bs
}

func diagnosticBlocks(d breaker.Decision, g breaker.Diagnostic) []block {
	bs := []block{
		fixed("### What the test expects\n\n" + textOr(g.TestExpectation, "_Not stated._")),
		codeSection("### What actually happens\n\n", g.ActualError, "_No output was captured for this test._\n"),
		fixed("### Attempts log\n\n" + earlierAttempts(d) + attemptLog(g.AttemptLog)),
	}
	for _, a := range attemptsFor(d, g.Test) {
		if a.Error != "" && a.Error != g.ActualError {
			bs = append(bs, attemptOutput(a))
		}
	}
	return append(bs,
		fixed("### Files modified (cumulative)\n\n"+filesTable(g.CumulativeFiles)),
		fixed("### Scope violations\n\n"+scopeSection(d.Scope, g.ScopeViolations)),
		fixed("### Best hypothesis\n\n"+textOr(g.BestHypothesis, "_None given._")),
		fixed("### What I need from you\n\n"+textOr(g.SpecificQuestion, "_No question given._")),
		fixed("### Recovery options\n\n"+recoveryList(g.RecoveryOptions)),
	)
}

// textOr renders untrusted prose as a paragraph, or the fallback when empty.
func textOr(s, fallback string) string {
	if t := EscapeText(s); t != "" {
		return t + "\n"
	}
	return fallback + "\n"
}

// codeSection is a heading and a fenced block whose content may be shortened.
func codeSection(heading, code, empty string) block {
	if strings.TrimSpace(code) == "" {
		return fixed(heading + empty)
	}
	return shrinkable(code, func(c string) string { return heading + CodeBlock(c, "text") })
}

func attemptLog(es []breaker.LogEntry) string { return logRows(es, "attempt") }

// logRows renders the attempts log, each row labelled unit ("attempt", or
// "push" for the evidence diagnostic's rows).
func logRows(es []breaker.LogEntry, unit string) string {
	if len(es) == 0 {
		return "No attempt recorded.\n"
	}
	var b strings.Builder
	for i, e := range es {
		if i == logHead && len(es) > logHead+logTail {
			// A long line of work: its first rows say how it started, the
			// last what it does now; the rows between are in the JSON report
			// (each rendered and then cut by the comment's size bound cost
			// a thousand-push run a tenth of its CPU). The list starts again
			// after the gap, numbered where it resumes.
			plural := unit + "s"
			if strings.HasSuffix(unit, "sh") {
				plural = unit + "es"
			}
			fmt.Fprintf(&b, "\n_(%d more %s, in the JSON report)_\n\n", len(es)-logHead-logTail, plural)
		}
		if i >= logHead && i < len(es)-logTail {
			continue
		}
		fmt.Fprintf(&b, "%d. %s -> files: %s -> result: %s (%s %d, %s)\n",
			i+1, strategy(e.Strategy), fileList(e.Files), resultText(e.Result), unit, e.Attempt, shaSpan(e.SHA))
	}
	return b.String()
}

// A log longer than logHead + logTail rows shows its first logHead and its
// last logTail.
const logHead, logTail = 5, 30

func strategy(s string) string {
	if t := inline(s); t != "" {
		return "**" + t + "**"
	}
	return "_(no strategy given)_"
}

func fileList(files []string) string {
	spans := make([]string, 0, len(files))
	for _, f := range files {
		spans = append(spans, span(f))
	}
	return "[" + strings.Join(spans, ", ") + "]"
}

// resultText is the first line of a result, capped for the one-line log.
func resultText(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(stripControls(s)), "\n")
	if t := EscapeInline(truncateRunes(first, resultRunes)); t != "" {
		return t
	}
	return "_(none)_"
}

// attemptsFor returns the attempts on one test, from the slice's attempts.
func attemptsFor(d breaker.Decision, test string) []breaker.Attempt {
	var out []breaker.Attempt
	for _, a := range d.Attempts {
		if a.Test == test {
			out = append(out, a)
		}
	}
	return out
}

// attemptOutput is a collapsed block with one attempt's exact output.
func attemptOutput(a breaker.Attempt) block {
	summary := fmt.Sprintf("<details>\n<summary>Output of attempt %d (<code>%s</code>, %s)</summary>\n\n",
		a.Number, htmlText(breaker.ShortSHA(a.SHA)), htmlText(string(a.Result)))
	agent := ""
	if a.AgentError != "" && a.AgentError != a.Error {
		agent = "The agent reported: " + resultText(a.AgentError) + "\n\n"
	}
	return shrinkable(a.Error, func(c string) string {
		return summary + agent + CodeBlock(c, "text") + "\n</details>\n"
	})
}

func filesTable(ts []breaker.FileTouch) string {
	if len(ts) == 0 {
		return "None.\n"
	}
	var b strings.Builder
	b.WriteString("| File | Change Type | Attempts |\n|------|-------------|----------|\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(t.Path), changeWord(t.Change), numbers(t.Attempts))
	}
	return b.String()
}

// changeWord is the seed's word for a change type: an added file is "created".
func changeWord(c breaker.ChangeType) string {
	if c == breaker.ChangeAdded {
		return "created"
	}
	return inline(string(c))
}

func numbers(ns []int) string {
	parts := make([]string, 0, len(ns))
	for _, n := range ns {
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ", ")
}

func scopeSection(s breaker.ScopeInfo, fs []breaker.ScopeFinding) string {
	off := ""
	if !s.Enabled {
		off = "The scope lock is off, so no file was checked against the slice's scope"
		if s.Note != "" {
			off += ": " + inline(s.Note)
		}
		off += ".\n"
		if len(fs) == 0 {
			return off
		}
		off += "\n"
	}
	return off + findingsTable(fs)
}

func findingsTable(fs []breaker.ScopeFinding) string {
	if len(fs) == 0 {
		return "None.\n"
	}
	var b strings.Builder
	b.WriteString("| File | Justification Given | Test | Verdict |\n|------|---------------------|------|---------|\n")
	for _, f := range fs {
		just := inline(f.Justification)
		if just == "" {
			just = "_none_"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(f.File), just, cell(f.Test), inline(f.Verdict))
	}
	return b.String()
}

func recoveryList(rs []breaker.RecoveryOption) string {
	if len(rs) == 0 {
		return "None.\n"
	}
	var b strings.Builder
	for _, r := range rs {
		line := "- [ ] " + strings.TrimSuffix(EscapeInline(r.Option), ":")
		if r.Command != "" {
			line += ": " + CodeSpan(r.Command)
		}
		if r.Risk != "" {
			line += " (risk: " + EscapeInline(r.Risk) + ")"
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// earlierAttempts says how many attempts the log leaves out: the ones the
// pushes before the newest were judged for, counted and not listed.
func earlierAttempts(d breaker.Decision) string {
	e := d.Earlier
	if e.Attempts == 0 {
		return ""
	}
	return fmt.Sprintf("_%d earlier %s in the slice (%d failed) %s judged when %s left the newest %d pushes: counted in the figures above, not listed here._\n\n",
		e.Attempts, Plural(e.Attempts, "attempt", "attempts"), e.FailedAttempts, Plural(e.Attempts, "was", "were"),
		Plural(e.Attempts, "its push", "their pushes"), breaker.Window)
}
