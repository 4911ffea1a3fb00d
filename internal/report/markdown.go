package report

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// DefaultMaxBytes is the size Markdown keeps a report under unless told
// otherwise: below GitHub's 65,536-character limit for a comment body.
const DefaultMaxBytes = 65000

// minMaxBytes is the smallest size limit honoured: enough for the header,
// the counts and the truncation note.
const minMaxBytes = 4096

// fieldRunes caps an untrusted value shown inline in the header or a table.
const fieldRunes = 200

// Options tune Markdown.
type Options struct {
	// Marker prefixes the report with Marker(slice), for the sticky comment.
	Marker bool
	// MaxBytes is the size the report must fit in, marker included. Zero or
	// less means DefaultMaxBytes; values below 4096 are raised to 4096. Long
	// outputs are shortened first (their middle is cut), then whole sections
	// are dropped from the end; the report says so when it happens.
	MaxBytes int
	// Acknowledgement is an extra section shown after the header, e.g. who
	// reset the counters and their guidance. It is rendered as plain text.
	Acknowledgement string
	// FullReport says where the untruncated report lives (e.g. the workflow
	// run's URL); shown only in the truncation note. Plain text.
	FullReport string
	// Redactor hides known secret values; nil hides token patterns only.
	Redactor *Redactor
}

func (o Options) limit() int {
	if o.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return max(o.MaxBytes, minMaxBytes)
}

// Markdown renders d as the seed 000 §4.3 diagnostic, every one of its
// eight fields. Under the default policy, with a diagnostic, the first
// screen holds the state, CI's output, the attempts log (or the push
// history), the question and the hypothesis, the rest folded
// (firstscreen.go); other policies and reports without a diagnostic show
// their sections in order: the header, the counts or the policy's own
// section, each diagnostic, the push history and the notes. Untrusted text
// is redacted and escaped; see the package documentation.
func Markdown(d breaker.Decision, opts Options) string {
	prefix := ""
	if opts.Marker {
		// A slice naming a known secret marks a comment no run finds
		// again (a second comment, never the secret).
		prefix = Marker(opts.Redactor.Redact(d.Slice)) + "\n"
	}
	d = opts.Redactor.Decision(d)
	blocks := markdownBlocks(d, opts.Redactor.Clean(opts.Acknowledgement))
	note := truncationNote(opts.Redactor.Clean(opts.FullReport))
	return prefix + fit(blocks, opts.limit()-len(prefix), note)
}

func markdownBlocks(d breaker.Decision, ack string) []block {
	// Every layout starts with the title, then on its second line the
	// test that failed, then CI's error; a person's acknowledgement comes
	// after that first block.
	bs := []block{fixed("## " + title(d) + "\n")}
	withAck := func(body []block) []block {
		if strings.TrimSpace(ack) != "" && len(body) > 0 {
			body = append(body[:1:1], append([]block{fixed("### Acknowledgement\n\n" + EscapeText(ack) + "\n")}, body[1:]...)...)
		}
		return append(append(bs, body...), fixed(footer))
	}
	if g, ok := evidenceOnly(d); ok {
		// An agent without trailers: the failure and the push history
		// first, a first screen a reviewer reads in seconds; the rest folded.
		return withAck(evidenceBlocks(d, g))
	}
	pb := policyBlocks(d)
	if pb == nil && len(d.Diagnostics) > 0 {
		// Declared attempts: the same first screen as the evidence layout
		// (the failure, what was tried, the question), the rest folded.
		return withAck(declaredBlocks(d))
	}
	// Every other report — a warning before the trip, a reset's
	// acknowledgement, a head whose tests did not run, the pull cord
	// without a diagnostic, another policy's verdict — has the same first
	// screen: the state and why in plain words, the push history; the
	// breaker's state, the counts or the policy's section, the diagnostics
	// and the notes folded in one closed <details>.
	var body []block
	if lead := leadBlock(d); lead != "" {
		body = append(body, fixed(lead))
	}
	body = append(body, fixed(compactSummary(d)+banners(d)))
	if len(d.Pushes) > 0 {
		body = append(body, fixed(pushTable(d)))
	}
	var rest []string
	if pb != nil {
		rest = append(rest, blockTexts(pb)...)
	} else {
		rest = append(rest, countsTable(d))
	}
	rest = append(rest, blockTexts(diagnosticsBlocks(d))...)
	for _, b := range extraBlocks(d) {
		if !strings.HasPrefix(b.text, "### Push history") {
			rest = append(rest, b.text)
		}
	}
	rest = append(rest, "#### The breaker\n\n"+strings.Join(headerLines(d), "\\\n")+"\n")
	what := "the counts"
	if pb != nil {
		what = "the " + d.Policy + " policy's state"
	}
	body = append(body, fixed(folded("The full report: "+what+", the notes and the breaker's state", strings.Join(rest, "\n"))))
	return withAck(body)
}

