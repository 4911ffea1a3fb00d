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
// guidance. d is the decision as it stood before the reset.
//
// Everything the agent wrote (slice and test names, strategies, files,
// errors, hypotheses) is data: one quoted field each (priorData), in which
// no tag, heading or "Guidance from" line can be forged (issue 46). The
// one guidance line is the maintainer's, from the verified reset comment,
// and it is always kept: the attempts are cut first to bound the whole by
// MaxPrior.
func PriorAttempts(d breaker.Decision, author, guidance string) string {
	var b strings.Builder
	switch {
	case d.Tripped:
		fmt.Fprintf(&b, "Circuit tripped after %d failed attempts in slice %s: %s.\n", d.TotalFailed, priorData(d.Slice, 100), priorTrip(d))
	default:
		fmt.Fprintf(&b, "Reset after %d failed attempts in slice %s.\n", d.TotalFailed, priorData(d.Slice, 100))
	}
	diags := d.Diagnostics
	if len(diags) == 0 {
		diags = attemptDiagnostics(d.Attempts)
	}
	for _, dg := range diags {
		name := priorData(dg.Test, 200)
		if dg.Test == "" {
			name = "(no test named)"
		}
		fmt.Fprintf(&b, "\nFor test %s:\n- what was tried:\n", name)
		log := dg.AttemptLog
		if len(log) > maxPriorAttempts {
			fmt.Fprintf(&b, "  (the %d newest of %d)\n", maxPriorAttempts, len(log))
			log = log[len(log)-maxPriorAttempts:]
		}
		for _, a := range log {
			fmt.Fprintf(&b, "  - %d (%s): %s", a.Attempt, priorSHA(a.SHA), priorData(a.Strategy, 200))
			if len(a.Files) > 0 {
				names := make([]string, 0, min(len(a.Files), 5))
				for _, f := range a.Files[:min(len(a.Files), 5)] {
					names = append(names, priorData(f, 120))
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
			fmt.Fprintf(&b, "- CI's error: %s\n", priorData(first, 300))
		}
		if h := dg.BestHypothesis; h != "" {
			fmt.Fprintf(&b, "- hypothesis: %s\n", priorData(h, 400))
		}
	}
	if len(diags) == 0 {
		b.WriteString("\nNo attempt was recorded (no commit since the checkpoint, or none observed).\n")
	}
	g := strings.TrimSpace(guidance)
	line := "(none given)"
	if g != "" {
		line = priorData(g, 1500)
	}
	const open, closing = "<prior_attempts>\n", "Do not repeat a strategy listed above.\n</prior_attempts>\n"
	foot := fmt.Sprintf("\nGuidance from %s: %s\n", priorLogin(author), line) + closing
	body := b.String()
	if room := MaxPrior - len(open) - len(foot); len(body) > room {
		const cut = "…\n"
		n := max(0, room-len(cut))
		for n > 0 && !utf8.RuneStart(body[n]) {
			n--
		}
		if nl := strings.LastIndexByte(body[:n], '\n'); nl >= 0 {
			n = nl + 1 // a whole line, never half a quoted field
		}
		body = body[:n] + cut
	}
	return open + body + foot
}

// priorSHA is a commit's short id; anything but hex digits is left out.
func priorSHA(sha string) string {
	return strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F' {
			return r
		}
		return -1
	}, breaker.ShortSHA(sha))
}

// priorLogin is a GitHub login (letters, digits, '-', and a bot's
// "[bot]"); anything else is left out.
func priorLogin(login string) string {
	s := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-[]", r) {
			return r
		}
		return -1
	}, Clip(login, 100))
	if s == "" {
		return "(unknown)"
	}
	return s
}

// priorTrip is the trip reason in the block's words; a tripped test's name
// is the agent's, and so quoted data.
func priorTrip(d breaker.Decision) string {
	s := strings.ReplaceAll(tripReason(d), "`", "")
	if d.TripReason == breaker.TripPerTest && d.TrippedTest != "" {
		s += " on " + priorData(d.TrippedTest, 200)
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

// priorLine is one field of the block the breaker wrote (an attempt's
// result): one clipped line without terminal controls or markup.
func priorLine(s string, n int) string {
	return strings.NewReplacer("<", "(", ">", ")").Replace(SafeLine(Clip(s, n)))
}

// priorData is one field of the block that someone other than the
// breaker wrote, as data: one clipped line without terminal controls,
// quoted as a JSON string of ASCII only (every other character, and < > &,
// as \u escapes), so that it can neither close the block, open a tag of
// its own, nor pass for a line of the block's (a word the block reserves,
// "prior_attempts" or "guidance", has its first letter escaped too).
// Unicode look-alikes of those characters are escaped like any other.
func priorData(s string, n int) string {
	s = SafeLine(Clip(s, n))
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i, r := range s {
		reserved := false
		for _, w := range priorReserved {
			reserved = reserved || hasPrefixFoldASCII(s[i:], w)
		}
		switch {
		case reserved, r == '<', r == '>', r == '&', r == '"', r == '\\', r < 0x20, r > 0x7e:
			writeUEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// priorReserved are the words of the block's own lines, lower-case.
var priorReserved = []string{"prior_attempts", "prior attempts", "guidance"}

// hasPrefixFoldASCII says s starts with w (lower-case ASCII), ASCII
// letters compared without case.
func hasPrefixFoldASCII(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// writeUEscape writes r as JSON's \uXXXX (a surrogate pair past the BMP).
func writeUEscape(b *strings.Builder, r rune) {
	if r > 0xffff {
		r -= 0x10000
		fmt.Fprintf(b, "\\u%04x\\u%04x", 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		return
	}
	fmt.Fprintf(b, "\\u%04x", r)
}
