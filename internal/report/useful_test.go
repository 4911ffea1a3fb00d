package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/report"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// On the real runners' failures (internal/testresult/testdata/runners),
// the useful lines are the ones that say what failed: Jest's Expected and
// Received, pytest's E lines, mocha's comparison, Go's got/want; never a
// stack frame.
func TestUsefulLines_RealRunners(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, test string
		want       []string
	}{
		{"jest-junit.xml", "cart rejects expired code", []string{"Expected value to strictly be equal to:", "Received:"}},
		{"pytest-junit.xml", "test_escape_backtick", []string{"E       AssertionError: assert '`' == '&#96;'"}},
		{"mocha-junit.xml", "cart rejects expired code", []string{"1 !== 2"}},
		{"gotest-table.json", "TestDivide/odd", []string{"Divide(7, 2) = 3, want 4"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join("..", "testresult", "testdata", "runners", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var res *testresult.Result
			if strings.HasSuffix(tc.file, ".json") {
				res, err = testresult.ParseGoTest(f)
			} else {
				res, err = testresult.ParseJUnit(f)
			}
			if err != nil {
				t.Fatal(err)
			}
			m := testresult.Match(res.Tests, tc.test)
			if len(m) != 1 {
				t.Fatalf("%q matches %d tests", tc.test, len(m))
			}
			out := m[0].Message + "\n" + m[0].Output
			useful, _ := report.UsefulLines(out)
			for _, w := range tc.want {
				if !strings.Contains(useful, w) {
					t.Errorf("the useful lines lack %q:\n%s", w, useful)
				}
			}
			for _, l := range strings.Split(useful, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "at ") || strings.Contains(l, "node_modules") {
					t.Errorf("a stack frame is kept: %q", l)
				}
			}
		})
	}
}
