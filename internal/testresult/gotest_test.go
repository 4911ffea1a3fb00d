package testresult

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestParseGoTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		in           string
		want         []Test
		wantInfra    []string
		wantWarnings []string
	}{
		{
			name: "pass, fail with location, skip, subtest",
			in: `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:12: got 1, want 2\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"run","Package":"p","Test":"TestB/empty_input"}
{"Action":"pass","Package":"p","Test":"TestB/empty_input"}
{"Action":"run","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: needs a database\n"}
{"Action":"skip","Package":"p","Test":"TestC"}
{"Action":"fail","Package":"p"}
`,
			want: []Test{
				{Suite: "p", Name: "TestA", Status: breaker.StatusFail, Message: "got 1, want 2", File: "a_test.go", Line: 12,
					Output: "=== RUN   TestA\n    a_test.go:12: got 1, want 2\n--- FAIL: TestA (0.00s)\n"},
				{Suite: "p", Name: "TestB/empty_input", Status: breaker.StatusPass},
				{Suite: "p", Name: "TestC", Status: breaker.StatusSkip, Message: "needs a database", File: "c_test.go", Line: 3},
			},
		},
		{
			name: "build-output and build-fail events are infra",
			in: `{"ImportPath":"x/y [x/y.test]","Action":"build-output","Output":"# x/y [x/y.test]\n"}
{"ImportPath":"x/y [x/y.test]","Action":"build-output","Output":"./a.go:3:2: undefined: z\n"}
{"ImportPath":"x/y [x/y.test]","Action":"build-fail"}
{"Action":"start","Package":"x/y"}
{"Action":"output","Package":"x/y","Output":"FAIL\tx/y [build failed]\n"}
{"Action":"fail","Package":"x/y","Elapsed":0,"FailedBuild":"x/y [x/y.test]"}
`,
			wantInfra: []string{"build failed: x/y [x/y.test]: ./a.go:3:2: undefined: z"},
		},
		{
			name: "non-JSON lines mixed in are read as text",
			in: `warning: something odd
{"Action":"run","Package":"p","Test":"TestA"}
not json at all
{"Action":"pass","Package":"p","Test":"TestA"}
{ broken json
`,
			want:         []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusPass}},
			wantWarnings: []string{"1 lines start with '{' but are not JSON events; read as text (first: line 5 (offset 132): invalid character 'b' looking for beginning of object key string)"},
		},
		{
			name: "a JSON line that is not an event is text",
			in: `{"level":"info","msg":"server started"}
{"Action":"pass","Package":"p","Test":"TestA"}
`,
			want: []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusPass}},
		},
		{
			name: "duplicate keys: the event is a failure, whichever comes last",
			in: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA","action":"pass"}
`,
			want:         []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusFail}},
			wantWarnings: []string{`1 events name a key twice and were read as failures (first: line 2 names "Action" twice)`},
		},
		{
			name: "unknown actions are ignored with a warning",
			in: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"teleport","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
`,
			want:         []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusPass}},
			wantWarnings: []string{`unknown action "teleport" ignored (1 events)`},
		},
		{
			name: "a test started but never finished fails",
			in: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"p"}
