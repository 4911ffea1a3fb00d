package testresult

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// ParseTAP reads TAP 13 (and the TAP 14 lines it shares): "ok"/"not ok" test
// lines with their YAML diagnostics, plans, "# SKIP" and "# TODO"
// directives and "Bail out!". A failing TODO test is skipped (an expected
// failure). Subtests announced by "# Subtest: NAME" (TAP 14, node:test)
// are tests of their own, named by their path, "describe > it"; a parent
// whose subtests reported is their suite, not a test (unless it failed
// while none of them did: a hook, say). Indented lines without such an
// announcement are left to their parent's test line; other lines are
// ignored, as TAP asks.
func ParseTAP(r io.Reader) (*Result, error) {
	p := &tapParser{plan: -1}
	overlong, err := eachLine(r, p.line)
	if err != nil {
		return nil, &ParseError{Offset: p.offset, Line: p.lineNo, Msg: "reading: " + err.Error()}
	}
	if p.lineNo == 0 {
		return nil, &ParseError{Msg: "empty file"}
	}
	p.flush()
	res := &Result{Format: FormatTAP, Tests: p.tests.slice(), Warnings: p.warnings}
	if overlong {
		res.Warnings = append(res.Warnings, fmt.Sprintf("a line over %d MiB was cut", maxLineBytes>>20))
	}
	p.verdict(res)
	return res, nil
}

type tapParser struct {
	tests    testList
	index    testIndex
	pending  *Test // the last test line, waiting for its YAML block
	indent   int   // the pending test line's indentation
	subtests []tapSubtest
	yaml     *capBuf
	inYAML   bool
	// diag is the indented text after the pending test line that is not a
	// YAML block: mocha's TAP reporter writes a failure's message and stack
	// so.
	diag     *capBuf
	points   int
	plan     int
	planNote string
	bailed   bool
	bail     string
	lineNo   int
	offset   int64
	warnings []string
}

func (p *tapParser) line(raw []byte) {
	p.lineNo++
	p.offset += int64(len(raw))
	if p.bailed {
		return
	}
	s := strings.TrimRight(string(raw), "\r\n")
	trimmed := strings.TrimSpace(s)
	if p.inYAML {
		switch {
		case trimmed == "...":
			p.inYAML = false
			return
		case s != "" && lineIndent(s) <= p.indent:
			// A line at the top level ends a block that was never closed:
			// a test line after it must never vanish into the YAML.
			p.inYAML = false
			p.warnings = append(p.warnings, fmt.Sprintf("line %d: a YAML block was not closed with \"...\"; it ends here", p.lineNo))
		default:
			p.yaml.writeString(s + "\n")
			return
		}
	}
	if p.pending != nil && trimmed == "---" && lineIndent(s) > p.indent {
		p.inYAML, p.yaml = true, &capBuf{}
		return
	}
	if ind := lineIndent(s); ind > 0 {
		p.nestedLine(ind, s)
		return
	}
	if trimmed == "" && p.diag != nil {
		p.diag.writeString("\n")
		return
	}
	p.topLine(s)
}

// tapSubtest is an announced subtest ("# Subtest: NAME") whose test line
// has not come yet.
type tapSubtest struct {
	indent   int
	name     string
	children int  // test lines reported under it
	failed   bool // one of them failed
}

