package testresult

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestParseJUnit_Markup(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name string
		in   string
		want []Test
	}{
		{
			name: "CRLF and CR become LF, CDATA kept as written",
			in:   "<testsuite><testcase name=\"t\"><failure>a\r\nb\rc<![CDATA[<&>\r\n]]]]></failure></testcase></testsuite>",
			want: []Test{{Name: "t", Status: breaker.StatusFail, Message: "a", Output: "a\nb\nc<&>\n]]"}},
		},
		{
			name: "comments, processing instructions and a DOCTYPE with '>' inside",
			in: `<?xml version="1.0"?><!-- a > b --><!DOCTYPE x [<!ENTITY e "a>b"> <!-- ] > -->]>` +
				`<testsuite><?pi x?><!-- <testcase name="no"/> --><testcase name="yes"/></testsuite>`,
			want: []Test{{Name: "yes", Status: breaker.StatusPass}},
		},
		{
			name: "namespace prefixes, single quotes, unquoted and bare attributes, blanks around =",
			in:   `<j:testsuite xmlns:j="urn:x"><j:testcase classname = 'C' name=bare flag><j:failure message='it&apos;s'/></j:testcase></j:testsuite>`,
			want: []Test{{Suite: "C", Name: "bare", Status: breaker.StatusFail, Message: "it's"}},
		},
		{
			name: "character references, valid and invalid",
			in:   `<testsuite><testcase name="&#x41;&#66;&#27;&unknown;&amp"><error>&lt;&#x1F600;&gt;&#0;</error></testcase></testsuite>`,
			want: []Test{{Name: "AB&#27;&unknown;&amp", Status: breaker.StatusError, Message: "<😀>&#0;", Output: "<😀>&#0;"}},
		},
		{
			name: "text and CDATA longer than the read buffer",
			in:   `<testsuite><testcase name="t"><failure message="m">` + long + `<![CDATA[` + long + `]]></failure></testcase></testsuite>`,
			want: []Test{{Name: "t", Status: breaker.StatusFail, Message: "m", Output: capText(long + long)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []struct {
				name string
				wrap func(string) *Result
			}{
				{"whole", func(s string) *Result { res, _ := ParseJUnit(strings.NewReader(s)); return res }},
				{"byte by byte", func(s string) *Result { res, _ := ParseJUnit(iotest.OneByteReader(strings.NewReader(s))); return res }},
			} {
				res := r.wrap(tt.in)
				if res == nil {
					t.Fatalf("%s: got an error, want none", r.name)
				}
				if diff := cmp.Diff(tt.want, res.Tests); diff != "" {
					t.Errorf("%s: tests (-want +got):\n%s", r.name, diff)
				}
			}
		})
	}
}

// TestParseJUnit_ReadSizes reads every JUnit fixture one byte at a time and
// in odd chunks, and wants the same result as one read: no token may be lost
// or cut where a read ends.
func TestParseJUnit_ReadSizes(t *testing.T) {
	t.Parallel()
	dir := fixtures(t, "junit/enricomi")
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.xml"))
	top, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	for _, path := range append(paths, top...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := ParseJUnit(bytes.NewReader(data))
		got, gotErr := ParseJUnit(iotest.OneByteReader(bytes.NewReader(data)))
		half, halfErr := ParseJUnit(iotest.HalfReader(bytes.NewReader(data)))
		if diff := cmp.Diff(want, got); diff != "" || (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s byte by byte: errors %v / %v, (-whole +bytes):\n%s", path, wantErr, gotErr, diff)
		}
		if diff := cmp.Diff(want, half); diff != "" || (wantErr == nil) != (halfErr == nil) {
			t.Errorf("%s in halves: errors %v / %v, (-whole +halves):\n%s", path, wantErr, halfErr, diff)
		}
	}
}
