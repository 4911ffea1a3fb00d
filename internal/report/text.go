package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Text renders d as the short summary of `breaker evaluate --format text`:
// state and trip reason, slice, failed attempts per test and in total, the
// checkpoint, notes, and what to do next. Every untrusted string is redacted
// and made safe for a terminal and a workflow log (SafeLine); the whole text
// goes through SanitizeTerminal once more.
func Text(d breaker.Decision) string {
	d = (*Redactor)(nil).Decision(d)
	var b strings.Builder
	fmt.Fprintf(&b, "breaker: %s — %s\n", SafeLine(string(d.State)), textReason(d))
	fmt.Fprintf(&b, "slice:   %s\n", textSlice(d))
	fmt.Fprintf(&b, "head:    %s\n", textHead(d))
	if d.Base.SHA != "" {
		fmt.Fprintf(&b, "base:    %s at %s (from %s)\n", SafeLine(d.Base.Ref), SafeLine(breaker.ShortSHA(d.Base.SHA)), SafeLine(d.Base.Source))
	}
	b.WriteString("tests:\n")
	if len(d.Tests) == 0 {
		b.WriteString("  (no attempts in this slice)\n")
	}
	for _, t := range d.Tests {
		fmt.Fprintf(&b, "  %s: %d/%d failed (%s)\n", SafeLine(t.Name), t.FailedAttempts, d.Limits.PerTest, SafeLine(t.Status))
	}
	if e := d.Earlier; e.Attempts > 0 {
		fmt.Fprintf(&b, "  and %d earlier %s (%d failed) of pushes before the newest %d: counted, not listed\n",
			e.Attempts, Plural(e.Attempts, "attempt", "attempts"), e.FailedAttempts, breaker.Window)
	}
	fmt.Fprintf(&b, "total:   %d/%d failed attempts in the slice\n", d.TotalFailed, d.Limits.Slice)
	fmt.Fprintf(&b, "checkpoint: %s\n", textCheckpoint(d.Checkpoint))
	if d.ResetSHA != "" {
		fmt.Fprintf(&b, "reset:   counts restart after %s\n", SafeLine(breaker.ShortSHA(d.ResetSHA)))
	}
	if n := countViolations(d.Violations); n > 0 {
		fmt.Fprintf(&b, "scope:   %d out-of-scope %s without a %s line\n", n, Plural(n, "file", "files"), SafeLine(trailerKey(d, breaker.TrailerJustify)))
	}
	if len(d.Misreports) > 0 {
		fmt.Fprintf(&b, "misreported results: %d (claimed pass, CI observed a failure)\n", len(d.Misreports))
	}
	if len(d.Pushes) > 0 {
		fmt.Fprintf(&b, "pushes:  %s\n", textPushes(d))
	}
	fmt.Fprintf(&b, "ledger:  %s\n", textLedger(d.Ledger))
	if p := textPolicy(d); p != "" {
		fmt.Fprintf(&b, "policy:  %s\n", SafeLine(p))
	}
	if len(d.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, n := range d.Notes {
			b.WriteString("  - " + SafeLine(n) + "\n")
		}
	}
	b.WriteString("next:    " + nextStep(d) + "\n")
	return SanitizeTerminal(b.String())
}

func textSlice(d breaker.Decision) string {
	if d.Slice == "" {
		return "none (no attempt found)"
	}
	if d.SliceSource == "" {
		return SafeLine(d.Slice)
	}
	return SafeLine(d.Slice) + " (from " + SafeLine(d.SliceSource) + ")"
}

func textHead(d breaker.Decision) string {
	head := SafeLine(breaker.ShortSHA(d.Head))
	if head == "" {
		head = "unknown"
	}
	switch {
	case d.HeadInfra == "":
	case d.HeadInfraKind == breaker.InfraNoResults:
		head += " — no test results (a failed push after pushes that had results): " + SafeLine(d.HeadInfra)
	case d.HeadInfraKind == breaker.InfraWithheld:
		head += " — the tested run was cancelled and left no results (a failed push): " + SafeLine(d.HeadInfra)
	case d.HeadInfraKind == breaker.InfraBuild:
		head += " — did not build or the run crashed (a failed push): " + SafeLine(d.HeadInfra)
	default:
		head += " — tests did not run, nothing counted: " + SafeLine(d.HeadInfra)
	}
	return head
}

