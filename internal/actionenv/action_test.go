package actionenv

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestAction_Untrusted(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	a := New(mapEnv(nil), &log)
	a.Mask("ghs_secret123")
	evil := "fix: thing\n::error::forged\n::add-mask::x\n::stop-commands::abc\nleak ghs_secret123\n::abc::"
	a.Untrusted(evil)
	got := log.String()
	if strings.Count(got, "ghs_secret123") != 1 {
		t.Errorf("token printed beyond its ::add-mask:: line:\n%s", got)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if lines[0] != "::add-mask::ghs_secret123" {
		t.Fatalf("first line = %q, want the add-mask command", lines[0])
	}
	m := regexp.MustCompile(`^::stop-commands::(breaker-[A-Z2-7]{26})$`).FindStringSubmatch(lines[1])
	if m == nil {
		t.Fatalf("line 2 = %q, want ::stop-commands::<random token>", lines[1])
	}
	if last := lines[len(lines)-1]; last != "::"+m[1]+"::" {
		t.Errorf("last line = %q, want ::%s::", last, m[1])
	}
	body := strings.Join(lines[2:len(lines)-1], "\n")
	want := strings.ReplaceAll(evil, "ghs_secret123", "***")
	if body != want {
		t.Errorf("block body = %q, want %q", body, want)
	}
}

func TestAction_Untrusted_freshTokens(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	a := New(mapEnv(nil), &log)
	a.Untrusted("one")
	a.Untrusted("two")
	tokens := regexp.MustCompile(`::stop-commands::(\S+)`).FindAllStringSubmatch(log.String(), -1)
	if len(tokens) != 2 || tokens[0][1] == tokens[1][1] {
		t.Errorf("stop tokens = %v, want two different ones", tokens)
	}
}

func TestAction_Annotate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		level          Level
		title, message string
		want           string
	}{
		{LevelError, "Circuit breaker OPEN: S-3", "3 failed attempts", "::error title=Circuit breaker OPEN%3A S-3::3 failed attempts\n"},
		{LevelWarning, "a,b", "50%\r\n::error::x", "::warning title=a%2Cb::50%25%0D%0A::error::x\n"},
		{LevelNotice, "", "token ghs_secret123 here", "::notice::token *** here\n"},
	}
	for _, tt := range tests {
		var log strings.Builder
		a := New(mapEnv(nil), &log)
		a.log.addSecret("ghs_secret123")
		a.Annotate(tt.level, tt.title, tt.message)
		if got := log.String(); got != tt.want {
			t.Errorf("Annotate(%q, %q) printed %q, want %q", tt.title, tt.message, got, tt.want)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestAction_writeErrorsNeverPanic(t *testing.T) {
	t.Parallel()
	w := &failWriter{}
	a := New(mapEnv(nil), w)
	a.Mask("secret-value")
	a.Annotate(LevelError, "t", "m")
	a.Logf("line %d", 1)
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Err() = %v, want the write error", err)
	}
	if w.n != 1 {
		t.Errorf("writes after the first failure = %d, want none", w.n-1)
	}
}

func TestAction_Mask_short(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	a := New(mapEnv(nil), &log)
	a.Mask("ab")
	a.Logf("ab cd")
	if got := log.String(); got != "ab cd\n" {
		t.Errorf("log = %q, want a too-short secret ignored", got)
	}
}

// parseOutputs reads a GITHUB_OUTPUT file back as the runner does.
func parseOutputs(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("line %q is not name<<delimiter", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("delimiter %q of %s never closed", delim, name)
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func TestAction_SetOutputs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	a := New(mapEnv(map[string]string{"GITHUB_OUTPUT": path}), nil)
	a.log.addSecret("ghs_secret123")
	outs := []Output{
		{"state", "OPEN"},
		{"trip-reason", "per_test"},
		{"multi", "line one\nEOF\nghadelimiter_x\nline ghs_secret123"},
	}
	if err := a.SetOutputs(outs); err != nil {
		t.Fatalf("SetOutputs() error = %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := parseOutputs(t, string(data))
	want := map[string]string{"state": "OPEN", "trip-reason": "per_test", "multi": "line one\nEOF\nghadelimiter_x\nline ***"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("output %s = %q, want %q", k, got[k], v)
		}
	}
	delims := regexp.MustCompile(`<<(ghadelimiter_[A-Z2-7]{26})\n`).FindAllStringSubmatch(string(data), -1)
	if len(delims) != 3 || delims[0][1] == delims[1][1] {
		t.Errorf("delimiters = %v, want three fresh random ones", delims)
	}
	if err := a.SetOutputs([]Output{{"bad name", "x"}}); err == nil {
		t.Error("SetOutputs() accepted an output name with a space")
	}
}

func TestAction_filesNeedTheRunner(t *testing.T) {
	t.Parallel()
	a := New(mapEnv(nil), nil)
	if err := a.SetOutputs([]Output{{"a", "b"}}); err == nil || !strings.Contains(err.Error(), "GITHUB_OUTPUT") {
		t.Errorf("SetOutputs() error = %v, want it to name GITHUB_OUTPUT", err)
	}
	if err := a.WriteSummary("x"); err == nil || !strings.Contains(err.Error(), "GITHUB_STEP_SUMMARY") {
		t.Errorf("WriteSummary() error = %v, want it to name GITHUB_STEP_SUMMARY", err)
	}
}

func TestAction_WriteSummary(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary")
	a := New(mapEnv(map[string]string{"GITHUB_STEP_SUMMARY": path}), nil)
	a.log.addSecret("ghs_secret123")
	for _, md := range []string{"# one ghs_secret123\n", "# two\n"} {
		if err := a.WriteSummary(md); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	if got, want := string(data), "# one ***\n# two\n"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}

func TestCapSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		cut  bool
	}{
		{"small", "# ok\n", false},
		{"exactly the limit", strings.Repeat("a", MaxSummary), false},
		{"ascii over", strings.Repeat("a", MaxSummary+10), true},
		{"multibyte over", strings.Repeat("é", MaxSummary), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CapSummary(tt.in)
			if len(got) > MaxSummary {
				t.Errorf("len = %d, want ≤ %d", len(got), MaxSummary)
			}
			if cut := strings.Contains(got, "**Summary truncated**"); cut != tt.cut {
				t.Errorf("truncation said = %v, want %v", cut, tt.cut)
			}
			if !tt.cut && got != tt.in {
				t.Error("a summary under the limit was changed")
			}
			if tt.cut && !strings.HasPrefix(tt.in, strings.Split(got, "\n\n---\n")[0]) {
				t.Error("the kept part is not a prefix of the input (cut inside a rune?)")
			}
		})
	}
}
