package trailer

import (
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// commentChar starts a comment line (git's default core.commentChar).
const commentChar = '#'

// scissors is the line `git commit --verbose` writes above the diff; it and
// everything after it are not part of the message.
const scissors = "\n# ------------------------ >8 ------------------------\n"

// gitPrefixes are the line prefixes git itself writes into trailer blocks.
// One of them lets a block with non-trailer lines still count (the 25% rule).
var gitPrefixes = []string{"Signed-off-by: ", "(cherry picked from commit "}

// Parse returns the trailers of a commit message in the order they appear,
// with keys as written and values unfolded, exactly as
// `git log --format=%(trailers:only,unfold)` reports them for a commit whose
// raw message is message. It returns nil when the message has no trailers.
// Like git, it reads the message only up to its first NUL byte. It assumes
// git's default configuration: ':' as the only separator, '#' as the comment
// character and no trailer.* settings.
func Parse(message string) []breaker.Trailer {
	msg := skipBlankLines(cutAtNUL(message))
	end := blockEnd(msg)
	start := blockStart(msg, end)
	var out []breaker.Trailer
	for _, entry := range foldLines(msg[start:end]) {
		sep := findSeparator(entry)
		if sep < 1 {
			continue
		}
		out = append(out, breaker.Trailer{
			Key:   trimSpace(entry[:sep]),
			Value: unfold(trimSpace(entry[sep+1:])),
		})
	}
	return out
}

// cutAtNUL returns s up to its first NUL byte: git handles the message as a
// C string.
func cutAtNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// skipBlankLines drops the whitespace-only lines at the start of msg, as git's
// pretty printer does before it finds the subject.
func skipBlankLines(msg string) string {
	for msg != "" {
		next := nextLine(msg, 0)
		if trimSpace(msg[:next]) != "" {
			break
		}
		msg = msg[next:]
	}
	return msg
}

// foldLines splits the trailer block into entries: a line starting with
// whitespace belongs to the entry before it when that entry has a separator,
// and is an entry of its own otherwise. An entry is a run of whole lines, so
// it is a substring of block.
func foldLines(block string) []string {
	var entries []string
	start, canFold := 0, false
	for i := 0; i < len(block); {
		next := nextLine(block, i)
		if canFold && isSpace(block[i]) {
			entries[len(entries)-1] = block[start:next]
		} else {
			start = i
			entries = append(entries, block[i:next])
			canFold = findSeparator(block[i:next]) >= 1
		}
		i = next
	}
	return entries
}

// findSeparator returns the index of the ':' that ends the key at the start
// of line, or -1 when line does not start with a key. A key is letters,
// digits and hyphens, optionally followed by blanks before the ':'.
func findSeparator(line string) int {
	blanks := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ':':
			return i
		case !blanks && (isAlnum(c) || c == '-'):
		case i > 0 && (c == ' ' || c == '\t'):
			blanks = true
		default:
			return -1
		}
	}
	return -1
}

// unfold joins the lines of a trimmed value: each newline and the whitespace
// after it become one space.
func unfold(v string) string {
	if !strings.Contains(v, "\n") {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		if v[i] != '\n' {
			b.WriteByte(v[i])
			continue
		}
		for i+1 < len(v) && isSpace(v[i+1]) {
			i++
		}
		b.WriteByte(' ')
	}
	return trimSpace(b.String())
}

// isSpace reports whether c is whitespace in git's sense (space, tab, LF, CR;
// not VT or FF).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// trimSpace trims git whitespace from both ends of s.
func trimSpace(s string) string {
	for s != "" && isSpace(s[0]) {
		s = s[1:]
	}
	for s != "" && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// nextLine returns the offset just past the line of s that starts at i: after
// its newline, or len(s) for an unterminated last line.
func nextLine(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// isBlankLine reports whether the line of s starting at i holds only
// whitespace.
func isBlankLine(s string, i int) bool {
	return trimSpace(s[i:nextLine(s, i)]) == ""
}
