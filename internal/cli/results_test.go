package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
