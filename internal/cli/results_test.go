package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/report"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// runBreaker runs the command line and returns its exit code and output.
func runBreaker(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(string) string { return "" }
	code = Main(context.Background(), append([]string{"breaker"}, args...), getenv, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

const resultsWS = "testdata/results/ws"

func TestResults_Help(t *testing.T) {
	t.Parallel()
	code, out, _ := runBreaker(t, "results", "--help")
	if code != ExitClosed {
		t.Errorf("got exit %d, want 0", code)
	}
	for _, want := range []string{"Exit codes:", "  0  ", "  1  ", "  2  "} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	matchGolden(t, "results/help.golden", out)
}

func TestResults_Golden(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runBreaker(t, "results", "--format", format, "--workspace", resultsWS, "**/*.xml", "go/*.json", "tap/out.tap")
			if code != ExitError {
				t.Errorf("got exit %d, want 1 (two broken files); stderr %q", code, errOut)
			}
			matchGolden(t, "results/all."+format+".golden", out)
		})
	}
}

func TestResults_TextIsSafe(t *testing.T) {
	t.Parallel()
	_, out, _ := runBreaker(t, "results", "--workspace", resultsWS, "junit/nested/evil.xml")
	for i, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Errorf("line %d starts a workflow command: %q", i+1, line)
		}
	}
	if strings.ContainsAny(out, "\x1b\x00\r") {
		t.Errorf("got raw control characters in %q", out)
	}
}

func TestResults_JSONShape(t *testing.T) {
	t.Parallel()
	code, out, _ := runBreaker(t, "results", "--format", "json", "--workspace", resultsWS, "junit/pass.xml")
	if code != ExitClosed {
		t.Fatalf("got exit %d, want 0", code)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"files":  []any{map[string]any{"path": "junit/pass.xml", "format": "junit", "error": nil, "warnings": []any{}}},
		"counts": map[string]any{"total": 3.0, "passed": 2.0, "failed": 0.0, "errored": 0.0, "skipped": 1.0},
		"infra":  nil,
	}
	delete(got, "tests")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
}

func TestResults_ExitAndUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantStderr string
	}{
		{"every file read", []string{"--workspace", resultsWS, "tap/out.tap"}, ExitClosed, "infra: no", ""},
		{"no file matched", []string{"--workspace", resultsWS, "nothing/**/*.xml"}, ExitError, "infra: no result files matched nothing/**/*.xml", ""},
		{"a named file is missing", []string{"--workspace", resultsWS, "tap/out.tap", "missing.xml"}, ExitError, "file missing.xml: error: missing.xml: no such file", ""},
		{"empty file", []string{"--workspace", resultsWS, "broken/empty.xml"}, ExitError, "file broken/empty.xml: error: broken/empty.xml: offset 0: empty file", ""},
		{"no files named", nil, ExitUsage, "", "name at least one result FILE or GLOB"},
		{"bad format", []string{"--format", "xml", "a"}, ExitUsage, "", "--format must be text or json"},
		{"unknown flag", []string{"--nope"}, ExitUsage, "", "flag provided but not defined"},
		{"glob outside the workspace", []string{"--workspace", resultsWS, "../*.golden"}, ExitError, "", "is outside the workspace"},
		{"invalid glob", []string{"--workspace", resultsWS, "a/[b"}, ExitError, "", "is not a valid pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runBreaker(t, append([]string{"results"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want exit %d with %q and %q", code, out, errOut, tt.wantCode, tt.wantOut, tt.wantStderr)
			}
		})
	}
}

// The JSON example docs/results.md shows is the shape breaker results
// writes: every key it names is one the command writes, and every key the
// command writes is in it (issue 33: every example in the docs checked).
func TestResults_DocumentedJSONIsTheShape(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "The JSON format (`--format json`)")
	if !ok {
		t.Fatal("docs/results.md no longer describes the JSON format")
	}
	_, rest, _ = strings.Cut(rest, "```json\n")
	example, _, _ := strings.Cut(rest, "```")
	dec := json.NewDecoder(strings.NewReader(example))
	dec.DisallowUnknownFields()
	var got resultsJSON
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("the documented example is not what breaker results writes: %v", err)
	}
	keys := func(s string) []string {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		var out []string
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					out = append(out, prefix+k)
					walk(prefix+k+".", e)
				}
			case []any:
				for _, e := range x {
					walk(prefix, e)
				}
			}
		}
		walk("", v)
		sort.Strings(out)
		return slices.Compact(out)
	}
	back, _ := json.Marshal(got)
	if a, b := keys(example), keys(string(back)); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("the documented keys\n%v\ndiffer from the written ones\n%v", a, b)
	}
}

// The JSON report is written a test at a time, and is the document
// json.MarshalIndent gives of the whole, byte for byte: no tests, one,
// many, with runs, and text that must be defused.
func TestResults_JSONStreamedIsTheWholeDocument(t *testing.T) {
	t.Parallel()
	reports := []testresult.Report{
		{},
		{Infra: "no result file matched", Files: []testresult.File{{Path: "a.xml", Err: errors.New("missing")}}},
		{Tests: []testresult.Test{{Name: "TestA", Status: "pass"}}},
		{Tests: []testresult.Test{
			{Suite: "p", Name: "TestB", Status: "fail", Message: "::error::boom <&>", Output: "##[group]x\n::warning::y", File: "b_test.go", Line: 3,
				Runs: []testresult.Run{{Status: "fail", Message: "first"}, {Status: "pass"}}, Flaky: true},
			{Suite: "p", Name: `T"q"`, Status: "skip"},
		}},
	}
	for i, rep := range reports {
		var got strings.Builder
		if err := writeResultsJSON(&got, rep); err != nil {
			t.Fatal(err)
		}
		whole := resultsJSON{Files: []fileJSON{}, Counts: rep.Counts(), Tests: []testJSON{}, Infra: optional(rep.Infra)}
		for _, f := range rep.Files {
			fj := fileJSON{Path: f.Path, Format: optional(fileFormat(f)), Warnings: []string{}}
			if f.Err != nil {
				fj.Error = optional(f.Err.Error())
			}
			whole.Files = append(whole.Files, fj)
		}
		for _, tt := range rep.Tests {
			whole.Tests = append(whole.Tests, testOf(tt))
		}
		data, err := json.MarshalIndent(whole, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if want := report.DefuseCommands(string(data) + "\n"); got.String() != want {
			t.Errorf("report %d: streamed\n%s\nwant\n%s", i, got.String(), want)
		}
	}
}
