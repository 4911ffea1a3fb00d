package testresult

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestParseJUnit_Dialects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []Test
	}{
		{
			name: "testsuites root, nested suites, file and line",
			in: `<?xml version="1.0"?><testsuites><testsuite name="outer"><testsuite name="inner">
<testcase classname="pkg.C" name="test_a" file="t/a.py" line="12"><failure message="assert 1 == 2">Traceback
  line 2</failure></testcase></testsuite>
<testcase classname="pkg.C" name="test_b"/></testsuite></testsuites>`,
			want: []Test{
				{Suite: "pkg.C", Name: "test_a", Status: breaker.StatusFail, Message: "assert 1 == 2", Output: "Traceback\n  line 2", File: "t/a.py", Line: 12},
				{Suite: "pkg.C", Name: "test_b", Status: breaker.StatusPass},
			},
		},
		{
			name: "several results in one case: error wins, every text kept",
			in: `<testsuite><testcase classname="C" name="t"><skipped/><failure message="f">F</failure>` +
				`<error message="e">E</error><system-out>out</system-out><system-err>err</system-err></testcase></testsuite>`,
			want: []Test{{Suite: "C", Name: "t", Status: breaker.StatusError, Message: "e", Output: "F\nE\nout\nerr"}},
		},
		{
			name: "skipped with a message, properties and suite output ignored",
			in: `<testsuite><properties><property name="a" value="b"/></properties>` +
				`<testcase name="s"><skipped message="no db"/></testcase><system-out>suite</system-out></testsuite>`,
			want: []Test{{Name: "s", Status: breaker.StatusSkip, Message: "no db"}},
		},
		{
			name: "status attribute without child elements",
			in:   `<testsuite><testcase name="d" status="disabled"/><testcase name="f" status="failed"/><testcase name="r" status="run"/></testsuite>`,
			want: []Test{
				{Name: "d", Status: breaker.StatusSkip},
				{Name: "f", Status: breaker.StatusFail},
				{Name: "r", Status: breaker.StatusPass},
			},
		},
		{
			name: "failure without a message attribute: first non-blank line",
			in:   "<testsuite><testcase name=\"t\"><failure>\n\n  AssertionError: boom\n  at x</failure></testcase></testsuite>",
			want: []Test{{Name: "t", Status: breaker.StatusFail, Message: "AssertionError: boom", Output: "\n\n  AssertionError: boom\n  at x"}},
		},
		{
			name: "surefire flakyFailure: passed on rerun, both outcomes kept",
			in: `<testsuite><testcase classname="C" name="t"><flakyFailure message="m1" type="X">` +
				`<stackTrace>trace1</stackTrace></flakyFailure></testcase></testsuite>`,
			want: []Test{{Suite: "C", Name: "t", Status: breaker.StatusPass, Flaky: true, Runs: []Run{
				{Status: breaker.StatusFail, Message: "m1", Output: "trace1"},
				{Status: breaker.StatusPass},
			}}},
		},
		{
			name: "surefire rerunFailure: failed every time",
			in: `<testsuite><testcase classname="C" name="t"><failure message="m0">t0</failure>` +
				`<rerunError message="m1"><stackTrace>t1</stackTrace></rerunError></testcase></testsuite>`,
			want: []Test{{Suite: "C", Name: "t", Status: breaker.StatusFail, Message: "m0", Output: "t0", Runs: []Run{
				{Status: breaker.StatusFail, Message: "m0", Output: "t0"},
				{Status: breaker.StatusError, Message: "m1", Output: "t1"},
			}}},
		},
		{
			name: "a name repeated in one file is a rerun: the last outcome decides, flaky, every outcome kept",
			in:   `<testsuite><testcase classname="C" name="t"><failure message="m"/></testcase><testcase classname="C" name="t"/></testsuite>`,
			want: []Test{{Suite: "C", Name: "t", Status: breaker.StatusPass, Flaky: true, Runs: []Run{
				{Status: breaker.StatusFail, Message: "m"},
				{Status: breaker.StatusPass},
			}}},
		},
		{
			name: "DTD entities are never expanded",
			in: `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>` +
				`<testsuite><testcase name="&lol2;"><failure message="&amp;&lt;&#65;"/></testcase></testsuite>`,
			want: []Test{{Name: "&lol2;", Status: breaker.StatusFail, Message: "&<A"}},
		},
		{
			name: "ESC, NUL and invalid UTF-8 are replaced, not fatal",
			in:   "<testsuite><testcase name=\"a\x00b\"><failure message=\"\x1b[31mred\">bad \xff\xfe byte</failure></testcase></testsuite>",
			want: []Test{{Name: "a\uFFFDb", Status: breaker.StatusFail, Message: "\uFFFD[31mred", Output: "bad \uFFFD\uFFFD byte"}},
		},
		{
			name: "a declared legacy encoding is read as UTF-8",
			in:   `<?xml version="1.0" encoding="ISO-8859-1"?><testsuite><testcase name="é"/></testsuite>`,
			want: []Test{{Name: "é", Status: breaker.StatusPass}},
		},
		{
			name: "class attribute when classname is missing",
			in:   `<testsuite><testcase class="K" name="t"/></testsuite>`,
			want: []Test{{Suite: "K", Name: "t", Status: breaker.StatusPass}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := ParseJUnit(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if diff := cmp.Diff(tt.want, res.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseJUnit_BadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		wantMsg    string
		wantOffset int64
	}{
		{"truncated", `<testsuite><testcase name="a"><failure>boo`, "unexpected end of file inside <failure>", 42},
		{"truncated inside a tag", `<testsuite><testcase name="a`, "unexpected end of file inside markup", 28},
		{"several roots", `<testsuite></testsuite><testsuite>`, "several root elements", 23},
		{"tests is not a number", `<testsuites><testsuite tests="abc">`, `<testsuite tests="abc">: not a count`, 12},
		{"failures is not a number", `<testsuites failures="1x"><testsuite>`, `<testsuites failures="1x">: not a count`, 0},
		{"not JUnit", `<suites><suite/></suites>`, "not a JUnit XML file: the root element is <suites>", 0},
		{"mismatched end tag", `<testsuite><testcase></testsuite>`, "end tag </testsuite> does not match <testcase>", 33},
		{"text after the root", `<testsuite/>garbage`, "text outside the root element", 12},
		{"only a prolog", `<?xml version="1.0"?>`, "no XML element found", 21},
		{"unclosed attribute value", `<testsuite><testcase name="a/>`, "unexpected end of file inside markup", 30},
		{"'<' inside a tag", `<testsuite><testcase name=a <x>`, "'<' inside a tag", 11},
		{"unclosed comment", `<testsuite><!-- never closed`, "unexpected end of file inside markup", 28},
		{"unclosed CDATA", `<testsuite><testcase><failure><![CDATA[ never closed`, "unexpected end of file inside markup", 52},
		{"offset counts replaced bytes once", "<testsuite><testcase name=\"\x1b\xff\">", "unexpected end of file inside <testcase>", 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseJUnit(strings.NewReader(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if !strings.Contains(pe.Msg, tt.wantMsg) || pe.Offset != tt.wantOffset {
				t.Errorf("got %q at offset %d, want %q at offset %d", pe.Msg, pe.Offset, tt.wantMsg, tt.wantOffset)
			}
		})
	}
}

func TestParseJUnit_ClaimWithoutCases(t *testing.T) {
	t.Parallel()
	in := `<testsuites><testsuite tests="6" failures="1" errors="0" skipped="2"></testsuite></testsuites>`
	res, err := ParseJUnit(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &Counts{Total: 6, Passed: 3, Failed: 1, Skipped: 2}
	if diff := cmp.Diff(want, res.Claimed); diff != "" || len(res.Tests) != 0 {
		t.Errorf("got %d tests, claim (-want +got):\n%s", len(res.Tests), diff)
	}
	rep := Merge([]File{{Path: "r.xml", Result: res}}, nil)
	if got, want := rep.Infra, "zero tests: the suites claim 6 tests (1 failed, 0 errored, 2 skipped) but list none"; got != want {
		t.Errorf("got infra %q, want %q", got, want)
	}
}
