package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// writeResultsText prints a report for a person: the files, the counts, the
// infra verdict, then every test, with the message of each failing one.
// Everything that came from a result file goes through safeText, and no
// line starts with "::" (a GitHub workflow command).
func writeResultsText(w io.Writer, rep testresult.Report) error {
	var b strings.Builder
	for _, f := range rep.Files {
		switch {
		case f.Err != nil:
			fmt.Fprintf(&b, "file %s: error: %s\n", safeText(f.Path), safeText(f.Err.Error()))
		default:
			fmt.Fprintf(&b, "file %s: %s, %d tests\n", safeText(f.Path), fileFormat(f), len(f.Result.Tests))
			for _, warn := range f.Result.Warnings {
				fmt.Fprintf(&b, "  warning: %s\n", safeText(warn))
			}
		}
	}
	c := rep.Counts()
	fmt.Fprintf(&b, "%d tests: %d passed, %d failed, %d errored, %d skipped\n", c.Total, c.Passed, c.Failed, c.Errored, c.Skipped)
	if rep.Infra != "" {
		fmt.Fprintf(&b, "infra: %s (the tests did not run; the breaker does not count this run)\n", safeText(rep.Infra))
	} else {
		b.WriteString("infra: no\n")
	}
	for _, t := range rep.Tests {
		writeTestText(&b, t)
	}
	_, err := io.WriteString(w, neutraliseCommands(b.String()))
	return err
}

func writeTestText(b *strings.Builder, t testresult.Test) {
	fmt.Fprintf(b, "%-5s %s", statusWord(t.Status), safeText(t.FullName()))
	if t.File != "" {
		fmt.Fprintf(b, " (%s", safeText(t.File))
		if t.Line > 0 {
			fmt.Fprintf(b, ":%d", t.Line)
		}
		b.WriteString(")")
	}
	if t.Flaky {
		fmt.Fprintf(b, " [flaky: passed after %d runs]", len(t.Runs))
	}
	b.WriteString("\n")
	if !t.Status.Failed() || t.Message == "" {
		return
	}
	for line := range strings.Lines(strings.TrimRight(t.Message, "\n")) {
		fmt.Fprintf(b, "      | %s\n", safeText(strings.TrimRight(line, "\r\n")))
	}
}

func statusWord(s breaker.TestStatus) string {
	return strings.ToUpper(string(s))
}

// safeText escapes what must not reach a terminal or a CI log raw: C0 and
// C1 control characters (ESC, NUL, newlines...), DEL, Unicode bidi and
// zero-width format characters, and invalid UTF-8, as \xNN or \u{NNNN}.
// Tabs are kept.
func safeText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x061c, r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// neutraliseCommands rewrites every line that would start with "::" once
// leading blanks are trimmed (how the runner finds workflow commands): its
// first colon becomes \x3a.
func neutraliseCommands(text string) string {
	if !strings.Contains(text, "::") {
		return text
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		body := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(body, "::") {
			b.WriteString(line[:len(line)-len(body)])
			b.WriteString(`\x3a`)
			b.WriteString(body[1:])
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
