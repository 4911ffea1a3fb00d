package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// extraBlocks are the sections after the diagnostics: scope findings when no
// diagnostic showed them, misreported results, notes, and what was tried
// before the last reset.
func extraBlocks(d breaker.Decision) []block {
	var bs []block
	if len(d.Diagnostics) == 0 && len(d.Violations) > 0 {
		bs = append(bs, fixed("### Scope violations\n\n"+scopeSection(d.Scope, d.Violations)))
	}
	if len(d.Misreports) > 0 {
		bs = append(bs, fixed(misreports(d)))
	}
	if len(d.Notes) > 0 {
		bs = append(bs, fixed(notes(d.Notes)))
	}
	if len(d.Prior) > 0 {
		bs = append(bs, fixed(priorAttempts(d.Prior)))
	}
	return bs
}

func misreports(d breaker.Decision) string {
	ms := d.Misreports
	var b strings.Builder
	b.WriteString("### Misreported results\n\n" +
		"These attempts claimed a result in their " + inline(trailerKey(d, breaker.TrailerResult)) + " trailer that CI contradicted; " +
		"each counts as a failed attempt.\n\n" +
		"| Commit | Test | Claimed | CI observed |\n|--------|------|---------|-------------|\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n",
			shaSpan(m.SHA), cell(m.Test), inline(m.Claimed), inline(string(m.Observed)))
	}
	return b.String()
}

func notes(ns []string) string {
	var b strings.Builder
	b.WriteString("### Notes\n\n")
	for _, n := range ns {
		b.WriteString("- " + EscapeInline(n) + "\n")
	}
	return b.String()
}

// priorAttempts lists, collapsed, the attempts made before the reset, so the
// next try does not repeat them.
func priorAttempts(as []breaker.Attempt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<details>\n<summary>Already tried before the reset (%d %s)</summary>\n\n",
		len(as), plural(len(as), "attempt", "attempts"))
	for i, a := range as {
		result := string(a.Result)
		if a.Error != "" {
			result += ": " + a.Error
		}
		fmt.Fprintf(&b, "%d. %s on %s -> files: %s -> result: %s (%s)\n",
			i+1, strategy(a.Strategy), span(a.Test), fileList(paths(a.Files)), resultText(result), shaSpan(a.SHA))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func truncationNote(fullReport string) string {
	note := "**This report was truncated** to fit GitHub's size limit. The full diagnostic is in the " +
		"workflow log and in the JSON report (`breaker evaluate --format json`, or the file named " +
		"by the action's `report-json` output)."
	if strings.TrimSpace(fullReport) != "" {
		note += " Full report: " + EscapeInline(fullReport)
	}
	return note + "\n"
}