`,
			want: []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusFail, Message: "panic: test timed out after 1s",
				Output: "panic: test timed out after 1s\n"}},
			wantWarnings: []string{"p.TestA started but never reported a result: counted as a failure"},
		},
		{
			name: "failed then passed on a rerun is flaky, both outcomes kept",
			in: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:1: boom\n"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
`,
			want: []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusPass, Flaky: true, Runs: []Run{
				{Status: breaker.StatusFail, Message: "boom", Output: "    a_test.go:1: boom\n"},
				{Status: breaker.StatusPass},
			}}},
		},
		{
			name: "passed then failed is a failure",
			in: `{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA"}
`,
			want: []Test{{Suite: "p", Name: "TestA", Status: breaker.StatusFail, Runs: []Run{
				{Status: breaker.StatusPass}, {Status: breaker.StatusFail},
			}}},
		},
		{
			name: "a binary that crashed before any test is infra",
			in: `{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"panic: init failed\n"}
{"Action":"fail","Package":"p"}
`,
			wantInfra: []string{"the test binary of p failed before any test ran: panic: init failed"},
		},
		{
			name:      "setup failure printed as text is infra",
			in:        "# p\nno Go files in /x\nFAIL\tp [setup failed]\n",
			wantInfra: []string{"setup failed: p: no Go files in /x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := ParseGoTest(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if diff := cmp.Diff(tt.want, res.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantInfra, res.Infra); diff != "" {
				t.Errorf("infra (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, res.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseGoTest_LongLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10)
	in := `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"output","Package":"p","Test":"TestA","Output":"` + big + `\n"}` + "\n" +
		`{"Action":"fail","Package":"p","Test":"TestA"}` + "\n"
	res, err := ParseGoTest(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 1 || res.Tests[0].Status != breaker.StatusFail {
		t.Fatalf("got %+v, want one failing test", res.Tests)
	}
	out := res.Tests[0].Output
	cut := int64(len(big) + 1 - MaxTextBytes)
	if !strings.Contains(out, cutNote(cut)) || len(out) != MaxTextBytes+len(cutNote(cut)) {
		t.Errorf("got output of %d bytes, want %d kept around the note %q", len(out), MaxTextBytes, cutNote(cut))
	}
}

func TestParseGoTest_Empty(t *testing.T) {
	t.Parallel()
	_, err := ParseGoTest(strings.NewReader(""))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Msg != "empty file" {
		t.Errorf("got %v, want the empty file error", err)
	}
}

// A go test -json file cut in the middle of an event, or with a broken
// event inside, is read as far as it goes and says where it is broken
// (Malformed): the command line refuses such a file, the Action reads on.
func TestParseGoTest_MalformedSaysWhere(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		line     int
		words    string
	}{
		{"truncated", "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n{\"Action\":\"fail\",\"Pack", 2, "truncated"},
		{"a broken event inside", "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n{\"Action\":\"pass\"\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\"}\n", 2, "corrupt"},
		{"whole", "{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\"}", 0, ""},
	}
	for _, c := range cases {
		res, err := ParseGoTest(strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.line == 0 && res.Malformed != nil:
			t.Errorf("%s: Malformed %v, want none", c.name, res.Malformed)
		case c.line > 0 && (res.Malformed == nil || res.Malformed.Line != c.line || !strings.Contains(res.Malformed.Msg, c.words)):
			t.Errorf("%s: Malformed %v, want line %d saying %q", c.name, res.Malformed, c.line, c.words)
		}
	}
}

// TestParseGoTest_InterleavingChangesNoResult runs the same tests twice:
// each test's events in one block, then every test's events interleaved
// as parallel tests write them (each test's own order kept). The parser
// remembers the last event's test to skip a map lookup; whatever the
// order, every test must come out the same: status, message, output and
// reruns.
func TestParseGoTest_InterleavingChangesNoResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	for round := range 50 {
		var tests [][]string
		for i := range 2 + rng.IntN(12) {
			pkg := fmt.Sprintf("example.com/p%d", rng.IntN(3))
			name := fmt.Sprintf("Test%d", i)
			if rng.IntN(4) == 0 {
				name += "/sub"
			}
			ev := func(action, output string) string {
				line := fmt.Sprintf(`{"Action":%q,"Package":%q,"Test":%q`, action, pkg, name)
				if output != "" {
					line += fmt.Sprintf(`,"Output":%q`, output)
				}
				return line + "}\n"
			}
			var lines []string
			for run := range 1 + rng.IntN(3) { // reruns: -count or a retrying runner
				lines = append(lines, ev("run", ""), ev("output", "=== RUN   "+name+"\n"))
				verdict := []string{"pass", "fail", "skip"}[rng.IntN(3)]
				if verdict == "fail" {
					lines = append(lines, ev("output", fmt.Sprintf("    x_test.go:%d: run %d broke\n", 10+run, run)))
				}
				if rng.IntN(5) > 0 { // else: it never reports, and counts as failed
					lines = append(lines, ev("output", "--- "+strings.ToUpper(verdict)+": "+name+" (0.00s)\n"), ev(verdict, ""))
				}
			}
			tests = append(tests, lines)
		}
		var blocks, interleaved strings.Builder
		next := make([]int, len(tests))
		for _, lines := range tests {
			blocks.WriteString(strings.Join(lines, ""))
		}
		for left := true; left; {
			left = false
			for _, i := range rng.Perm(len(tests)) {
				if next[i] < len(tests[i]) {
					interleaved.WriteString(tests[i][next[i]])
					next[i]++
					left = true
				}
			}
		}
		byName := func(stream string) map[string]Test {
			res, err := ParseGoTest(strings.NewReader(stream))
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]Test{}
			for _, x := range res.Tests {
				m[x.FullName()] = x
			}
			return m
		}
		a, b := byName(blocks.String()), byName(interleaved.String())
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("round %d: interleaved (+) against in blocks (-):\n%s\n%s", round, diff, interleaved.String())
		}
	}
}
