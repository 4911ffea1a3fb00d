package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// hugeOutput is a failure output far beyond any comment's size.
func hugeOutput(lines int) string {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "    panic_test.go:%d: frame %d of a very long stack trace ````\n", i, i)
	}
	return b.String()
}

func TestMarkdown_Truncation(t *testing.T) {
	t.Parallel()
	manyNotes := perTestDecision()
	for i := range 2000 {
		manyNotes.Notes = append(manyNotes.Notes, fmt.Sprintf("note %d: a result name matched by suffix", i))
	}
	hugeError := perTestDecision()
	hugeError.Diagnostics[0].ActualError = hugeOutput(5000)
	hugeError.Attempts[0].Error = hugeOutput(3000)
	tests := []struct {
		name      string
		d         breaker.Decision
		max       int
		wantLimit int
		truncated bool
		keep      []string // lines that must survive outside code
	}{
		{"fits", perTestDecision(), 0, DefaultMaxBytes, false, []string{"#### Recovery options"}},
		{"long output shortened, sections kept", hugeError, 0, DefaultMaxBytes, true,
			[]string{"**What actually happens**", "#### Recovery options", "</details>"}},
		{"small limit", hugeError, 20000, 20000, true, []string{"#### Recovery options"}},
		{"sections dropped from the end", manyNotes, 8000, 8000, true, []string{"**What actually happens**"}},
		{"limit raised to the minimum", hugeError, 10, minMaxBytes, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := Markdown(tt.d, Options{Marker: true, MaxBytes: tt.max, FullReport: "https://github.com/o/r/actions/runs/1"})
			if len(md) > tt.wantLimit {
				t.Errorf("len = %d, want at most %d", len(md), tt.wantLimit)
			}
			if !utf8.ValidString(md) {
				t.Errorf("report is not valid UTF-8")
			}
			p := checkMarkdown(t, md, "S-3")
			if got := strings.Contains(md, "This report was truncated"); got != tt.truncated {
				t.Errorf("truncation note present = %v, want %v", got, tt.truncated)
			}
			if !strings.Contains(md, "\n## Stopped: the agent is looping on `TestSignup_DuplicateEmail`\n") {
				t.Errorf("the title is cut:\n%.300s", md)
			}
			for _, line := range tt.keep {
				if !containsLine(p.outside, line) {
					t.Errorf("line %q missing outside code", line)
				}
			}
		})
	}
}

func TestMarkdown_TruncatedGolden(t *testing.T) {
	t.Parallel()
	d := perTestDecision()
	d.Diagnostics[0].ActualError = hugeOutput(400)
	matchGolden(t, "truncated.md", Markdown(d, Options{Marker: true, MaxBytes: 6000}))
}

func TestCutMiddle(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 100) // 200 bytes
	got := cutMiddle(s, 51)
	if !utf8.ValidString(got) {
		t.Fatalf("cutMiddle split a rune: %q", got)
	}
	if !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "éé") || !strings.Contains(got, "bytes omitted") {
		t.Errorf("cutMiddle = %q, want head, omission note and tail", got)
	}
	if got := cutMiddle("short", 10); got != "short" {
		t.Errorf("cutMiddle(short) = %q, want it unchanged", got)
	}
}