func textCheckpoint(c breaker.Checkpoint) string {
	if c.Tag == "" {
		return "none yet"
	}
	out := SafeLine(c.Tag) + " at " + SafeLine(breaker.ShortSHA(c.SHA))
	switch {
	case c.Exists && c.ExistingSHA != "" && c.ExistingSHA != c.SHA:
		out += " (the tag exists at " + SafeLine(breaker.ShortSHA(c.ExistingSHA)) + " and was not moved)"
	case !c.Exists:
		out += " (to be created)"
	}
	return out
}

// nextStep says what the reader should do now.
func nextStep(d breaker.Decision) string {
	switch {
	case d.TripReason == breaker.TripManual:
		return "read the diagnostic (--format markdown) and answer its question"
	case d.State == breaker.StateOpen:
		return "stop: a human reads the diagnostic (--format markdown) and answers on the pull request with " +
			"`/breaker reset " + SafeLine(d.Slice) + " [--rollback] [guidance]`"
	case d.HeadInfra != "":
		return "fix what stopped the tests from running and push again"
	}
	return closedNext(d)
}

// closedNext says how close a CLOSED slice is to tripping.
func closedNext(d breaker.Decision) string {
	if dist := Distance(d); dist != "" {
		return "keep going; closest to a trip first: " + dist
	}
	return "keep going"
}

// countViolations counts the findings whose verdict is "violation".
func countViolations(fs []breaker.ScopeFinding) int {
	n := 0
	for _, f := range fs {
		if f.Verdict == "violation" {
			n++
		}
	}
	return n
}

// textPushes says how many observed pushes failed, and the streak.
func textPushes(d breaker.Decision) string {
	failed := d.Earlier.Failed
	for _, p := range d.Pushes {
		if p.Failed && !p.Prior && p.Infra == "" {
			failed++
		}
	}
	return fmt.Sprintf("%d observed, %d failed, %d/%d failed in a row", d.Earlier.Pushes+len(d.Pushes), failed, d.FailedInARow, d.Limits.NoProgress)
}

// textLedger says where the earlier observations came from.
func textLedger(l breaker.LedgerInfo) string {
	switch {
	case l.Source == "" || l.Source == "none":
		return "none read (only this run's observation and the trailers)"
	case len(l.Tampered) > 0:
		return fmt.Sprintf("%d entries from %s, %d do not verify", l.Entries, SafeLine(l.Source), len(l.Tampered))
	case l.Verified && l.Folded > 0:
		return fmt.Sprintf("%d entries from %s and the carry of the %d pushes before them, signed and verified", l.Entries, SafeLine(l.Source), l.Folded)
	case l.Verified:
		return fmt.Sprintf("%d entries from %s, signed and verified", l.Entries, SafeLine(l.Source))
	case l.Folded > 0:
		return fmt.Sprintf("%d entries from %s and the carry of the %d pushes before them, unsigned (no ledger key)", l.Entries, SafeLine(l.Source), l.Folded)
	}
	return fmt.Sprintf("%d entries from %s, unsigned (no ledger key)", l.Entries, SafeLine(l.Source))
}

// Distance says how far the slice is from each of its trips, the closest
// first, in plain words: "2/3 failed pushes in a row, TestLogin 1/3 failed
// attempts, 2/7 failed attempts in the slice". Empty when nothing has
// failed yet.
func Distance(d breaker.Decision) string { return distance(d, SafeLine) }

// distance is Distance with test names rendered by name (plain, or as
// markdown code).
func distance(d breaker.Decision, name func(string) string) string {
	type part struct {
		left int
		text string
	}
	var parts []part
	if d.FailedInARow > 0 && d.Limits.NoProgress > 0 {
		parts = append(parts, part{d.Limits.NoProgress - d.FailedInARow,
			fmt.Sprintf("%d/%d failed %s in a row", d.FailedInARow, d.Limits.NoProgress, Plural(d.Limits.NoProgress, "push", "pushes"))})
	}
	worst, test := 0, ""
	for _, t := range d.Tests {
		if t.FailedAttempts > worst {
			worst, test = t.FailedAttempts, t.Name
		}
	}
	if worst > 0 {
		parts = append(parts, part{d.Limits.PerTest - worst,
			fmt.Sprintf("%s %d/%d failed %s", name(test), worst, d.Limits.PerTest, Plural(d.Limits.PerTest, "attempt", "attempts"))})
	}
	if d.TotalFailed > 0 {
		parts = append(parts, part{d.Limits.Slice - d.TotalFailed,
			fmt.Sprintf("%d/%d failed %s in the slice", d.TotalFailed, d.Limits.Slice, Plural(d.Limits.Slice, "attempt", "attempts"))})
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].left < parts[j].left })
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.text
	}
	return strings.Join(out, ", ")
}
