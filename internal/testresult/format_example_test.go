package testresult_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// A new result format is one entry of testresult.Formats: how a file
// names it, and its parser. Detection, Parse, the unrecognised-format
// error and `breaker results --help` read the table. Here a toy format of
// "PASS name" and "FAIL name: message" lines is added, read, and taken
// out again (docs/architecture.md).
func ExampleFormatSpec_addAFormat() {
	lines := testresult.FormatSpec{
		Format: "lines", Title: "PASS/FAIL lines",
		Line: func(line []byte) bool {
			return bytes.HasPrefix(line, []byte("PASS ")) || bytes.HasPrefix(line, []byte("FAIL "))
		},
		Parse: func(r io.Reader) (*testresult.Result, error) {
			res := &testresult.Result{Format: "lines"}
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				verdict, rest, _ := strings.Cut(sc.Text(), " ")
				name, msg, _ := strings.Cut(rest, ": ")
				t := testresult.Test{Name: name, Status: breaker.StatusPass}
				if verdict == "FAIL" {
					t.Status, t.Message = breaker.StatusFail, msg
				}
				res.Tests = append(res.Tests, t)
			}
			return res, sc.Err()
		},
	}
	saved := testresult.Formats
	testresult.Formats = append(append([]testresult.FormatSpec(nil), saved...), lines)
	defer func() { testresult.Formats = saved }()

	res, err := testresult.Parse(strings.NewReader("PASS TestSignup\nFAIL TestLogin: want 200, got 503\n"), testresult.FormatAuto)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Format)
	for _, t := range res.Tests {
		fmt.Printf("%s %s %q\n", t.Name, t.Status, t.Message)
	}
	fmt.Println(testresult.FormatTitles("and"))
	// Output:
	// lines
	// TestSignup pass ""
	// TestLogin fail "want 200, got 503"
	// JUnit XML, go test -json, TAP 13, NUnit XML, xUnit.net v2 XML, TRX and PASS/FAIL lines
}
