package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The comment's first screen: what a reviewer reads in seconds (the state,
// CI's output, what was tried, the question), everything else folded in
// closed <details>. Two layouts share it: the evidence diagnostic of an
// agent without trailers, and the diagnostics of declared attempts.

// evidenceOnly reports whether d's one diagnostic was built from the
// observed pushes alone (no declared attempt), returning it.
func evidenceOnly(d breaker.Decision) (breaker.Diagnostic, bool) {
	if len(d.Attempts) > 0 || len(d.Diagnostics) != 1 || len(d.Diagnostics[0].AttemptLog) == 0 || policyBlocks(d) != nil {
		return breaker.Diagnostic{}, false
	}
	return d.Diagnostics[0], true
}

// evidenceBlocks lays out the evidence diagnostic: CI's error, the push
// history, the question and the derived hypothesis in view; what the agent
// tried push by push, the files, the expectation, the scope and the
// recovery options folded in <details>, each closed.
func evidenceBlocks(d breaker.Decision, g breaker.Diagnostic) []block {
	failed, pushes := d.FailedAt(g.Test, false)
	state := stateWords(d)
	if d.Tripped {
		state = "**" + EscapeInline(string(d.State)) + "**" // the title says why
	}
	of := "observed pushes"
	if d.Earlier.Pushes > 0 {
		of = "newest pushes" // the diagnostic speaks of the window
	}
	summary := fmt.Sprintf("%s failed at %d of %d %s · %s · slice %s\n",
		span(g.Test), failed, pushes, of, state, span(d.Slice))
	if out := outOfScope(d); out != "" {
		summary += "\n" + out
	}
	var rest strings.Builder
	rest.WriteString("#### What was tried, push by push (the commits' subjects, the agent's words)\n\n" + logRows(g.AttemptLog, "push"))
	rest.WriteString("\n#### Files modified (cumulative)\n\n" + filesTable(g.CumulativeFiles))
	rest.WriteString("\n#### What the test expects\n\n" + textOr(g.TestExpectation, "_Not stated._"))
	rest.WriteString("\n#### Recovery options\n\n" + recoveryList(g.RecoveryOptions))
	rest.WriteString("\n#### The breaker\n\n" + strings.Join(headerLines(d), "\\\n") + "\n")
	if len(g.ScopeViolations) > 0 {
		rest.WriteString("\n#### Scope violations\n\n" + scopeSection(d.Scope, g.ScopeViolations))
	}
	if len(d.Notes) > 0 {
		rest.WriteString("\n" + notes("####", d.Notes))
	}
	bs := []block{
		fixed(summary + banners(d)),
		actualBlock("**What actually happens** (CI's output at the newest push)\n\n", g.ActualError),
		fixed(pushTable(d)),
		fixed(needLine(g)),
	}
	if len(d.Misreports) > 0 {
		bs = append(bs, fixed(misreports(d)))
	}
	return append(bs, fixed(folded("The full diagnostic: what each push tried, the files, the expectation, the recovery options, the breaker's state and notes", rest.String())))
}

// stateWords is the state in bold and why: the trip reason when tripped,
// else how far the next trip is.
func stateWords(d breaker.Decision) string {
	if !d.Tripped {
		// Words a reviewer knows under a "Running" title, not the
		// protocol's CLOSED in bold.
		if dist := distance(d, span); dist != "" {
			return "Not stopped: " + dist
		}
		return "Not stopped"
	}
	return "**" + EscapeInline(string(d.State)) + "**: " + tripReason(d)
}

// needLine is the question for the human, with the best hypothesis (which
// says whose it is) in italics under it.
func needLine(g breaker.Diagnostic) string {
	line := "**What I need from you:** " + strings.TrimSpace(textOr(g.SpecificQuestion, "_No question given._"))
	if h := strings.TrimSpace(textOr(g.BestHypothesis, "")); h != "" {
		line += "\\\n_" + h + "_"
	}
	return line + "\n"
}

