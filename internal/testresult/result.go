package testresult

import (
	"fmt"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Format names a result file format.
type Format string

// The formats Parse reads. FormatAuto asks Parse to detect the format from
// the content.
const (
	FormatAuto   Format = ""
	FormatJUnit  Format = "junit"
	FormatGoTest Format = "gotest"
	FormatTAP    Format = "tap"
	FormatNUnit  Format = "nunit"
	FormatXUnit  Format = "xunit"
	FormatTRX    Format = "trx"
)

// Test is one test of a run, after its runs in one file were combined.
type Test struct {
	// Suite qualifies Name: the JUnit classname or the Go package import
	// path; empty for TAP and for JUnit cases without a classname.
	Suite string
	// Name is the test's own name as the framework gives it: the JUnit
	// testcase name, the Go test name (TestX/sub), the TAP description.
	Name    string
	Status  breaker.TestStatus
	Message string // the failure (or skip) message, exact, capped at MaxTextBytes
	Output  string // the failure output, exact, capped at MaxTextBytes
	File    string // source file, when the results say it
	Line    int    // source line, when the results say it
	// Flaky is set when the test failed and then passed on a rerun; Status
	// is then pass and Runs keeps every outcome.
	Flaky bool
	// Runs lists every outcome, in order, when the test ran more than once
	// (reruns, or the same name reported twice); nil for a single run.
	Runs []Run
}

// Run is one outcome of a test that ran more than once.
type Run struct {
	Status  breaker.TestStatus
	Message string
	Output  string
}

// FullName returns the test's stable name: Suite and Name joined by a dot
// (classname.name, or package.TestName), or Name alone without a Suite.
func (t Test) FullName() string {
	if t.Suite == "" {
		return t.Name
	}
	return t.Suite + "." + t.Name
}

// Counts are the numbers of tests by status.
type Counts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errored"`
	Skipped int `json:"skipped"`
}

// Add counts one test of status s.
func (c *Counts) Add(s breaker.TestStatus) {
	c.Total++
	switch s {
	case breaker.StatusPass:
		c.Passed++
	case breaker.StatusFail:
		c.Failed++
	case breaker.StatusError:
		c.Errored++
	case breaker.StatusSkip:
		c.Skipped++
	}
}

// CountTests counts tests by status.
func CountTests(tests []Test) Counts {
	var c Counts
	for i := range tests {
		c.Add(tests[i].Status)
	}
	return c
}

// Result is what one result file says.
type Result struct {
	Format Format
	Tests  []Test
	// Infra lists why tests in this file did not run: a build failure, a
	// test binary that crashed before any test, a bail-out before any test.
	Infra []string
	// Claimed holds the counts the file's suites declare when it lists no
	// test cases at all; no tests are invented from it.
	Claimed *Counts
	// Warnings are notes about what was tolerated: unknown events, a test
	// binary that failed outside any test, declared counts that disagree.
	Warnings []string
	// Malformed is where a file is broken though it was read: a go test
	// -json line that starts an event and is not one (the stream is
	// truncated there when it is the last line). The Action reads on, as
	// the warning says; the command line, whose files are the user's own,
	// refuses such a file. nil when there is none.
	Malformed *ParseError
}

// ParseError is a file that cannot be read as its format. Offset is the
// byte offset in the file where reading stopped; Line is 1-based, 0 when
// unknown.
type ParseError struct {
	Format Format // the format the file was read as; "" when not recognised
	Offset int64
	Line   int
	Msg    string
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("offset %d (line %d): %s", e.Offset, e.Line, e.Msg)
	}
	return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
}
