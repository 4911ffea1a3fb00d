package testresult

import (
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// ParseXUnit reads an xUnit.net v2 XML file (<assemblies>, or one
// <assembly>): each <test> with its type, method, name and result
// (Pass/Fail/Skip/NotRun). A test is its class (type) and its method, as
// xUnit.net reports them; the cases of one theory (the same method with
// other arguments) are one test whose worst case decides, every case kept
// in Runs. The message is the failure's <message> (or the <reason> of a
// skip), the output its <stack-trace> and the test's <output>.
func ParseXUnit(r io.Reader) (*Result, error) {
	p := &xunitParser{xmlCase{tree: xmlTree{root: "xUnit.net v2", roots: xunitRoots}}}
	if err := parseXML(r, p, p.tree.done); err != nil {
		return nil, err
	}
	return &Result{Format: FormatXUnit, Tests: p.tests.slice()}, nil
}

type xunitParser struct{ xmlCase }

func (p *xunitParser) start(raw []byte, attrs []rawAttr) error {
	name, inCase, err := p.open(raw, attrs, "test", p.startTest)
	if err != nil || !inCase {
		return err
	}
	switch {
	case name == "message" && p.tree.parent(1) == "failure":
		p.tree.captureInto(&p.message)
	case name == "reason" && len(p.tree.stack) == p.caseDepth+1:
		p.tree.captureInto(&p.message)
	case name == "stack-trace" && p.tree.parent(1) == "failure":
		p.tree.captureInto(&p.stack)
	case name == "output" && len(p.tree.stack) == p.caseDepth+1:
		p.tree.captureInto(&p.output)
	}
	return nil
}

func (p *xunitParser) startTest(attrs []rawAttr) {
	t := Test{Status: breaker.StatusPass, Suite: attrValue(attrs, "type"), Name: attrValue(attrs, "method")}
	if t.Name == "" || t.Suite == "" {
		suite, name := splitQualified(attrValue(attrs, "name"))
		if t.Suite == "" {
			t.Suite = suite
		}
		if t.Name == "" {
			t.Name = name
		}
	}
	switch strings.ToLower(attrValue(attrs, "result")) {
	case "fail":
		t.Status = breaker.StatusFail
	case "skip", "notrun":
		t.Status = breaker.StatusSkip
	}
	p.begin(t)
}

func (p *xunitParser) end(raw []byte) error { return p.finish(raw, combineWorst) }
