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
