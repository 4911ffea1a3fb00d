package testresult

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// junitCase is an open <testcase> and what it has said so far.
type junitCase struct {
	depth          int
	suite, name    string
	file           string
	line           int
	statusAttr     string
	problems       []*junitProblem // <failure>, <error>, <skipped>, in order
	reruns         []*junitProblem // flaky*/rerun* elements, in order
	sysout, syserr capBuf
}

// junitProblem is one <failure>, <error>, <skipped> or rerun element.
type junitProblem struct {
	kind    string
	message string
	body    capBuf
}

// newCase starts a case, reusing the parser's case and its buffers.
func (p *junitParser) newCase(attrs []rawAttr, depth int) *junitCase {
	c := &p.caseBuf
	p.pool = append(p.pool, c.problems...)
	p.pool = append(p.pool, c.reruns...)
	c.sysout.reset()
	c.syserr.reset()
	*c = junitCase{depth: depth, problems: c.problems[:0], reruns: c.reruns[:0], sysout: c.sysout, syserr: c.syserr}
	var class []byte
	for _, a := range attrs {
		switch string(a.name) {
		case "name":
			c.name = capText(unescape(a.value))
		case "classname":
			c.suite = p.internAttr(a.value)
		case "class":
			class = a.value
		case "file":
			c.file = p.internAttr(a.value)
		case "line":
			c.line, _ = strconv.Atoi(string(bytes.TrimSpace(a.value)))
		case "status", "result":
			c.statusAttr = strings.ToLower(strings.TrimSpace(unescape(a.value)))
		}
	}
	if c.suite == "" && len(class) > 0 {
		c.suite = p.internAttr(class)
	}
	if c.suite == "" {
		c.suite = p.suitePath() // nested suites without classnames name their cases
	}
	var path []string
	for _, st := range p.suites {
		path = append(path, st.name)
	}
	c.suite, c.name = caseName(c.suite, c.name, path)
	return c
}

// caseName is a case's suite and name as the breaker names the test, from
// its classname (or the suite path standing for it), its name, and the
// names of the <testsuite> elements around it, outermost first:
//
//   - jest-junit's default puts the full title in both classname and name
//     (with a leading space outside any describe(), trimmed),
//     mocha-junit-reporter's the full title in name and the test's own in
//     classname: one name, the full title;
//   - node:test's JUnit reporter writes classname="test" for every case and
//     nests a <testsuite> a describe(): the path names the case, as its TAP
//     reporter does ("describe > it"), so the same title in two describes
//     is two tests, never a rerun.
func caseName(suite, name string, suites []string) (string, string) {
	// jest-junit's "{classname} {title}" of a test outside any describe()
	// starts with a space: the same test as its title.
	suite, name = strings.TrimSpace(suite), strings.TrimSpace(name)
	switch {
	case suite != "" && (suite == name || strings.HasSuffix(name, " "+suite) || strings.HasPrefix(name, suite+" ")):
		return "", name
	case suite == nodeTestClassname:
		var path []string
		for _, s := range suites {
			if s != "" {
				path = append(path, s)
			}
		}
		if len(path) > 0 {
			return "", capText(strings.Join(append(path, name), " > "))
		}
	}
	return suite, name
}

// nodeTestClassname is the classname node:test's JUnit reporter gives
// every case.
const nodeTestClassname = "test"

// problem returns a cleared problem element, reused when possible.
func (p *junitParser) problem(kind string, attrs []rawAttr) *junitProblem {
	var pr *junitProblem
	if n := len(p.pool); n > 0 {
		pr, p.pool = p.pool[n-1], p.pool[:n-1]
		pr.body.reset()
	} else {
		pr = &junitProblem{}
	}
	pr.kind, pr.message = kind, capText(attrValue(attrs, "message"))
	return pr
}

// child handles an element opened inside the case.
func (c *junitCase) child(p *junitParser, name string, attrs []rawAttr, depth int) {
	if depth != c.depth+1 {
		return // deeper elements only add their text to what is captured
	}
	switch name {
	case "failure", "error", "skipped":
		pr := p.problem(name, attrs)
		c.problems = append(c.problems, pr)
		p.capture, p.captureAt = &pr.body, depth
	case "flakyFailure", "flakyError", "rerunFailure", "rerunError":
		pr := p.problem(name, attrs)
		c.reruns = append(c.reruns, pr)
		p.capture, p.captureAt = &pr.body, depth
	case "system-out":
		p.capture, p.captureAt = &c.sysout, depth
	case "system-err":
		p.capture, p.captureAt = &c.syserr, depth
	}
}