// folded is a closed <details> with a summary (our words) and a body.
func folded(summary, body string) string {
	return "<details>\n<summary>" + summary + "</summary>\n\n" + body + "\n</details>\n"
}

// outOfScope is the line that names the files changed outside the slice's
// scope without a justification, or "" when there is none: the spread of
// changes a reviewer must see without unfolding anything.
func outOfScope(d breaker.Decision) string {
	var files []string
	seen := map[string]bool{}
	for _, g := range d.Diagnostics {
		for _, f := range g.ScopeViolations {
			if f.Verdict == "violation" && !seen[f.File] {
				seen[f.File] = true
				files = append(files, f.File)
			}
		}
	}
	if len(files) == 0 {
		return ""
	}
	return fmt.Sprintf("**Out of scope:** %d %s changed outside the slice's scope without a justification: %s\n",
		len(files), Plural(len(files), "file", "files"), nameList(files))
}

// declaredBlocks lays out a diagnostic of declared attempts (the agent's
// trailers) as the evidence layout does: in view the state and the counts,
// then per diagnostic CI's output, the attempts log and the question; the
// expectation, the files, the scope, the recovery options, the push history,
// the breaker's state and the notes folded in one closed <details>; each
// earlier attempt's own output in a closed <details> after it.
func declaredBlocks(d breaker.Decision) []block {
	bs := []block{fixed(declaredSummary(d) + banners(d))}
	// The slice total is in the summary line already: the rows alone.
	counts := countsRows(d)
	if len(d.Diagnostics) > 1 {
		// A slice trip: which tests, how often, is the first thing to see.
		bs = append(bs, fixed("**Failed attempts**\n\n"+counts))
	}
	var rest strings.Builder
	var outputs []block
	n := len(d.Diagnostics)
	for i, g := range d.Diagnostics {
		label := ""
		if n > 1 {
			label = fmt.Sprintf("**%s** (diagnostic %d of %d)\n\n", span(g.Test), i+1, n)
			bs = append(bs, fixed("---\n\n"+strings.TrimSuffix(label, "\n")))
		}
		bs = append(bs,
			// The output says itself when it is the agent's account, not CI's.
			actualBlock("**What actually happens**\n\n", g.ActualError),
			fixed("**Attempts log** (the strategies in the agent's words; each result names its source)\n\n"+earlierAttempts(d)+attemptLog(g.AttemptLog)),
			fixed(needLine(g)))
		for _, a := range attemptsFor(d, g.Test) {
			if a.Error != "" && a.Error != g.ActualError {
				outputs = append(outputs, attemptOutput(a))
			}
		}
		rest.WriteString("#### What the test expects\n\n" + label + textOr(g.TestExpectation, "_Not stated._"))
		rest.WriteString("\n#### Files modified (cumulative)\n\n" + label + filesTable(g.CumulativeFiles))
		rest.WriteString("\n#### Scope violations\n\n" + label + scopeSection(d.Scope, g.ScopeViolations))
		rest.WriteString("\n#### Recovery options\n\n" + label + recoveryList(g.RecoveryOptions) + "\n")
	}
	if len(d.Misreports) > 0 {
		bs = append(bs, fixed(misreports(d)))
	}
	if len(d.Pushes) > 1 || (len(d.Pushes) == 1 && d.Pushes[0].Failed) {
		rest.WriteString("#### Push history\n\n" + pushRows(d) + "\n")
	}
	folds := "the expectation, the files, the scope, the recovery options, the push history, the breaker's state and notes"
	if len(d.Diagnostics) == 1 {
		rest.WriteString("#### Failed attempts\n\n" + counts + "\n")
		folds = "the expectation, the files, the scope, the recovery options, the push history, the counts, the breaker's state and notes"
	}
	rest.WriteString("#### The breaker\n\n" + strings.Join(headerLines(d), "\\\n") + "\n")
	if len(d.Notes) > 0 {
		rest.WriteString("\n" + notes("####", d.Notes))
	}
	bs = append(bs, fixed(folded("The full diagnostic: "+folds, rest.String())))
	bs = append(bs, outputs...)
	if len(d.Prior) > 0 {
		bs = append(bs, fixed(priorAttempts(d.Prior)))
	}
	return bs
}