// leadBlock is the compact layout's first lines: the test that failed and
// at how many pushes, CI's error under it (its useful lines, at most
// leadErrorLines); "" when no test fails at the newest push.
func leadBlock(d breaker.Decision) string {
	test := d.LeadTest()
	if test == "" {
		return ""
	}
	failed, pushes := d.FailedAt(test, false)
	when := ""
	if pushes == 0 {
		// A reset: what failed is the pushes before it.
		failed, pushes = d.FailedAt(test, true)
		when = " before the reset"
	}
	s := fmt.Sprintf("%s failed at %d of %d observed %s%s\n", span(test), failed, pushes, Plural(pushes, "push", "pushes"), when)
	if out := strings.TrimSpace(d.LeadError); out != "" {
		useful, _ := UsefulLines(out)
		lines := strings.Split(wrapCode(useful, codeColumns), "\n")
		if len(lines) > leadErrorLines {
			lines = lines[:leadErrorLines]
		}
		s += "\n" + CodeBlock(strings.Join(lines, "\n"), "text")
	}
	return s
}

// leadErrorLines is how many lines of CI's error the compact layout shows
// in view: the rest is in the folded report and the check run.
const leadErrorLines = 3

// compactSummary is the first line of the compact layout: the state and
// why, the slice; one short of a trip, that the next failed push stops
// the pull request.
func compactSummary(d breaker.Decision) string {
	s := stateWords(d) + " · slice " + span(d.Slice) + "\n"
	switch {
	case d.Tripped && d.Slice != "":
		s += "\nThe agent should stop and wait. A maintainer answers on this pull request with " +
			CodeSpan("/breaker reset "+truncateRunes(d.Slice, fieldRunes)+" <guidance>") + " (the counts restart; what was tried is kept).\n"
	case !d.Tripped && d.TripsLeft() == 1 && d.HeadInfra != "":
		s += "\n**One more failed push stops this pull request.** Make the tests run and write their results again.\n"
	case !d.Tripped && d.TripsLeft() == 1:
		s += "\nBefore the next push: read CI's error, and make one targeted change.\n"
	}
	return s
}

// blockTexts are the blocks' texts, for a fold.
func blockTexts(bs []block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.text
	}
	return out
}

const footer = "<sub>Reported by greenlight-breaker (" + Schema + "). " +
	"The JSON report (`breaker evaluate --format json`) holds every field.</sub>\n"

// headerLines are the report's key-value lines.
func headerLines(d breaker.Decision) []string {
	lines := []string{"**Slice:** " + sliceLine(d)}
	if t := testLine(d); t != "" {
		lines = append(lines, "**Test:** "+t)
	}
	lines = append(lines,
		"**Trip reason:** "+tripReason(d),
		"**State:** "+EscapeInline(string(d.State))+policyWords(d),
		"**Head:** "+shaSpan(d.Head),
		"**Base:** "+baseLine(d.Base),
		"**Checkpoint:** "+checkpointLine(d.Checkpoint))
	if d.ResetSHA != "" {
		lines = append(lines, "**Reset:** counts restart after "+shaSpan(d.ResetSHA))
	}
	return append(lines, "**Scope lock:** "+scopeLine(d.Scope))
}

// baseName is how the base is named to a person: its branch, else its
// commit.
func baseName(b breaker.Base) string {
	if r := strings.TrimPrefix(b.Ref, "refs/heads/"); r != "" {
		return r
	}
	return breaker.ShortSHA(b.SHA)
}

