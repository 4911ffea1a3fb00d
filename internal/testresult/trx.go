package testresult

import (
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// ParseTRX reads a Visual Studio TRX file (dotnet test --logger trx): the
// <UnitTestResult> of each test (outcome Passed, Failed, Error, Timeout,
// Aborted, NotExecuted, Inconclusive...), named by its testName and, from
// <TestDefinitions>, its class. A data-driven result with <InnerResults>
// is one test whose inner results are its runs. The message is
// <ErrorInfo><Message>, the output its <StackTrace> and <StdOut>.
func ParseTRX(r io.Reader) (*Result, error) {
	p := &trxParser{tree: xmlTree{root: "TRX", roots: trxRoots}, classes: map[string]string{}}
	if err := parseXML(r, p, p.tree.done); err != nil {
		return nil, err
	}
	tests := p.results
	for i := range tests {
		if class, ok := p.classes[p.ids[i]]; ok && tests[i].Suite == "" {
			tests[i].Suite = class
			if rest, ok := strings.CutPrefix(tests[i].Name, class+"."); ok {
				tests[i].Name = rest
			}
		}
	}
	var list testList
	var index testIndex
	for _, t := range tests {
		index.add(&list, t, combineRerun)
	}
	return &Result{Format: FormatTRX, Tests: list.slice()}, nil
}

type trxParser struct {
	tree    xmlTree
	results []Test
	ids     []string          // testId of each result
	classes map[string]string // testId → class name, from TestDefinitions
	defID   string            // the UnitTest being read in TestDefinitions
	open    []trxResult       // results being read (outer, then inner)
	message capBuf
	stack   capBuf
	stdout  capBuf
}

type trxResult struct {
	t     Test
	id    string
	depth int
	inner []Run
}

func (p *trxParser) text(data []byte) error { return p.tree.text(data) }

func (p *trxParser) start(raw []byte, attrs []rawAttr) error {
	name := string(raw)
	if err := p.tree.open(name); err != nil {
		return err
	}
	switch {
	case name == "UnitTestResult":
		t := Test{Name: attrValue(attrs, "testName"), Status: trxStatus(attrValue(attrs, "outcome"))}
		p.open = append(p.open, trxResult{t: t, id: attrValue(attrs, "testId"), depth: len(p.tree.stack)})
		p.message.reset()
		p.stack.reset()
		p.stdout.reset()
	case name == "UnitTest":
		p.defID = attrValue(attrs, "id")
	case name == "TestMethod" && p.defID != "":
		if class := attrValue(attrs, "className"); class != "" {
			if i := strings.IndexByte(class, ','); i >= 0 { // "Namespace.Class, Assembly, Version=..."
				class = class[:i]
			}
			p.classes[p.defID] = strings.TrimSpace(class)
		}
	case len(p.open) > 0 && name == "Message" && p.tree.parent(1) == "ErrorInfo":
		p.tree.captureInto(&p.message)
	case len(p.open) > 0 && name == "StackTrace" && p.tree.parent(1) == "ErrorInfo":
		p.tree.captureInto(&p.stack)
	case len(p.open) > 0 && name == "StdOut":
		p.tree.captureInto(&p.stdout)
	}
	return nil
}

func (p *trxParser) end(raw []byte) error {
	name := string(raw)
	depth, err := p.tree.close(name)
	if err != nil {
		return err
	}
	switch {
	case name == "UnitTest":
		p.defID = ""
	case name == "UnitTestResult" && len(p.open) > 0 && depth == p.open[len(p.open)-1].depth:
		r := p.open[len(p.open)-1]
		p.open = p.open[:len(p.open)-1]
		t := r.t
		if t.Status != breaker.StatusPass {
			t.Message = strings.TrimSpace(firstLine(p.message.String()))
			if t.Message == "" {
				t.Message = strings.TrimSpace(p.message.String())
			}
		}
		if t.Status.Failed() {
			t.Output = joinOutput(p.message.String(), p.stack.String(), p.stdout.String())
		}
		if n := len(p.open); n > 0 { // an inner result of a data-driven test
			p.open[n-1].inner = append(p.open[n-1].inner, Run{Status: t.Status, Message: t.Message, Output: t.Output})
			return nil
		}
		if len(r.inner) > 0 {
			t.Runs = r.inner
			for _, run := range r.inner {
				if rank(run.Status) > rank(t.Status) {
					t.Status, t.Message, t.Output = run.Status, run.Message, run.Output
				}
			}
		}
		p.results = append(p.results, t)
		p.ids = append(p.ids, r.id)
	}
	return nil
}

// trxStatus maps a TRX outcome to a status.
func trxStatus(outcome string) breaker.TestStatus {
	switch strings.ToLower(outcome) {
	case "passed", "passedbutrunaborted", "completed":
		return breaker.StatusPass
	case "failed":
		return breaker.StatusFail
	case "error", "timeout":
		return breaker.StatusError
	}
	// NotExecuted, Inconclusive, Pending, Disconnected, Warning,
	// NotRunnable, and Aborted (the run stopped before the test ended), as
	// the test-report actions count them.
	return breaker.StatusSkip
}
