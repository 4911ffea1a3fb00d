package replay

import (
	"fmt"
	"sort"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/report"
)

// The bounds of the markdown: the pull requests shown push by push, the
// failing tests named a push.
const (
	maxDetailed     = 30
	maxFailingNamed = 3
	nameRunes       = 120
)

// Markdown renders the replay as GitHub renders a job summary or a
// comment: the window, the summary with a chart of trips per week, the
// pull requests that tripped and recovered (for a person to judge), every
// pull request in a table, and the tripped ones push by push. Every name
// an agent wrote (titles, branches, tests) is escaped or in code.
func Markdown(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Circuit breaker replay: %s\n\n", report.EscapeInline(r.Repo))
	who := "the known coding agents"
	if len(r.Agents) > 0 {
		who = report.EscapeInline(strings.Join(r.Agents, ", "))
	}
	workflow := "every workflow"
	if r.Workflow != "" {
		workflow = report.CodeSpan(r.Workflow)
	}
	fmt.Fprintf(&b, "Pull requests by %s created %s to %s (%d in the window, %d by agents), CI from %s, policy %s. ",
		who, r.Since.Format("2006-01-02"), r.Until.Format("2006-01-02"), r.Listed, r.Summary.PullRequests, workflow, report.EscapeInline(r.Policy))
	fmt.Fprintf(&b, "%d API requests (at most %d, said before the evidence was read)", r.Requests, r.Estimate)
	writeCost(&b, r.Budget, r.Cached, r.Cut)
	s := r.Summary
	b.WriteString("### What stopping would have saved\n\n")
	b.WriteString("| agent pull requests | pushes | would have tripped | pushes after the trip | CI minutes after the trip | tripped, then green |\n|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %.1f | %d |\n\n", s.PullRequests, s.Pushes, s.Tripped, s.Saved.Pushes, s.Saved.Minutes, len(s.Recovered))
	if len(s.ByReason) > 0 {
		b.WriteString("Trips by reason: " + countWords(s.ByReason) + ". ")
	}
	if len(s.ByEvidence) > 0 {
		b.WriteString("Pushes judged on " + countWords(s.ByEvidence) + " (artifact: the run's result files; log: the failing tests its job logs name; conclusion: the run's outcome alone, the evidence floor).")
	}
	b.WriteString("\n\n")
	writeChart(&b, s.TripsPerWeek)
	if len(s.Recovered) > 0 {
		b.WriteString("### Tripped, then green: for a person to judge\n\n")
		b.WriteString("These would have stopped, and CI passed a later push. Either the agent found its way (the trip cost a reset) or it got lucky; the pushes say which.\n\n")
		for _, n := range s.Recovered {
			for _, pr := range r.PullRequests {
				if pr.Number == n {
					fmt.Fprintf(&b, "- #%d %s: tripped at push %d (%s), green %s later\n", n, report.EscapeInline(report.Clip(pr.Title, nameRunes)),
						pr.Trip.Push, reasonWords(*pr.Trip), plural(pr.AfterTrip.Pushes, "push", "pushes"))
				}
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("### Pull requests\n\n")
	b.WriteString("| pull request | agent | pushes | would have tripped | after the trip | end |\n|---|---|---:|---|---|---|\n")
	for _, pr := range r.PullRequests {
		trip, after := "no", ""
		if pr.Trip != nil {
			trip = fmt.Sprintf("push %d: %s", pr.Trip.Push, reasonWords(*pr.Trip))
			after = fmt.Sprintf("%s, %.1f min", plural(pr.AfterTrip.Pushes, "push", "pushes"), pr.AfterTrip.Minutes)
		}
		end := pr.State
		if pr.GreenAtEnd {
			end += ", green"
		} else if len(pr.Pushes) > 0 {
			end += ", red"
		}
		fmt.Fprintf(&b, "| #%d %s | %s | %d | %s | %s | %s |\n", pr.Number, report.EscapeInline(report.Clip(pr.Title, 60)), report.CodeCell(pr.Author),
			len(pr.Pushes), trip, after, end)
	}
	b.WriteString("\n")
	shown := 0
	for _, pr := range r.PullRequests {
		if pr.Trip == nil && !pr.Incomplete {
			continue
		}
		if shown++; shown > maxDetailed {
			fmt.Fprintf(&b, "The other tripped pull requests are in the JSON report (`--format json`).\n\n")
			break
		}
		writePushes(&b, pr)
	}
	for _, n := range r.Notes {
		b.WriteString("- " + report.EscapeInline(n) + "\n")
	}
	return b.String()
}

// writeCost ends the sentence of what a window cost (the budget, the pull
// requests from the cache) and says where the budget cut it, and how to go
// on.
func writeCost(b *strings.Builder, budget, cached int, cut string) {
	if budget > 0 {
		fmt.Fprintf(b, " of a budget of %d", budget)
	}
	if cached > 0 {
		fmt.Fprintf(b, "; %d pull requests from the cache", cached)
	}
	b.WriteString(".\n\n")
	if cut != "" {
		fmt.Fprintf(b, "> [!WARNING]\n> The window is cut: %s. Raise `--budget`, or run again with the same `--cache` to go on.\n\n", report.EscapeInline(cut))
	}
}

// writePushes renders a pull request push by push, in a collapsed block.
func writePushes(b *strings.Builder, pr PullRequest) {
	fmt.Fprintf(b, "<details><summary>#%d, push by push</summary>\n\n", pr.Number)
	fmt.Fprintf(b, "Branch %s. ", report.CodeSpan(report.Clip(pr.Branch, nameRunes)))
	if pr.Trip != nil {
		fmt.Fprintf(b, "The breaker would have tripped at push %d (%s).", pr.Trip.Push, reasonWords(*pr.Trip))
	}
	b.WriteString("\n\n| push | head | CI | evidence | failing | breaker |\n|---:|---|---|---|---|---|\n")
	for _, p := range pr.Pushes {
		failing := make([]string, 0, maxFailingNamed)
		for i, t := range p.Failing {
			if i == maxFailingNamed {
				failing = append(failing, fmt.Sprintf("and %d more", len(p.Failing)-maxFailingNamed))
				break
			}
			failing = append(failing, report.CodeCell(report.Clip(t, nameRunes)))
		}
		verdict := p.State
		switch {
		case p.Note != "":
			verdict = report.EscapeInline(report.Clip(p.Note, 200))
		case p.State == string(breaker.StateOpen):
			verdict = "**OPEN** (" + report.EscapeInline(p.Reason) + ")"
		}
		fmt.Fprintf(b, "| %d | %s | %s, %.1f min | %s | %s | %s |\n", p.N, report.CodeCell(breaker.ShortSHA(p.Head)), report.EscapeInline(p.Conclusion),
			p.Minutes, report.EscapeInline(p.Evidence), strings.Join(failing, ", "), verdict)
	}
	b.WriteString("\n</details>\n\n")
}

// writeChart draws trips per week as a mermaid xychart-beta, which GitHub
// renders in markdown.
func writeChart(b *strings.Builder, weeks []Week) {
	if len(weeks) == 0 {
		return
	}
	labels := make([]string, len(weeks))
	counts := make([]string, len(weeks))
	top := 1
	for i, w := range weeks {
		labels[i] = fmt.Sprintf("%q", w.Start.Format("Jan 2"))
		counts[i] = fmt.Sprint(w.Trips)
		top = max(top, w.Trips)
	}
	b.WriteString("```mermaid\nxychart-beta\n    title \"Trips per week\"\n")
	fmt.Fprintf(b, "    x-axis [%s]\n    y-axis \"trips\" 0 --> %d\n    bar [%s]\n```\n\n", strings.Join(labels, ", "), top, strings.Join(counts, ", "))
}

// reasonWords says why a pull request would have tripped, in a table cell
// (its test's name as a cell's code: a pipe in it cannot end the cell).
func reasonWords(t Trip) string {
	words := map[string]string{
		string(breaker.TripPerTest): "one test failed too often", string(breaker.TripSliceCeiling): "too many failed attempts",
		string(breaker.TripNoProgress): "pushes without progress", string(breaker.TripNoResults): "pushes without results",
		string(breaker.TripSameError): "the same error again", string(breaker.TripConsecutiveFailures): "failed sessions in a row",
		string(breaker.TripPattern): "an anomaly pattern",
	}[t.Reason]
	if words == "" {
		words = report.EscapeInline(t.Reason)
	}
	if t.Test != "" {
		words += ", " + report.CodeCell(report.Clip(t.Test, nameRunes))
	}
	return words
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func countWords(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", report.EscapeInline(k), m[k])
	}
	return strings.Join(parts, ", ")
}

// StatsMarkdown renders `breaker stats` as GitHub renders a job summary:
// the window, the pull requests observed by agent, trips by reason with a
// chart of trips per week, the waits for a reset, pushes to green, the
// errors that trip most across pull requests, and the CI minutes spent on
// pushes that made no progress.
func StatsMarkdown(s Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Circuit breaker stats: %s\n\n", report.EscapeInline(s.Repo))
	who := "every author"
	if len(s.Agents) > 0 {
		who = report.EscapeInline(strings.Join(s.Agents, ", "))
	}
	fmt.Fprintf(&b, "Pull requests by %s created %s to %s: %d in the window, %d observed by the breaker (its ledger). %d API requests (at least %d, said before the reads)",
		who, s.Since.Format("2006-01-02"), s.Until.Format("2006-01-02"), s.Listed, s.Observed, s.Requests, s.Estimate)
	writeCost(&b, s.Budget, s.Cached, s.Cut)
	b.WriteString("| pull requests observed | pushes | trips | reset | median wait for a reset | reached green | median pushes to green | pushes without progress | their CI minutes |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %s | %d | %s | %d | %.1f |\n\n", s.Observed, s.Pushes, s.Trips, s.TripToReset.Count,
		minutesWords(s.TripToReset.Median, s.TripToReset.Count), s.PushesToGreen.Count, medianWords(s.PushesToGreen), s.NoProgress.Pushes, s.NoProgress.Minutes)
	if len(s.ByReason) > 0 {
		b.WriteString("Trips by reason: " + countWords(s.ByReason) + ".")
		if s.TripToReset.Pending > 0 {
			fmt.Fprintf(&b, " %s not reset.", plural(s.TripToReset.Pending, "trip is", "trips are"))
		}
		b.WriteString("\n\n")
	}
	writeChart(&b, s.TripsPerWeek)
	if len(s.ByAgent) > 0 {
		b.WriteString("### By agent\n\n| agent | pull requests | pushes | tripped |\n|---|---:|---:|---:|\n")
		for _, a := range s.ByAgent {
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", report.CodeCell(a.Agent), a.PullRequests, a.Pushes, a.Tripped)
		}
		b.WriteString("\n")
	}
	if len(s.Errors) > 0 {
		b.WriteString("### The errors that trip most\n\nThe same error (its fingerprint: CI's message, normalised) across pull requests is one row.\n\n")
		b.WriteString("| error | tests | pull requests | trips |\n|---|---|---|---:|\n")
		for _, e := range s.Errors {
			tests := make([]string, 0, 3)
			for i, t := range e.Tests {
				if i == maxFailingNamed {
					tests = append(tests, fmt.Sprintf("and %d more", len(e.Tests)-maxFailingNamed))
					break
				}
				tests = append(tests, report.CodeCell(report.Clip(t, nameRunes)))
			}
			prs := make([]string, len(e.PullRequests))
			for i, n := range e.PullRequests {
				prs[i] = fmt.Sprintf("#%d", n)
			}
			fp := "unknown"
			if e.Fingerprint != "" {
				fp = report.CodeCell(e.Fingerprint)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", fp, strings.Join(tests, ", "), strings.Join(prs, " "), e.Trips)
		}
		b.WriteString("\n")
	}
	for _, n := range s.Notes {
		b.WriteString("- " + report.EscapeInline(n) + "\n")
	}
	return b.String()
}

func minutesWords(m float64, n int) string {
	if n == 0 {
		return "none"
	}
	if m >= 120 {
		return fmt.Sprintf("%.1f h", m/60)
	}
	return fmt.Sprintf("%.0f min", m)
}

func medianWords(d Distribution) string {
	if d.Count == 0 {
		return "none"
	}
	return fmt.Sprintf("%g", d.Median)
}
