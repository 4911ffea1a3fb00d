package testresult

import (
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The root elements of the .NET formats: what detection (Formats) and
// each reader's check of the root both read.
var (
	nunitRoots = []string{"test-run", "test-results", "test-suite"}
	xunitRoots = []string{"assemblies", "assembly"}
	trxRoots   = []string{"TestRun"}
)

// xmlCase is what the NUnit and xUnit.net readers share: the element tree,
// the tests so far, and the case being read with its message, stack trace
// and output.
type xmlCase struct {
	tree      xmlTree
	tests     testList
	index     testIndex
	tc        *Test
	caseDepth int
	message   capBuf
	stack     capBuf
	output    capBuf
}

func (c *xmlCase) text(data []byte) error { return c.tree.text(data) }

// open enters an element: at caseName, outside a case, it starts one
// (begin reads the case's attributes). inCase says whether the element is
// inside a case, where the reader looks for its message and output.
func (c *xmlCase) open(raw []byte, attrs []rawAttr, caseName string, begin func([]rawAttr)) (name string, inCase bool, err error) {
	name = string(raw)
	if err := c.tree.open(name); err != nil {
		return "", false, err
	}
	if c.tc == nil {
		if name == caseName {
			begin(attrs)
		}
		return name, false, nil
	}
	return name, true, nil
}

// begin starts reading case t at the current element.
func (c *xmlCase) begin(t Test) {
	c.tc, c.caseDepth = &t, len(c.tree.stack)
	c.message.reset()
	c.stack.reset()
	c.output.reset()
}

// finish closes an element; at the end of the case it keeps the case, its
// message when it did not pass and its output when it failed, combining
// repeated names with combine.
func (c *xmlCase) finish(raw []byte, combine func(old *Test, t Test)) error {
	depth, err := c.tree.close(string(raw))
	if err != nil || c.tc == nil || depth != c.caseDepth {
		return err
	}
	t := *c.tc
	c.tc = nil
	if t.Status != breaker.StatusPass {
		t.Message = strings.TrimSpace(c.message.String())
	}
	if t.Status.Failed() {
		t.Output = joinOutput(c.stack.String(), c.output.String())
	}
	c.index.add(&c.tests, t, combine)
	return nil
}

// joinOutput joins the non-empty parts of a failure's output.
func joinOutput(parts ...string) string {
	var keep []string
	for _, s := range parts {
		if strings.TrimSpace(s) != "" {
			keep = append(keep, strings.TrimRight(s, "\n"))
		}
	}
	return capText(strings.Join(keep, "\n"))
}
