package testresult

import (
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// ParseNUnit reads an NUnit XML file: NUnit 3's <test-run> (test-case
// fullname, classname, result Passed/Failed/Skipped/Inconclusive, label
// Error) and NUnit 2's <test-results> (test-case name, executed, result or
// success). A test is its class and its name as NUnit gives them, the
// parameters of a parameterized case included; the message is the
// failure's (or reason's) <message>, the output its <stack-trace> and the
// case's <output>. Repeated cases in one file are reruns.
func ParseNUnit(r io.Reader) (*Result, error) {
	p := &nunitParser{xmlCase{tree: xmlTree{root: "NUnit", roots: nunitRoots}}}
	if err := parseXML(r, p, p.tree.done); err != nil {
		return nil, err
	}
	return &Result{Format: FormatNUnit, Tests: p.tests.slice()}, nil
}

type nunitParser struct{ xmlCase }

func (p *nunitParser) start(raw []byte, attrs []rawAttr) error {
	name, inCase, err := p.open(raw, attrs, "test-case", p.startCase)
	if err != nil || !inCase {
		return err
	}
	switch {
	case name == "failure" && len(p.tree.stack) == p.caseDepth+1:
		if p.tc.Status == breaker.StatusPass { // NUnit 2 without a result attribute
			p.tc.Status = breaker.StatusFail
		}
	case name == "message" && (p.tree.parent(1) == "failure" || p.tree.parent(1) == "reason"):
		p.tree.captureInto(&p.message)
	case name == "stack-trace" && p.tree.parent(1) == "failure":
		p.tree.captureInto(&p.stack)
	case name == "output" && len(p.tree.stack) == p.caseDepth+1:
		p.tree.captureInto(&p.output)
	}
	return nil
}

func (p *nunitParser) startCase(attrs []rawAttr) {
	t := Test{Status: breaker.StatusPass}
	full := attrValue(attrs, "fullname")
	t.Suite, t.Name = attrValue(attrs, "classname"), attrValue(attrs, "name")
	switch {
	case full == "" && t.Suite == "": // NUnit 2: name is the full name
		t.Suite, t.Name = splitQualified(t.Name)
	case t.Suite == "":
		t.Suite, _ = splitQualified(full)
	}
	result := strings.ToLower(attrValue(attrs, "result"))
	label := strings.ToLower(attrValue(attrs, "label"))
	switch {
	case strings.EqualFold(attrValue(attrs, "executed"), "false"):
		t.Status = breaker.StatusSkip
	case result == "failed" || result == "failure":
		t.Status = breaker.StatusFail
		if label == "error" || label == "cancelled" || label == "invalid" {
			t.Status = breaker.StatusError
		}
	case result == "error" || result == "notrunnable":
		t.Status = breaker.StatusError
	case result == "skipped" || result == "ignored" || result == "inconclusive" || result == "notrun":
		t.Status = breaker.StatusSkip
	case result == "" && strings.EqualFold(attrValue(attrs, "success"), "false"):
		t.Status = breaker.StatusFail
	}
	p.begin(t)
}

func (p *nunitParser) end(raw []byte) error { return p.finish(raw, combineRerun) }
