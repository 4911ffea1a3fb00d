package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// A small CommonMark-minded reader of our own output, for the invariants:
// which text sits outside code, and which fenced blocks there are.

// parsedMarkdown is a report split into what renders as prose and as code.
type parsedMarkdown struct {
	outside []string // lines outside fenced blocks, code spans removed
	blocks  []string // contents of the fenced blocks, in order
}

func parseMarkdown(md string) (parsedMarkdown, error) {
	var p parsedMarkdown
	var fence string
	var content []string
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		indented := len(line)-len(trimmed) > 3
		n := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
		switch {
		case fence == "" && !indented && n >= 3 && !strings.Contains(trimmed[n:], "`"):
			fence, content = trimmed[:n], nil
		case fence == "":
			p.outside = append(p.outside, removeCodeSpans(line))
		case !indented && n >= len(fence) && strings.TrimSpace(trimmed[n:]) == "":
			p.blocks = append(p.blocks, strings.Join(content, "\n"))
			fence = ""
		default:
			content = append(content, line)
		}
	}
	if fence != "" {
		return p, fmt.Errorf("fence %q never closed", fence)
	}
	return p, nil
}

// removeCodeSpans drops the code spans of one line, honouring backslash
// escapes, as CommonMark pairs backtick runs of equal length.
func removeCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '\\' && i+1 < len(line) && isASCIIPunct(line[i+1]) {
			b.WriteString(line[i : i+2])
			i += 2
			continue
		}
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := runAt(line, i)
		if end := closingRun(line, i+n, n); end >= 0 {
			b.WriteString("<CODE>")
			i = end + n
			continue
		}
		b.WriteString(line[i : i+n])
		i += n
	}
	return b.String()
}

func runAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun finds the next run of exactly n backticks from i, or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		if s[i] != '`' {
			i++
			continue
		}
		m := runAt(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

var (
	mentionRE   = regexp.MustCompile(`@[A-Za-z0-9]`)
	titleRE     = regexp.MustCompile(`^## (Stopped|Running|Running again|Warning|Circuit breaker): `)
	entityRE    = regexp.MustCompile(`&[A-Za-z#][A-Za-z0-9]*;`)
	allowedTags = []string{"<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>",
		"<sub>", "</sub>", "<CODE>", markerPrefix}
	allowedEntities = map[string]bool{"&lt;": true, "&gt;": true, "&amp;": true, "&quot;": true}
	ourHeadings     = map[string]bool{
		"### Failed attempts": true, "### Acknowledgement": true, "### What the test expects": true,
		"### What actually happens": true, "### Attempts log": true, "### Files modified (cumulative)": true,
		"### Scope violations": true, "### Best hypothesis": true, "### What I need from you": true,
		"### Recovery options": true, "### Misreported results": true, "### Notes": true,
		// The compact layouts' folded sections.
		"#### What the test expects": true, "#### Files modified (cumulative)": true,
		"#### Scope violations": true, "#### Recovery options": true, "#### Push history": true,
		"#### The breaker": true, "#### Notes": true, "#### Failed attempts": true,
	}
)

// checkMarkdown asserts the invariants of a rendered report: exactly one
// marker, at the top; every fence closed; outside code, no mention, no raw
// HTML but ours, no entity but ours, no heading but ours.
func checkMarkdown(t *testing.T, md, slice string) parsedMarkdown {
	t.Helper()
	if got := len(markerPattern().FindAllString(md, -1)); got != 1 {
		t.Errorf("marker count = %d, want 1", got)
	}
	if !HasMarker(md, slice) {
		t.Errorf("HasMarker(report, %q) = false, want true", slice)
	}
	p, err := parseMarkdown(md)
	if err != nil {
		t.Fatalf("parse report: %v\n%s", err, md)
	}
	for _, line := range p.outside {
		checkLine(t, line)
	}
	return p
}

func checkLine(t *testing.T, line string) {
	t.Helper()
	if m := mentionRE.FindString(line); m != "" {
		t.Errorf("mention %q outside code in line %q", m, line)
	}
	for _, e := range entityRE.FindAllString(line, -1) {
		if !allowedEntities[e] {
			t.Errorf("entity %q outside code in line %q", e, line)
		}
	}
	for i := strings.IndexByte(line, '<'); i >= 0; i = nextByte(line, '<', i) {
		if !hasAnyPrefix(line[i:], allowedTags) {
			t.Errorf("raw HTML outside code at %q in line %q", line[i:], line)
		}
	}
	if strings.HasPrefix(strings.TrimLeft(line, " "), "~~~") {
		t.Errorf("tilde fence outside code: %q", line)
	}
	if strings.HasPrefix(line, "#") && !ourHeadings[line] && !titleRE.MatchString(line) {
		t.Errorf("heading not ours: %q", line)
	}
}

func nextByte(s string, c byte, i int) int {
	j := strings.IndexByte(s[i+1:], c)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// checkTerminal asserts that text is inert in a terminal and a workflow log.
func checkTerminal(t *testing.T, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			t.Errorf("workflow command in line %q", line)
		}
	}
	if strings.Contains(text, "##[") {
		t.Errorf("legacy workflow command in %q", text)
	}
	for _, r := range text {
		if isControl(r) || r == '\r' {
			t.Errorf("control rune %U in %q", r, text)
			break
		}
	}
}