// banners are the quoted notes under the header: a green head while OPEN,
// a head whose tests did not run.
func banners(d breaker.Decision) string {
	out := ""
	if d.State == breaker.StateOpen && d.HeadPasses {
		out += "\n> **The tests pass at this head.** The breaker stays OPEN until a maintainer reviews the fix and resets it " +
			"(" + span(strings.TrimSpace("/breaker reset "+d.Slice)) + "): an open circuit never closes by itself.\n"
	}
	if d.Tripped && d.BaseUnobserved && d.Ledger.Source == "check-runs" {
		out += "\n> **The base was never observed**: a test failing on " + inline(baseName(d.Base)) + " too counts here. Check it there first.\n"
	}
	switch {
	case d.HeadInfra == "":
	case d.HeadInfraKind == breaker.InfraNoResults:
		out += "\n> **No test results on this commit**: " + inline(d.HeadInfra) +
			". Missing results never pass: after pushes that had results, this is a failed push.\n"
	case d.HeadInfraKind == breaker.InfraWithheld:
		out += "\n> **The tests were cancelled on this commit and left no results**: " + inline(d.HeadInfra) +
			". Results withheld never pass: this is a failed push, and three in a row stop the agent.\n"
	case d.HeadInfraKind == breaker.InfraConclusion:
		out += "\n> **CI failed on this commit, and which tests failed is not known**: " + inline(d.HeadInfra) +
			". A failed run is a failed push.\n"
	case d.HeadInfraKind == breaker.InfraBuild:
		out += "\n> **This commit did not build or the test run crashed**: " + inline(d.HeadInfra) +
			". That is no attempt on any test, and it is a failed push.\n"
	default:
		out += "\n> **The tests did not run on this commit**, so nothing from this run was counted: " +
			inline(d.HeadInfra) + "\n"
	}
	return out
}

// policyWords adds the policy's own state when it has other words.
func policyWords(d breaker.Decision) string {
	if d.PolicyState == "" || d.PolicyState == string(d.State) {
		return ""
	}
	return " (" + EscapeInline(d.Policy) + ": " + EscapeInline(d.PolicyState) + ")"
}

// baseLine names the base the branch was read from, and its source.
func baseLine(b breaker.Base) string {
	if b.SHA == "" {
		return "none found: the whole history of the head was read"
	}
	src := map[string]string{
		breaker.BaseFromFlag: "given with --base", breaker.BaseFromLocal: "the repository's default branch",
		breaker.BaseFromEvent: "from the event", breaker.BaseFromAPI: "from GitHub's API",
	}[b.Source]
	return inline(b.Ref) + " at " + shaSpan(b.SHA) + " (" + src + ")"
}

func title(d breaker.Decision) string {
	switch {
	case d.TripReason == breaker.TripManual:
		return "Circuit breaker: the diagnostic, as asked"
	case d.State == breaker.StateOpen:
		return "Stopped: " + stoppedWords(d)
	case d.State == breaker.StateHalfOpen:
		return "Warning: the " + strings.ToUpper(d.Policy) + " breaker is HALF_OPEN"
	}
	switch left := d.TripsLeft(); {
	case d.HeadInfra != "":
		return "Running: the tests did not run at " + shaSpan(d.Head)
	case left < 0 && d.ResetSHA != "":
		return "Running again: reset, the counts start over"
	case left < 0:
		return "Running: nothing has failed"
	case left <= 1:
		return "Running: one more failed push stops this pull request"
	}
	first, _, _ := strings.Cut(distance(d, span), ", ")
	return "Running: " + first
}

func sliceLine(d breaker.Decision) string {
	if d.Slice == "" {
		return "none (no attempt found)"
	}
	src := map[string]string{
		"flag":    " (chosen with --slice)",
		"trailer": " (from the " + inline(trailerKey(d, breaker.TrailerSlice)) + " trailer)",
		"branch":  " (from the branch name)",
		"open":    " (left OPEN at an earlier push: judged until a verified reset, whatever slice the agent names now)",
	}
	return span(d.Slice) + src[d.SliceSource]
}

// trailerKey is the full key of a protocol trailer under the decision's
// prefix, e.g. "Greenlight-Result".
func trailerKey(d breaker.Decision, name string) string {
	return breaker.Policy{TrailerPrefix: d.TrailerPrefix}.Key(name)
}

func testLine(d breaker.Decision) string {
	if d.TripReason == breaker.TripPerTest && d.TrippedTest != "" {
		return span(d.TrippedTest)
	}
	names := make([]string, 0, len(d.Diagnostics))
	for _, g := range d.Diagnostics {
		names = append(names, span(g.Test))
	}
	return strings.Join(names, ", ")
}

// failedOf returns the failed-attempt count of the named test.
func failedOf(d breaker.Decision, name string) int {
	for _, t := range d.Tests {
		if t.Name == name {
			return t.FailedAttempts
		}
	}
	return 0
}

