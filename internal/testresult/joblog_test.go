package testresult_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// stamped prefixes every line with a timestamp, as GitHub's job log
// download does.
func stamped(log string) []byte {
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		lines[i] = fmt.Sprintf("2026-11-25T10:%02d:%02d.%07dZ %s", i/60%60, i%60, i*7919%10000000, l)
	}
	return []byte(strings.Join(lines, "\n"))
}

func readings(l testresult.JobLog) []string {
	var out []string
	for _, t := range l.Tests {
		out = append(out, string(t.Status)+" "+t.FullName())
	}
	sort.Strings(out)
	return out
}

// Each runner's own console output (testdata/joblogs), read as GitHub
// serves it: the tests it names, named as the runner's result file names
// them (testdata/runners, read by the result parsers).
func TestReadJobLog_RealRunnersOutput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, runner string
		want         []string
	}{
		{"jest.log", "jest", []string{"fail cart rejects expired code", "pass cart applies SAVE20 code", "pass checkout rejects expired code"}},
		{"mocha.log", "mocha", []string{"fail cart rejects expired code", "pass cart applies SAVE20 code", "pass checkout rejects expired code"}},
		{"nodetest.log", "node:test", []string{"fail cart > rejects expired code", "pass cart > applies SAVE20 code", "pass checkout > rejects expired code"}},
		{"nodespec.log", "node:test", []string{"fail cart > rejects expired code", "pass cart > applies SAVE20 code", "pass checkout > rejects expired code"}},
		{"vitest.log", "vitest", []string{"fail cart.vitest.test.js.cart > rejects expired code", "pass cart.vitest.test.js.cart > applies SAVE20 code",
			"pass cart.vitest.test.js.checkout > rejects expired code"}},
		{"gotest.log", "go test", []string{"fail example.com/calc.TestDivide", "fail example.com/calc.TestDivide/by_zero", "fail example.com/calc.TestDivide/odd"}},
		{"gotest-v.log", "go test", []string{"fail example.com/calc.TestDivide", "fail example.com/calc.TestDivide/by_zero", "fail example.com/calc.TestDivide/odd",
			"pass example.com/calc.TestDivide/even"}},
		{"pytest.log", "pytest", []string{"fail tests.test_escape.test_escape[`-&#96;]", "fail tests.test_escape.test_escape_backtick"}},
		{"pytest-v.log", "pytest", []string{"fail tests.test_escape.test_escape[`-&#96;]", "fail tests.test_escape.test_escape_backtick",
			"pass tests.test_escape.test_escape[<-&lt;]", "pass tests.test_escape.test_escape[a-a]"}},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata/joblogs", c.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range [][]byte{data, stamped(string(data))} {
			got := testresult.ReadJobLog(in)
			if !reflect.DeepEqual(readings(got), c.want) {
				t.Errorf("%s: read\n  %q\nwant\n  %q", c.file, readings(got), c.want)
			}
			if !reflect.DeepEqual(got.Runners, []string{c.runner}) {
				t.Errorf("%s: runners %q, want [%s]", c.file, got.Runners, c.runner)
			}
		}
	}
}

// The runners whose output was not made here: the line shapes their
// documentation shows (Maven Surefire 3 and 2, Gradle, dotnet test).
func TestReadJobLog_JavaAndDotnetLines(t *testing.T) {
	t.Parallel()
	log := strings.Join([]string{
		"[INFO] Running com.example.CartTest",
		"[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! -- in com.example.CartTest",
		"[ERROR] com.example.CartTest.rejectsExpired -- Time elapsed: 0.012 s <<< FAILURE!",
		"rejectsCoupon(com.example.CouponTest)  Time elapsed: 0.01 sec  <<< ERROR!",
		"com.example.OrderTest > totalsTax() FAILED",
		"com.example.OrderTest > roundsDown() PASSED",
		"  Failed Shop.Tests.CartTests.RejectsExpired [12 ms]",
		"  Passed Shop.Tests.CartTests.AppliesCode [1 ms]",
	}, "\n")
	got := readings(testresult.ReadJobLog(stamped(log)))
	want := []string{"error com.example.CouponTest.rejectsCoupon", "fail Shop.Tests.CartTests.RejectsExpired", "fail com.example.CartTest.rejectsExpired",
		"fail com.example.OrderTest.totalsTax", "pass Shop.Tests.CartTests.AppliesCode", "pass com.example.OrderTest.roundsDown"}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read\n  %q\nwant\n  %q", got, want)
	}
}

// A log with no runner's output, or binary junk, names no test.
func TestReadJobLog_NothingKnown(t *testing.T) {
	t.Parallel()
	for _, log := range []string{"", "Run actions/checkout@v4\nSyncing repository\n", "\x00\x01\xff\xfe" + strings.Repeat("x", 200_000)} {
		if got := testresult.ReadJobLog([]byte(log)); len(got.Tests) != 0 {
			t.Errorf("%.40q: read %q", log, readings(got))
		}
	}
}

func FuzzReadJobLog(f *testing.F) {
	for _, name := range []string{"jest.log", "mocha.log", "nodetest.log", "vitest.log", "gotest-v.log", "pytest-v.log"} {
		data, err := os.ReadFile(filepath.Join("testdata/joblogs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := testresult.ReadJobLog(data)
		seen := map[string]bool{}
		for _, tc := range l.Tests {
			if tc.Name == "" || len(tc.Name) > 1024 || seen[tc.Name] {
				t.Fatalf("test %q: empty, over-long or named twice", tc.Name)
			}
			seen[tc.Name] = true
		}
	})
}