// lineIndent is a line's indentation, spaces and tabs.
func lineIndent(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// announce opens a subtest at indentation ind, closing those deeper.
func (p *tapParser) announce(ind int, name string) {
	p.flush()
	for len(p.subtests) > 0 && p.subtests[len(p.subtests)-1].indent >= ind {
		p.subtests = p.subtests[:len(p.subtests)-1]
	}
	p.subtests = append(p.subtests, tapSubtest{indent: ind, name: capText(strings.TrimSpace(name))})
}

// nestedLine handles an indented line: a subtest's announcement or test
// line; anything else, and indented lines of TAP without announcements,
// are left to the parent's test line.
func (p *tapParser) nestedLine(ind int, s string) {
	trimmed := strings.TrimSpace(s)
	if name, ok := strings.CutPrefix(trimmed, "# Subtest:"); ok {
		p.announce(ind, name)
		return
	}
	pt, ok := tapTestLine(trimmed)
	if ok && p.enclosed(ind) {
		p.point(ind, pt)
		return
	}
	if p.pending != nil && ind > p.indent && p.pending.Status.Failed() {
		// The failure's own words, as mocha writes them: kept, without the
		// indentation of the block.
		if p.diag == nil {
			p.diag = &capBuf{}
		}
		p.diag.writeString(strings.TrimPrefix(s, strings.Repeat(" ", min(ind, p.indent+2))) + "\n")
	}
}

// enclosed reports whether a line at indentation ind sits inside an
// announced subtest.
func (p *tapParser) enclosed(ind int) bool {
	for _, st := range p.subtests {
		if st.indent < ind {
			return true
		}
	}
	return false
}

// point records a test line at indentation ind: a test named by the path of
// the subtests around it, or, when its own subtests reported, their suite.
func (p *tapParser) point(ind int, pt tapPoint) {
	p.flush()
	for len(p.subtests) > 0 && p.subtests[len(p.subtests)-1].indent > ind {
		p.subtests = p.subtests[:len(p.subtests)-1]
	}
	var self *tapSubtest
	if n := len(p.subtests); n > 0 && p.subtests[n-1].indent == ind {
		st := p.subtests[n-1]
		self = &st
		p.subtests = p.subtests[:n-1]
	}
	var path []string
	for _, st := range p.subtests {
		if st.indent < ind {
			path = append(path, st.name)
		}
	}
	if n := len(p.subtests); n > 0 && p.subtests[n-1].indent < ind {
		p.subtests[n-1].children++
		p.subtests[n-1].failed = p.subtests[n-1].failed || !pt.ok
	}
	if ind == 0 {
		p.points++
	}
	if self != nil && self.children > 0 && (pt.ok || self.failed) {
		return // a suite whose subtests said it all
	}
	t := pt.test(p.points)
	if len(path) > 0 {
		t.Name = capText(strings.Join(append(path, t.Name), " > "))
	}
	p.pending, p.indent = t, ind
}

func (p *tapParser) topLine(s string) {
	if name, ok := strings.CutPrefix(s, "# Subtest:"); ok {
		p.announce(0, name)
		return
	}
	if pt, ok := tapTestLine(s); ok {
		p.point(0, pt)
		return
	}
	switch {
	case strings.HasPrefix(s, "Bail out!"):
		p.flush()
		p.bailed, p.bail = true, strings.TrimSpace(strings.TrimPrefix(s, "Bail out!"))
	case strings.HasPrefix(s, "1.."):
		p.flush()
		spec, note, _ := strings.Cut(s[3:], "#")
		if n, err := strconv.Atoi(strings.TrimSpace(spec)); err == nil {
			p.plan, p.planNote = n, strings.TrimSpace(note)
		}
	case s != "" && s[0] != ' ' && s[0] != '\t' && s[0] != '#':
		p.flush() // a line TAP does not know ends any YAML-less pending test
	}
}

// flush adds the pending test with its YAML diagnostics.
func (p *tapParser) flush() {
	if p.pending == nil {
		return
	}
	t := *p.pending
	p.pending, p.inYAML = nil, false
	if p.yaml != nil {
		applyYAML(&t, p.yaml.String())
		p.yaml = nil
	}
	if p.diag != nil {
		if out := strings.Trim(p.diag.String(), "\n"); out != "" && t.Message == "" && t.Output == "" {
			t.Message, t.Output = capText(out), out
		}
		p.diag = nil
	}
	p.index.add(&p.tests, t, combineRerun)
}

func (p *tapParser) verdict(res *Result) {
	switch {
	case p.bailed && p.points == 0:
		res.Infra = append(res.Infra, joinReason("bailed out before any test", p.bail))
	case p.bailed:
		res.Warnings = append(res.Warnings, joinReason(fmt.Sprintf("bailed out after %d tests", p.points), p.bail))
	case p.plan == 0 && p.points == 0:
		res.Infra = append(res.Infra, joinReason("the TAP plan is 1..0 (no tests)", p.planNote))
	case p.plan > 0 && p.plan != p.points:
		res.Warnings = append(res.Warnings, fmt.Sprintf("the plan announced %d tests, %d were reported", p.plan, p.points))
	}
}

// tapPoint is one parsed test line.
type tapPoint struct {
	ok        bool
	num       int
	desc      string
	directive string // "skip", "todo" or ""
	reason    string
}

// tapTestLine parses "ok 1 - description # SKIP reason" and its variants.
func tapTestLine(s string) (tapPoint, bool) {
	var pt tapPoint
	rest, ok := strings.CutPrefix(s, "ok")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "not ok"); !ok {
			return pt, false
		}
	} else {
		pt.ok = true
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return pt, false
	}
	rest = strings.TrimLeft(rest, " \t")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	pt.num, _ = strconv.Atoi(rest[:i])
	rest = strings.TrimPrefix(strings.TrimLeft(rest[i:], " \t"), "- ")
	desc, dir := splitDirective(rest)
	pt.desc = strings.TrimSpace(strings.ReplaceAll(desc, `\#`, "#"))
	word, reason, _ := strings.Cut(strings.TrimSpace(dir), " ")
	switch w := strings.ToLower(word); {
	case strings.HasPrefix(w, "skip"):
		pt.directive = "skip"
	case strings.HasPrefix(w, "todo"):
		pt.directive = "todo"
	}
	pt.reason = strings.TrimSpace(reason)
	return pt, true
}

// splitDirective cuts s at its first '#' not escaped by a backslash.
func splitDirective(s string) (desc, dir string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '#':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

func (pt tapPoint) test(seq int) *Test {
	t := &Test{Name: capText(pt.desc), Status: breaker.StatusPass}
	if t.Name == "" {
		n := pt.num
		if n == 0 {
			n = seq
		}
		t.Name = "#" + strconv.Itoa(n)
	}
	switch {
	case pt.directive == "skip", pt.directive == "todo" && !pt.ok:
		t.Status = breaker.StatusSkip
		t.Message = joinReason(pt.directive, capText(pt.reason))
	case !pt.ok:
		t.Status = breaker.StatusFail
	}
	return t
}