// declaredSummary is the declared layout's first line: the test and its
// count when one diagnostic, the state and why, the slice and its total;
// then the unjustified out-of-scope files.
func declaredSummary(d breaker.Decision) string {
	slice := fmt.Sprintf("slice %s (%d/%d failed %s in the slice)", span(d.Slice), d.TotalFailed, d.Limits.Slice,
		Plural(d.Limits.Slice, "attempt", "attempts"))
	if d.TripReason == breaker.TripSliceCeiling {
		slice = "slice " + span(d.Slice) // the trip reason says the total
	}
	summary := stateWords(d) + " · " + slice + "\n"
	switch {
	case !d.Tripped:
		// The state's words carry the counts already (how far the trip is).
		summary = stateWords(d) + " · slice " + span(d.Slice) + "\n"
	case len(d.Diagnostics) == 1:
		g := d.Diagnostics[0]
		summary = fmt.Sprintf("%s: %d/%d failed %s · %s · %s\n", span(g.Test), failedOf(d, g.Test), d.Limits.PerTest,
			Plural(d.Limits.PerTest, "attempt", "attempts"), stateWords(d), slice)
	}
	if out := outOfScope(d); out != "" {
		summary += "\n" + out
	}
	return summary
}

// actualBlock is the heading, then CI's output cut to its useful lines per runner, with the
// whole output folded below when anything was cut.
func actualBlock(heading, out string) block {
	useful, cut := UsefulLines(out)
	// A code block does not wrap: a long line would scroll the first
	// screen sideways. The lines in view are wrapped at the column; the
	// output as CI wrote it is folded below.
	if wrapped := wrapCode(useful, codeColumns); wrapped != useful {
		useful, cut = wrapped, true
	}
	if !cut {
		return codeSection(heading, out, "_No output was captured for this test._\n")
	}
	return shrinkable(out, func(full string) string {
		return heading + CodeBlock(useful, "text") + "\n<details>\n<summary>CI's full output</summary>\n\n" + CodeBlock(full, "text") + "\n</details>\n"
	})
}

// codeColumns is how many characters of a code block fit GitHub's
// 880 px comment column (13.6 px monospace, the block's padding).
const codeColumns = 96

// wrapCode breaks each line of s longer than n runes into lines of n,
// marking each continuation with "↪ ".
func wrapCode(s string, n int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		r := []rune(line)
		for len(r) > n {
			b.WriteString(string(r[:n]) + "\n↪ ")
			r = r[n:]
		}
		b.WriteString(string(r))
	}
	return b.String()
}

// pushTable is the compact push history of the evidence layout: one row a
// push, the newest last, without the long preamble.
func pushTable(d breaker.Decision) string {
	// The table's own header names it: a line less on the first screen.
	return strings.Replace(pushRows(d), "| Head |", "| Push history (CI's, oldest first) |", 1)
}

// pushRows is the compact push history's table.
func pushRows(d breaker.Decision) string {
	var b strings.Builder
	b.WriteString("| Head | Observed | Result | Failing |\n|------|----------|--------|---------|\n")
	ps := recentPushes(&b, d, "| … | | %d older pushes not shown | |\n")
	for _, p := range ps {
		failing := nameList(p.Failing)
		if len(p.Vanished) > 0 {
			failing += " (vanished: " + nameList(p.Vanished) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", shaSpan(p.Head), observedAt(p, "01-02 15:04"), pushResult(p), failing)
	}
	return b.String()
}
