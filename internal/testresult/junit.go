package testresult

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseJUnit reads a JUnit XML file: a <testsuites> or <testsuite> root,
// suites nested at any depth, several <failure>, <error> and <skipped> in
// one case, Surefire's flakyFailure/flakyError/rerunFailure/rerunError
// reruns, properties and system-out/err. Bytes XML forbids are replaced with
// U+FFFD before decoding; a DTD is skipped and its entities are never
// expanded (an undefined entity stays as written). The file is read as UTF-8
// whatever encoding it declares.
func ParseJUnit(r io.Reader) (*Result, error) {
	san := newXMLSanitizer(r)
	sc := newXMLScanner(san)
	p := &junitParser{intern: map[string]string{}}
	err := sc.scan(p)
	if err == nil {
		err = p.finish()
	}
	if err != nil {
		if errors.Is(err, errTruncated) {
			sc.pos = sc.end
		}
		off, line := sc.offset()
		return nil, &ParseError{Offset: san.origOffset(off), Line: line, Msg: err.Error()}
	}
	claimed := p.claim()
	return &Result{Format: FormatJUnit, Tests: p.tests.slice(), Infra: p.infra, Claimed: claimed, Warnings: p.warnings}, nil
}

// junitParser is the state of one JUnit read.
type junitParser struct {
	stack      []string
	rootSeen   bool
	rootClosed bool
	suites     []*junitSuite
	tc         *junitCase
	caseBuf    junitCase       // reused for every case
	pool       []*junitProblem // reused problem elements
	capture    *capBuf         // where character data goes; nil: ignored
	captureAt  int             // stack depth of the capturing element
	tests      testList
	index      testIndex
	intern     map[string]string
	claimed    Counts
	cases      int
	infra      []string
	warnings   []string
}

type junitSuite struct {
	name     string
	claims   Counts
	hasChild bool
}

func (p *junitParser) text(data []byte) error {
	if p.capture != nil {
		p.capture.write(data)
	} else if len(p.stack) == 0 && len(bytes.Trim(data, " \t\r\n\uFEFF")) != 0 {
		return errors.New("text outside the root element")
	}
	return nil
}

func (p *junitParser) start(rawName []byte, attrs []rawAttr) error {
	name := p.internBytes(rawName)
	switch {
	case p.rootClosed:
		return fmt.Errorf("several root elements: a second root <%s> after the first one ended", capText(name))
	case !p.rootSeen && name != "testsuites" && name != "testsuite":
		return fmt.Errorf("not a JUnit XML file: the root element is <%s>, not <testsuites> or <testsuite>", capText(name))
	}
	if p.tests.n == 0 && len(p.tests.blocks) == 0 && (name == "testsuites" || name == "testsuite") {
		p.reserve(attrs)
	}
	p.rootSeen = true
	p.stack = append(p.stack, name)
	depth := len(p.stack)
	if p.tc != nil {
		p.tc.child(p, name, attrs, depth)
		return nil
	}
	switch name {
	case "testsuite":
		return p.startSuite(attrs)
	case "testsuites":
		_, err := suiteCounts(name, attrs)
		return err
	case "testcase":
		p.cases++
		p.tc = p.newCase(attrs, depth)
	}
	return nil
}

func (p *junitParser) startSuite(attrs []rawAttr) error {
	if n := len(p.suites); n > 0 {
		p.suites[n-1].hasChild = true
	}
	claims, err := suiteCounts("testsuite", attrs)
	if err != nil {
		return err
	}
	p.suites = append(p.suites, &junitSuite{name: capText(attrValue(attrs, "name")), claims: claims})
	return nil
}

// suitePath is the names of the enclosing suites, outermost first, joined
// by dots: what qualifies a case that has no classname.
func (p *junitParser) suitePath() string {
	var names []string
	for _, s := range p.suites {
		if s.name != "" {
			names = append(names, s.name)
		}
	}
	return strings.Join(names, ".")
}