// test turns the case into a Test: the most severe element decides
// (error, then failure, then skipped); without one, the status attribute.
func (c *junitCase) test() Test {
	t := Test{Suite: c.suite, Name: c.name, File: c.file, Line: c.line, Status: breaker.StatusPass}
	var decider *junitProblem
	for _, pr := range c.problems {
		if decider == nil || rank(kindStatus(pr.kind)) > rank(kindStatus(decider.kind)) {
			decider = pr
		}
	}
	switch {
	case decider != nil:
		t.Status = kindStatus(decider.kind)
		t.Message = problemMessage(decider)
	case c.statusAttr != "":
		t.Status = attrStatus(c.statusAttr)
	}
	if t.Status.Failed() {
		t.Output = c.output()
	}
	if len(c.reruns) > 0 {
		c.addReruns(&t)
	}
	return t
}

// output joins the failing elements' text and the case's system-out/err.
// A part already capped keeps its note; the join is capped again only when
// there are several parts.
func (c *junitCase) output() string {
	var parts []string
	add := func(b *capBuf) {
		if b.len() > 0 {
			parts = append(parts, b.String())
		}
	}
	for _, pr := range c.problems {
		if pr.kind != "skipped" {
			add(&pr.body)
		}
	}
	add(&c.sysout)
	add(&c.syserr)
	if len(parts) == 1 {
		return parts[0]
	}
	return capText(strings.Join(parts, "\n"))
}

// addReruns records Surefire reruns: flaky* elements precede a final pass,
// rerun* elements follow a first failure.
func (c *junitCase) addReruns(t *Test) {
	first := Run{Status: t.Status, Message: t.Message, Output: t.Output}
	var runs []Run
	if t.Status.Failed() {
		runs = append(runs, first)
	}
	for _, pr := range c.reruns {
		runs = append(runs, Run{Status: kindStatus(pr.kind), Message: problemMessage(pr), Output: pr.body.String()})
	}
	if !t.Status.Failed() {
		runs = append(runs, first)
		t.Flaky = t.Status == breaker.StatusPass
	}
	t.Runs = runs
}

func kindStatus(kind string) breaker.TestStatus {
	switch kind {
	case "error", "flakyError", "rerunError":
		return breaker.StatusError
	case "skipped":
		return breaker.StatusSkip
	}
	return breaker.StatusFail
}

// attrStatus maps a testcase status attribute (tst, xunit, bazel) to a status.
func attrStatus(s string) breaker.TestStatus {
	switch s {
	case "disabled", "skipped", "skip", "notrun", "not run", "ignored":
		return breaker.StatusSkip
	case "failed", "failure", "fail":
		return breaker.StatusFail
	case "error", "errored":
		return breaker.StatusError
	}
	return breaker.StatusPass
}

// genericMessages are message attributes that say nothing: gotestsum
// writes "Failed" for every failure.
var genericMessages = map[string]bool{"": true, "failed": true, "failure": true, "fail": true, "error": true, "errored": true, "skipped": true}

// problemMessage is the message attribute, or, when it is a generic word
// (Failed, failure, empty), the first meaningful line of the element's
// text: not blank and not a "=== RUN" or "--- FAIL" line of go test.
func problemMessage(pr *junitProblem) string {
	if !genericMessages[strings.ToLower(strings.TrimSpace(pr.message))] {
		return pr.message
	}
	if line := meaningfulLine(pr.body.head); line != "" {
		return line
	}
	return pr.message
}

// meaningfulLine is the first line of text that says something.
func meaningfulLine(text []byte) string {
	body := text
	for len(body) > 0 {
		line := body
		if i := strings.IndexByte(string(body), '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		s := strings.TrimSpace(string(line))
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- FAIL") || strings.HasPrefix(s, "--- PASS") {
			continue
		}
		return s
	}
	return ""
}
