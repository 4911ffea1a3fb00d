package report

import (
	"regexp"
	"strings"
	"unicode"
)

// ansiSequence matches terminal escape sequences: CSI (colours, cursor
// moves), OSC (titles, hyperlinks) and two-byte escapes.
var ansiSequence = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// isControl reports whether r is a control or bidirectional-override rune
// that rendered text must not carry. Newline and tab are not included.
func isControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == '\u200e' || r == '\u200f' || r == '\ufeff':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// stripControls removes terminal escape sequences and control runes, turns
// CRLF and lone CR into LF and the Unicode line separators into spaces, and
// replaces invalid UTF-8.
func stripControls(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansiSequence.ReplaceAllString(s, "")
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