// suiteCounts reads the counts a <testsuite> or <testsuites> declares; a
// count that is not a number makes the file unreadable.
func suiteCounts(elem string, attrs []rawAttr) (Counts, error) {
	var c Counts
	counts := []struct {
		attr string
		dst  *int
	}{{"tests", &c.Total}, {"failures", &c.Failed}, {"errors", &c.Errored},
		{"skipped", &c.Skipped}, {"skips", &c.Skipped}, {"disabled", &c.Skipped}}
	for _, a := range counts {
		v := strings.TrimSpace(attrValue(attrs, a.attr))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, fmt.Errorf("<%s %s=%q>: not a count", elem, a.attr, capText(v))
		}
		*a.dst += n
	}
	return c, nil
}

func (p *junitParser) end(rawName []byte) error {
	n := len(p.stack)
	if n == 0 || p.stack[n-1] != string(rawName) {
		if n == 0 {
			return fmt.Errorf("end tag </%s> without a start tag", capText(string(rawName)))
		}
		return fmt.Errorf("end tag </%s> does not match <%s>", capText(string(rawName)), capText(p.stack[n-1]))
	}
	p.stack = p.stack[:n-1]
	if p.capture != nil && n == p.captureAt {
		p.capture = nil
	}
	switch {
	case p.tc != nil && n == p.tc.depth:
		p.finishCase(p.tc.test())
		p.tc = nil
	case p.tc == nil && string(rawName) == "testsuite" && len(p.suites) > 0:
		s := p.suites[len(p.suites)-1]
		p.suites = p.suites[:len(p.suites)-1]
		if !s.hasChild {
			addCounts(&p.claimed, s.claims)
		}
	}
	p.rootClosed = len(p.stack) == 0
	return nil
}

// goJUnitReportFailures are the case names go-junit-report writes for a
// package that did not build or set up: a run that is infra, not a test.
var goJUnitReportFailures = map[string]string{"[build failed]": "build failed", "[setup failed]": "setup failed"}

func (p *junitParser) finishCase(t Test) {
	if kind, ok := goJUnitReportFailures[t.Name]; ok && t.Status.Failed() {
		p.infra = append(p.infra, joinReason(kind+": "+t.Suite, firstLine(t.Output)))
		return
	}
	p.index.add(&p.tests, t, combineRerun)
}

func (p *junitParser) finish() error {
	if !p.rootSeen {
		return errors.New("no XML element found")
	}
	if n := len(p.stack); n > 0 {
		return fmt.Errorf("unexpected end of file inside <%s> (the file is truncated)", capText(p.stack[n-1]))
	}
	return nil
}

// claim returns the suites' declared counts when the file lists no cases.
func (p *junitParser) claim() *Counts {
	if p.cases > 0 || p.claimed.Total == 0 {
		return nil
	}
	c := p.claimed
	c.Passed = max(0, c.Total-c.Failed-c.Errored-c.Skipped)
	p.warnings = append(p.warnings, fmt.Sprintf("the suites claim %d tests but list no test cases; no tests are invented", c.Total))
	return &c
}

// maxReserve bounds the room reserve makes from a declared count.
const maxReserve = 1 << 17

// reserve makes room for the tests the first suite element declares, so
// that a large file does not grow its slices step by step.
func (p *junitParser) reserve(attrs []rawAttr) {
	n, err := strconv.Atoi(strings.TrimSpace(attrValue(attrs, "tests")))
	if err != nil || n <= 0 {
		return
	}
	n = min(n, maxReserve)
	p.tests.reserve(n)
	p.index = make(testIndex, n)
}

// internBytes returns b as a string shared by every equal value (names of
// elements, classnames, files), up to a bounded number of values.
func (p *junitParser) internBytes(b []byte) string {
	if v, ok := p.intern[string(b)]; ok {
		return v
	}
	s := string(b)
	if len(p.intern) < 1<<16 {
		p.intern[s] = s
	}
	return s
}

// internAttr decodes and interns an attribute value that repeats.
func (p *junitParser) internAttr(raw []byte) string {
	if bytes.IndexByte(raw, '&') < 0 && len(raw) <= MaxTextBytes {
		return p.internBytes(raw)
	}
	return p.internBytes([]byte(capText(unescape(raw))))
}

func addCounts(dst *Counts, c Counts) {
	dst.Total += c.Total
	dst.Failed += c.Failed
	dst.Errored += c.Errored
	dst.Skipped += c.Skipped
}

func attrValue(attrs []rawAttr, name string) string {
	for _, a := range attrs {
		if string(a.name) == name {
			return unescape(a.value)
		}
	}
	return ""
}
