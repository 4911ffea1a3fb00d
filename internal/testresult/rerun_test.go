package testresult

import (
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The rerun rule is one rule for every format: inside one file, repeated
// runs of a test are reruns, the last outcome that is not a skip decides,
// and a test whose runs differ and that ends passing is flaky. Each case is
// written as go test -json, JUnit and TAP and must read the same.
func TestReruns_OneRuleForEveryFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		runs  []string // pass, fail, skip
		want  breaker.TestStatus
		flaky bool
	}{
		{"fail then pass is a flaky pass", []string{"fail", "pass"}, breaker.StatusPass, true},
		{"pass then fail fails", []string{"pass", "fail"}, breaker.StatusFail, false},
		{"a skip does not decide", []string{"fail", "skip"}, breaker.StatusFail, false},
		{"fail fail pass is flaky", []string{"fail", "fail", "pass"}, breaker.StatusPass, true},
		{"fail twice fails", []string{"fail", "fail"}, breaker.StatusFail, false},
		{"only skips skip", []string{"skip", "skip"}, breaker.StatusSkip, false},
	}
	formats := map[string]func(runs []string) string{
		"gotest": func(runs []string) string {
			var b strings.Builder
			for _, r := range runs {
				fmt.Fprintf(&b, `{"Action":"run","Package":"p","Test":"TestX"}`+"\n")
				fmt.Fprintf(&b, `{"Action":"%s","Package":"p","Test":"TestX","Elapsed":0.1}`+"\n", r)
			}
			return b.String()
		},
		"junit": func(runs []string) string {
			var b strings.Builder
			b.WriteString(`<testsuite name="p">`)
			for _, r := range runs {
				switch r {
				case "fail":
					b.WriteString(`<testcase classname="p" name="TestX"><failure message="boom"/></testcase>`)
				case "skip":
					b.WriteString(`<testcase classname="p" name="TestX"><skipped/></testcase>`)
				default:
					b.WriteString(`<testcase classname="p" name="TestX"/>`)
				}
			}
			b.WriteString(`</testsuite>`)
			return b.String()
		},
		"tap": func(runs []string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "TAP version 13\n1..%d\n", len(runs))
			for i, r := range runs {
				switch r {
				case "fail":
					fmt.Fprintf(&b, "not ok %d - TestX\n", i+1)
				case "skip":
					fmt.Fprintf(&b, "ok %d - TestX # SKIP later\n", i+1)
				default:
					fmt.Fprintf(&b, "ok %d - TestX\n", i+1)
				}
			}
			return b.String()
		},
	}
	for _, c := range cases {
		for format, write := range formats {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				res, err := Parse(strings.NewReader(write(c.runs)), FormatAuto)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Tests) != 1 {
					t.Fatalf("%d tests, want 1: %+v", len(res.Tests), res.Tests)
				}
				got := res.Tests[0]
				if got.Status != c.want || got.Flaky != c.flaky || len(got.Runs) != len(c.runs) {
					t.Errorf("status %s flaky %v runs %d; want %s, %v, %d", got.Status, got.Flaky, len(got.Runs), c.want, c.flaky, len(c.runs))
				}
			})
		}
	}
}

// Across files (a matrix of jobs) the worst outcome still wins.
func TestReruns_AcrossFilesTheWorstWins(t *testing.T) {
	t.Parallel()
	read := func(s string) *Result {
		res, err := Parse(strings.NewReader(s), FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rep := Merge([]File{
		{Path: "linux.xml", Result: read(`<testsuite><testcase classname="p" name="TestX"><failure message="boom"/></testcase></testsuite>`)},
		{Path: "mac.xml", Result: read(`<testsuite><testcase classname="p" name="TestX"/></testsuite>`)},
	}, nil)
	if len(rep.Tests) != 1 || rep.Tests[0].Status != breaker.StatusFail || rep.Tests[0].Flaky {
		t.Errorf("tests %+v; want one failing test, not flaky", rep.Tests)
	}
}

// Nested suites without classnames qualify their cases: two cases named A
// in two suites are two tests, and the failure of either is kept.
func TestParseJUnit_NestedSuitesQualifyCasesWithoutClassname(t *testing.T) {
	t.Parallel()
	in := `<testsuites><testsuite name="TestA"><testcase classname="" name="A"/><testcase name="B"/></testsuite>` +
		`<testsuite name="TestB"><testcase classname="" name="A"><failure message="boom"/></testcase>` +
		`<testsuite name="Inner"><testcase name="A"/></testsuite></testsuite>` +
		`<testsuite name="TestC"><testcase classname="pkg" name="A"/></testsuite></testsuites>`
	res, err := ParseJUnit(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range res.Tests {
		got = append(got, tc.FullName()+"="+string(tc.Status))
	}
	want := "TestA.A=pass TestA.B=pass TestB.A=fail TestB.Inner.A=pass pkg.A=pass"
	if strings.Join(got, " ") != want {
		t.Errorf("tests %s\nwant  %s", strings.Join(got, " "), want)
	}
}

// A generic message attribute (gotestsum's "Failed") gives way to the
// first meaningful line of the failure text; node:test's TAP error is read.
func TestMessages_GenericWordsGiveWay(t *testing.T) {
	t.Parallel()
	junit := `<testsuite><testcase classname="p" name="TestX"><failure message="Failed" type="">=== RUN   TestX
    x_test.go:12: want 409, got 500
--- FAIL: TestX (0.00s)
</failure></testcase><testcase classname="p" name="TestY"><failure message="expected true">x</failure></testcase></testsuite>`
	res, err := ParseJUnit(strings.NewReader(junit))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Tests[0].Message; got != "x_test.go:12: want 409, got 500" {
		t.Errorf("TestX message %q, want the first meaningful line", got)
	}
	if got := res.Tests[1].Message; got != "expected true" {
		t.Errorf("TestY message %q, want the attribute kept", got)
	}
	tap := "TAP version 13\n1..1\nnot ok 1 - adds numbers\n  ---\n  duration_ms: 1.2\n  failureType: 'testCodeFailure'\n  error: 'Expected values to be strictly equal'\n  code: 'ERR_ASSERTION'\n  ...\n"
	tr, err := ParseTAP(strings.NewReader(tap))
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Tests[0].Message; got != "Expected values to be strictly equal" {
		t.Errorf("node:test message %q, want its error", got)
	}
}
