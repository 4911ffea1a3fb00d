package testresult_test

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// Parse detects the format from the content. Inside one file a repeated
// test is a rerun: the last outcome that is not a skip decides, and a pass
// after a failure is flaky.
func ExampleParse_reruns() {
	junit := `<testsuite name="users">
  <testcase classname="users" name="TestLogin"><failure message="Failed">    login_test.go:12: want 200, got 503</failure></testcase>
  <testcase classname="users" name="TestLogin"/>
  <testcase classname="users" name="TestSignup"><failure message="duplicate e-mail"/></testcase>
</testsuite>`
	res, err := testresult.Parse(strings.NewReader(junit), testresult.FormatAuto)
	if err != nil {
		panic(err)
	}
	for _, t := range res.Tests {
		fmt.Printf("%s %s flaky=%v runs=%d\n", t.FullName(), t.Status, t.Flaky, len(t.Runs))
	}
	// Output:
	// users.TestLogin pass flaky=true runs=2
	// users.TestSignup fail flaky=false runs=0
}

// Cases without a classname are qualified by their enclosing suites, and
// a generic message ("Failed") gives way to the first line of the text.
func ExampleParse_nestedSuites() {
	junit := `<testsuites>
  <testsuite name="cart"><testcase name="totals"><failure message="Failed">expected 30 to equal 31</failure></testcase></testsuite>
  <testsuite name="checkout"><testcase name="totals"/></testsuite>
</testsuites>`
	res, _ := testresult.Parse(strings.NewReader(junit), testresult.FormatAuto)
	for _, t := range res.Tests {
		fmt.Printf("%s %s %q\n", t.FullName(), t.Status, t.Message)
	}
	// Output:
	// cart.totals fail "expected 30 to equal 31"
	// checkout.totals pass ""
}

// go test -json, TAP, NUnit, xUnit.net and TRX are read the same way.
func ExampleParse_tap() {
	tap := "TAP version 13\n1..2\nok 1 - adds numbers\nnot ok 2 - divides by zero\n  ---\n  error: 'Expected an exception'\n  ...\n"
	res, _ := testresult.Parse(strings.NewReader(tap), testresult.FormatAuto)
	fmt.Println(res.Format)
	for _, t := range res.Tests {
		fmt.Printf("%s %s %q\n", t.Name, t.Status, t.Message)
	}
	// Output:
	// tap
	// adds numbers pass ""
	// divides by zero fail "Expected an exception"
}
