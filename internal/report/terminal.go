package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// ansiSequence matches terminal escape sequences: CSI (colours, cursor
// moves), OSC (titles, hyperlinks) and two-byte escapes.
var ansiSequence = rx.Lazy(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// isControl reports whether r is a rune that text printed to a terminal,
// a CI log or a comment must not carry: C0 and C1 controls, DEL, the
// bidirectional overrides and isolates, and the invisible format characters
// (zero-width spaces and joiners, marks, the BOM, the Unicode line
// separators). Newline and tab are not included. It is the one policy of
// both StripControls and EscapeControls.
func isControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069,
		r == 0x061c, r == 0xfeff, r == 0x2028, r == 0x2029, r == 0x180e, r == 0x00ad:
		return true
	case r >= 0xe0000 && r <= 0xe007f: // Unicode tag characters: invisible text
		return true
	}
	return false
}

// stripControls removes terminal escape sequences and control runes, turns
// CRLF and lone CR into LF and the Unicode line separators into spaces, and
// replaces invalid UTF-8.
func stripControls(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansiSequence().ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u2028' || r == '\u2029':
			return ' '
		case isControl(r):
			return -1
		}
		return r
	}, s)
}

// EscapeControls shows what must not reach a terminal raw instead of
// dropping it: each control rune of isControl (newline included) becomes
// \xNN or \u{NNNN}, and each invalid UTF-8 byte \xNN. Tabs are kept. It
// is for one field of a listing (`breaker results`), where a person should
// see that the name carried an escape; DefuseCommands still applies to the
// whole output.
func EscapeControls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r == '\n' || isControl(r) {
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
		case r < 0x80 && (r == '\n' || isControl(r)):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isControl(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// DefuseCommands makes text that is otherwise printed as it is inert for
// the Actions runner: the legacy "##[cmd]" form anywhere becomes "# #[",
// and a line that starts with "::" once leading whitespace is trimmed (how
// the runner finds workflow commands) gets ": :" instead. Every command's
// stdout goes through it, JSON included.
func DefuseCommands(text string) string {
	text = strings.ReplaceAll(text, "##[", "# #[")
	if !strings.Contains(text, "::") {
		return text
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		b.WriteString(defuseCommand(line))
	}
	return b.String()
}

// SanitizeTerminal makes untrusted text safe to print to a terminal or a
// GitHub Actions log: it drops escape sequences and control characters
// (keeping newline and tab), and defuses workflow commands, both the "::cmd"
// form at the start of a line (leading whitespace included, as the runner
// trims it) and the legacy "##[cmd]" form anywhere.
func SanitizeTerminal(s string) string {
	s = stripControls(s)
	s = strings.ReplaceAll(s, "##[", "# #[")
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = defuseCommand(line)
	}
	return strings.Join(lines, "\n")
}

// defuseCommand turns a line the runner would read as a workflow command
// ("::" after optional whitespace) into one it ignores (": :").
func defuseCommand(line string) string {
	rest := strings.TrimLeftFunc(line, unicode.IsSpace)
	if !strings.HasPrefix(rest, "::") {
		return line
	}
	lead := line[:len(line)-len(rest)]
	return lead + ": :" + rest[2:]
}

// SafeLine is SanitizeTerminal for text that must stay on one line: line
// breaks and tabs become spaces first.
func SafeLine(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\t", " ", "\u2028", " ", "\u2029", " ").Replace(s)
	return SanitizeTerminal(s)
}
