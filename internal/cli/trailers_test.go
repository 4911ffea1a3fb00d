package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runTrailersCmd runs `breaker trailers args...` through Main.
func runTrailersCmd(stdin string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	getenv := func(string) string { return "" }
	argv := append([]string{"breaker", "trailers"}, args...)
	code = Main(context.Background(), argv, getenv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestTrailers_Help(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runTrailersCmd("", "--help")
	if code != ExitClosed || stderr != "" {
		t.Fatalf("trailers --help: exit %d, stderr %q; want exit %d and no stderr", code, stderr, ExitClosed)
	}
	matchGolden(t, "trailers/help.golden", stdout)
	for _, code := range []string{"0 ", "1 ", "2 "} {
		if !strings.Contains(stdout, "\n  "+code) {
			t.Errorf("trailers --help does not name exit code %q", code)
		}
	}
}

func TestTrailers_Message(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stdin string
		want  string
	}{
		{"no trailers", "Fix the cache\n\nA body.\n", "[]\n"},
		{"empty input", "", "[]\n"},
		{"trailers in order", "Fix\n\nGreenlight-Test: TestA\nSigned-off-by: Ann <ann@example.com>\n",
			`[["Greenlight-Test","TestA"],["Signed-off-by","Ann <ann@example.com>"]]` + "\n"},
		{"folded value", "Fix\n\nGreenlight-Strategy: bump\n  the key\n", `[["Greenlight-Strategy","bump the key"]]` + "\n"},
		{"quotes and control bytes stay JSON", "Fix\n\nKey: say \"hi\"\tnow\x01\n",
			`[["Key","say \"hi\"\tnow\u0001"]]` + "\n"},
		{"invalid UTF-8 is replaced", "Fix\n\nKey: a\xffb\n", `[["Key","a\ufffdb"]]` + "\n"},
		{"workflow command stays inside JSON", "Fix\n\nKey: a\n ::error::b\n", `[["Key","a ::error::b"]]` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, stderr, code := runTrailersCmd(tt.stdin)
			if code != ExitClosed || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want exit %d", code, stderr, ExitClosed)
			}
			if got != tt.want {
				t.Errorf("stdout = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTrailers_JSONL(t *testing.T) {
	t.Parallel()
	stdin := `{"sha":"abc","message":"Fix\n\nKey: v\n"}` + "\n" +
		`{"message":"no trailers"}` + "\r\n" +
		`{"message":"Fix\n\nA: 1\nB:2\n","extra":[1,2]}`
	want := `[["Key","v"]]` + "\n[]\n" + `[["A","1"],["B","2"]]` + "\n"
	got, stderr, code := runTrailersCmd(stdin, "--jsonl")
	if code != ExitClosed || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want exit %d", code, stderr, ExitClosed)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout mismatch (-want +got):\n%s", diff)
	}
}

func TestTrailers_Errors(t *testing.T) {
	t.Parallel()
	good := `{"message":"Fix\n\nKey: v\n"}` + "\n"
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStdout string
		wantErr    string
	}{
		{"malformed JSON", good + "{not json\n", []string{"--jsonl"}, ExitError, `[["Key","v"]]` + "\n", "stdin line 2: not a JSON object"},
		{"not an object", "[1,2]\n", []string{"--jsonl"}, ExitError, "", "stdin line 1: not a JSON object"},
		{"no message field", good + good + `{"Message":"x"}`, []string{"--jsonl"}, ExitError,
			strings.Repeat(`[["Key","v"]]`+"\n", 2), `stdin line 3: no "message" field`},
		{"message not a string", `{"message":42}`, []string{"--jsonl"}, ExitError, "", `stdin line 1: "message" is 42, want a string`},
		{"message null", `{"message":null}`, []string{"--jsonl"}, ExitError, "", `stdin line 1: "message" is null, want a string`},
		{"empty line", good + "\n" + good, []string{"--jsonl"}, ExitError, `[["Key","v"]]` + "\n", "stdin line 2: empty line"},
		{"unknown flag", "", []string{"--json"}, ExitUsage, "", "flag provided but not defined: -json"},
		{"argument", "", []string{"msg.txt"}, ExitUsage, "", `unexpected argument "msg.txt"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runTrailersCmd(tt.stdin, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantErr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tt.wantErr)
			}
		})
	}
}

// TestTrailers_RealCommits runs --jsonl over the real-commit fixture: every
// line must print exactly git's own parse.
func TestTrailers_RealCommits(t *testing.T) {
	t.Parallel()
	const path = "../../../shared/fixtures/trailers/real-commits.jsonl"
	input, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("corpus: %s not found (the ../shared corpus beside the repository)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runTrailersCmd(string(input), "--jsonl")
	if code != ExitClosed {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	inLines := strings.Split(strings.TrimSuffix(string(input), "\n"), "\n")
	outLines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(outLines) != len(inLines) {
		t.Fatalf("got %d output lines for %d input lines", len(outLines), len(inLines))
	}
	for i, line := range inLines {
		var rec struct {
			SHA      string      `json:"sha"`
			Trailers [][2]string `json:"trailers"`
		}
		var got [][2]string
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("fixture line %d: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(outLines[i]), &got); err != nil {
			t.Fatalf("output line %d: %v", i+1, err)
		}
		if diff := cmp.Diff(rec.Trailers, got); diff != "" {
			t.Errorf("line %d (%s) mismatch (-git +breaker):\n%s", i+1, rec.SHA, diff)
		}
	}
}
