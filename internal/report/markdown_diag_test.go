package report

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// A long log shows its first and last rows, numbered as the pushes are
// (the list starts again after the gap, at the number it resumes with),
// and says how many it left out.
func TestLogRows_ALongLogShowsItsEnds(t *testing.T) {
	t.Parallel()
	es := make([]breaker.LogEntry, 1000)
	for i := range es {
		es[i] = breaker.LogEntry{Attempt: i + 1, Result: "fail", SHA: strings.Repeat("a", 40)}
	}
	got := logRows(es, "push")
	if n := strings.Count(got, "-> result:"); n != logHead+logTail {
		t.Errorf("%d rows rendered, want %d", n, logHead+logTail)
	}
	for _, want := range []string{"1. ", "5. ", "\n_(965 more pushes, in the JSON report)_\n\n971. ", "1000. "} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
	if short := logRows(es[:35], "push"); strings.Contains(short, "more") || strings.Count(short, "-> result:") != 35 {
		t.Errorf("a log of 35 rows is shown whole:\n%s", short)
	}
}

// The attempts log, and the text report, say how many attempts they leave
// out because their pushes were folded before the newest 16: counted, not
// listed.
func TestMarkdown_SaysWhatTheAttemptsLogLeavesOut(t *testing.T) {
	t.Parallel()
	d := perTestDecision()
	if md := Markdown(d, Options{}); strings.Contains(md, "earlier attempt") {
		t.Errorf("a decision with no folded attempt speaks of earlier ones:\n%s", md)
	}
	d.Earlier.Attempts, d.Earlier.FailedAttempts = 9, 4
	want := "_9 earlier attempts in the slice (4 failed) were judged when their pushes left the newest 16 pushes: counted in the figures above, not listed here._"
	if md := Markdown(d, Options{}); !strings.Contains(md, want) {
		t.Errorf("the comment does not say %q:\n%s", want, md)
	}
	if txt := Text(d); !strings.Contains(txt, "  and 9 earlier attempts (4 failed) of pushes before the newest 16: counted, not listed\ntotal:") {
		t.Errorf("the text report does not say it:\n%s", txt)
	}
	d.Earlier.Attempts, d.Earlier.FailedAttempts = 1, 1
	if md := Markdown(d, Options{}); !strings.Contains(md, "_1 earlier attempt in the slice (1 failed) was judged when its push left") {
		t.Errorf("one folded attempt is not said in the singular:\n%s", md)
	}
}