func checkpointLine(c breaker.Checkpoint) string {
	switch {
	case c.Tag == "":
		return "none yet"
	case c.Exists && c.ExistingSHA != "" && c.ExistingSHA != c.SHA:
		return span(c.Tag) + " already exists at " + shaSpan(c.ExistingSHA) +
			"; the slice's first attempt starts from " + shaSpan(c.SHA) + " (the tag was not moved)"
	case c.Exists:
		return span(c.Tag) + " at " + shaSpan(c.SHA)
	}
	return span(c.Tag) + " at " + shaSpan(c.SHA) + " (to be created)"
}

func scopeLine(s breaker.ScopeInfo) string {
	if !s.Enabled {
		if s.Note == "" {
			return "off"
		}
		return "off: " + inline(s.Note)
	}
	out := "on"
	if s.Source != "" {
		out += " (" + inline(s.Source) + ")"
	}
	if s.Note != "" {
		out += ": " + inline(s.Note)
	}
	return out
}

// inline escapes an untrusted one-line value, capped at fieldRunes.
func inline(s string) string { return EscapeInline(truncateRunes(s, fieldRunes)) }

// span renders an untrusted name as code, capped at fieldRunes.
func span(s string) string { return CodeSpan(truncateRunes(s, fieldRunes)) }

// cell renders an untrusted name as code inside a table cell.
func cell(s string) string { return CodeCell(truncateRunes(s, fieldRunes)) }

// shaSpan renders a commit id as code, shortened to 7 characters.
func shaSpan(sha string) string {
	if sha == "" {
		return "unknown"
	}
	return CodeSpan(breaker.ShortSHA(sha))
}

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
	if len(d.Pushes) > 1 || (len(d.Pushes) == 1 && d.Pushes[0].Failed) {
		bs = append(bs, fixed(pushHistory(d)))
	}
	if len(d.Notes) > 0 {
		bs = append(bs, fixed(notes("###", d.Notes)))
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

// notes is the notes section under a heading of the given level ("###").
func notes(level string, ns []string) string {
	var b strings.Builder
	b.WriteString(level + " Notes\n\n")
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
		len(as), Plural(len(as), "attempt", "attempts"))
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

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
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

// maxPushRows bounds the push history table; older pushes are summarised.
const maxPushRows = 30

// pushHistory is the table of the pushes CI observed: what failed at each
// head, whether it was progress, and what vanished.
func pushHistory(d breaker.Decision) string {
	var b strings.Builder
	b.WriteString("### Push history\n\nWhat CI observed at each pushed head of this slice, oldest first. " +
		"A push is failed when tests fail and it shows no progress: no test passes that failed at every earlier push, and no fewer tests fail than ever.\n\n" +
		"| Head | Observed | Result | Failing | Vanished |\n|------|----------|--------|---------|----------|\n")
	ps := recentPushes(&b, d, "| … | | %d older pushes not shown | | |\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", shaSpan(p.Head), observedAt(p, "2006-01-02 15:04"), pushResult(p), nameList(p.Failing), nameList(p.Vanished))
	}
	return b.String()
}

// recentPushes keeps a table to the decision's newest maxPushRows pushes,
// writing the row (a format taking the count) that says how many older ones
// it left out, the ones the decision only counts included.
func recentPushes(b *strings.Builder, d breaker.Decision, olderRow string) []breaker.PushSummary {
	ps, older := d.Pushes, d.Earlier.Pushes
	if len(ps) > maxPushRows {
		older += len(ps) - maxPushRows
		ps = ps[len(ps)-maxPushRows:]
	}
	if older > 0 {
		fmt.Fprintf(b, olderRow, older)
	}
	return ps
}

// observedAt is when CI observed a push, in UTC, or nothing when unknown.
func observedAt(p breaker.PushSummary, layout string) string {
	if p.ObservedAt.IsZero() {
		return ""
	}
	return p.ObservedAt.UTC().Format(layout)
}

func pushResult(p breaker.PushSummary) string {
	switch {
	case p.Infra != "":
		return "infra (not counted)"
	case p.Prior:
		return "before the reset"
	case p.Failed && p.Counted:
		return "failed (counted)"
	case p.Failed:
		return "failed"
	case p.Progress:
		return "progress"
	}
	return "passed"
}

// nameList renders up to five test names as code, then how many more.
func nameList(names []string) string {
	var out []string
	for i, n := range names {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(names)-5))
			break
		}
		out = append(out, cell(n))
	}
	return strings.Join(out, ", ")
}

// TripWords is the trip reason in plain words, for one-line titles: "no
// progress (3 failed pushes in a row; CI's evidence)".
func TripWords(d breaker.Decision) string { return tripReason(d) }
