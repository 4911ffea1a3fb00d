package scope

import (
	"bufio"
	"bytes"
	"strings"
	"unicode"
)

// contractIndex collects, line by line, the paths of each id's sections.
type contractIndex struct {
	paths map[string][]string
	seen  map[string]bool // id + NUL + path
	cur   *section        // the section collecting paths, if any
	open  *fence          // the fenced code block we are in, if any
}

// section is the heading that is collecting paths.
type section struct {
	id    string
	level int
}

// fence is an open fenced code block.
type fence struct {
	char byte
	size int
}

// parseContracts indexes a CONTRACTS.md document: for every heading that
// starts with an id ("### C-12: RunInstall"), the repository paths named
// between it and the next heading of the same or a higher level. An id whose
// section names no path maps to nil.
func parseContracts(doc []byte) map[string][]string {
	x := contractIndex{paths: make(map[string][]string), seen: make(map[string]bool)}
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64*1024), len(doc)+1)
	for sc.Scan() {
		x.line(sc.Text())
	}
	return x.paths
}

func (x *contractIndex) line(line string) {
	if x.open != nil {
		if closesFence(line, x.open) {
			x.open = nil
		}
	} else if f, ok := opensFence(line); ok {
		x.open = &f
	} else if level, text, ok := heading(line); ok {
		x.heading(level, text)
		return
	}
	if x.cur == nil {
		return
	}
	for _, p := range linePaths(line) {
		if key := x.cur.id + "\x00" + p; !x.seen[key] {
			x.seen[key] = true
			x.paths[x.cur.id] = append(x.paths[x.cur.id], p)
		}
	}
}

// heading closes the current section when the heading is at its level or
// above, and opens a new one when the heading starts with an id.
func (x *contractIndex) heading(level int, text string) {
	if x.cur != nil && level <= x.cur.level {
		x.cur = nil
	}
	id := headingID(text)
	if id == "" {
		return
	}
	x.cur = &section{id: id, level: level}
	if _, ok := x.paths[id]; !ok {
		x.paths[id] = nil
	}
}

// indent reports the line without up to three leading spaces, and false
// when it is indented further (then it is no heading and no fence).
func indent(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, " ")
	return trimmed, len(line)-len(trimmed) <= 3
}

func opensFence(line string) (fence, bool) {
	t, ok := indent(line)
	if !ok || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return fence{}, false
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return fence{}, false
	}
	return fence{char: t[0], size: n}, true
}

func closesFence(line string, f *fence) bool {
	t, ok := indent(line)
	if !ok {
		return false
	}
	n := len(t) - len(strings.TrimLeft(t, string(f.char)))
	return n >= f.size && strings.TrimSpace(t[n:]) == ""
}

// heading parses an ATX heading: its level and its text.
func heading(line string) (int, string, bool) {
	t, ok := indent(line)
	if !ok {
		return 0, "", false
	}
	level := len(t) - len(strings.TrimLeft(t, "#"))
	if level < 1 || level > 6 || (len(t) > level && t[level] != ' ' && t[level] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[level:]), "#"))
	return level, text, true
}

// headingID is the id a heading starts with, after decoration and an
// optional word "Contract": "C-12" for "**C-12**: RunInstall". An id holds a
// digit; "Contract Index" has none.
func headingID(text string) string {
	t := strings.TrimLeft(text, "*_`[ ")
	if rest, ok := cutFold(t, "contract "); ok {
		t = strings.TrimLeft(rest, "*_`[ ")
	}
	end := strings.IndexFunc(t, func(r rune) bool {
		return !(r < unicode.MaxASCII && (isAlnum(byte(r)) || r == '-' || r == '_' || r == '.'))
	})
	if end >= 0 {
		t = t[:end]
	}
	t = strings.TrimRight(t, "._-")
	if !strings.ContainsAny(t, "0123456789") {
		return ""
	}
	return t
}

func cutFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
