package testresult

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The real runners' outputs (testdata/runners, with the commands that made
// them): one name per test, the name the runner prints, and the same title
// in two describe blocks two tests — never a rerun that passed.
func TestRunners_NamesAsTheRunnersPrintThem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want []string // name=status
	}{
		{"jest-junit.xml", []string{"cart applies SAVE20 code=pass", "cart rejects expired code=fail", "checkout rejects expired code=pass"}},
		{"mocha-junit.xml", []string{"cart applies SAVE20 code=pass", "cart rejects expired code=fail", "checkout rejects expired code=pass"}},
		{"node-test.xml", []string{"cart > applies SAVE20 code=pass", "cart > rejects expired code=fail", "checkout > rejects expired code=pass"}},
		{"node-test.tap", []string{"cart > applies SAVE20 code=pass", "cart > rejects expired code=fail", "checkout > rejects expired code=pass"}},
		{"mocha.tap", []string{"cart applies SAVE20 code=pass", "cart rejects expired code=fail", "checkout rejects expired code=pass"}},
		{"vitest-junit.xml", []string{"cart.vitest.test.js.cart > applies SAVE20 code=pass", "cart.vitest.test.js.cart > rejects expired code=fail",
			"cart.vitest.test.js.checkout > rejects expired code=pass"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			res := parseRunnerFile(t, tc.file)
			var got []string
			for _, x := range res.Tests {
				got = append(got, x.FullName()+"="+string(x.Status))
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
		})
	}
}

// A trailer names a test the way its runner's users write it: an it()
// title (unique: the test; in two describes: ambiguous), a pytest function
// (every parametrized case, failing while any fails) or its node id.
func TestRunners_TrailerFormsResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, name string
		want       []string // full name=status of the match
	}{
		{"jest-junit.xml", "applies SAVE20 code", []string{"cart applies SAVE20 code=pass"}},
		{"jest-junit.xml", "cart rejects expired code", []string{"cart rejects expired code=fail"}},
		{"jest-junit.xml", "rejects expired code", []string{"cart rejects expired code=fail", "checkout rejects expired code=pass"}},
		{"mocha-junit.xml", "applies SAVE20 code", []string{"cart applies SAVE20 code=pass"}},
		{"node-test.tap", "applies SAVE20 code", []string{"cart > applies SAVE20 code=pass"}},
		{"node-test.xml", "cart > rejects expired code", []string{"cart > rejects expired code=fail"}},
		{"vitest-junit.xml", "cart > rejects expired code", []string{"cart.vitest.test.js.cart > rejects expired code=fail"}},
		{"pytest-junit.xml", "test_escape", []string{"tests.test_escape.test_escape=fail"}},
		{"pytest-junit.xml", "tests/test_escape.py::test_escape", []string{"tests.test_escape.test_escape=fail"}},
		{"pytest-junit.xml", "tests/test_escape.py::test_escape_backtick", []string{"tests.test_escape.test_escape_backtick=fail"}},
	} {
		t.Run(tc.file+" "+tc.name, func(t *testing.T) {
			t.Parallel()
			res := parseRunnerFile(t, tc.file)
			var got []string
			for _, x := range Match(res.Tests, tc.name) {
				got = append(got, x.FullName()+"="+string(x.Status))
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Match(%q) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

// mocha's TAP reporter writes a failure's message and stack as indented
// lines after the test line, with no YAML block: they are the failure's
// output, never dropped (issue 33).
func TestRunners_MochaTAPKeepsTheFailureLines(t *testing.T) {
	t.Parallel()
	res := parseRunnerFile(t, "mocha.tap")
	for _, x := range res.Tests {
		if x.Status != "fail" {
			if x.Message != "" {
				t.Errorf("%s passed with a message %q", x.FullName(), x.Message)
			}
			continue
		}
		for _, want := range []string{"1 !== 2", "AssertionError [ERR_ASSERTION]", "cart.spec.js:4:45"} {
			if !strings.Contains(x.Message+x.Output, want) {
				t.Errorf("%s: the failure lacks %q: message %q", x.FullName(), want, x.Message)
			}
		}
		if strings.HasPrefix(x.Output, " ") {
			t.Errorf("the block's indentation is kept: %q", x.Output)
		}
	}
}

func parseRunnerFile(t *testing.T, name string) *Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "runners", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var res *Result
	if strings.HasSuffix(name, ".tap") {
		res, err = ParseTAP(f)
	} else {
		res, err = ParseJUnit(f)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}
