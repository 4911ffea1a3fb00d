package replay

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/report"
)

// ParseSince reads a window's start (--since of replay and stats): a duration back from now (30d, 2w, 72h) or a
// date (2026-10-01).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.UTC(), nil
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		if k, err := strconv.Atoi(s[:n-1]); err == nil && k > 0 && k <= 3660 {
			days := k
			if s[n-1] == 'w' {
				days *= 7
			}
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (30d, 2w, 72h) or a date (2026-10-01)", s)
}

// ProgressPrinter draws progress on w: on a terminal a bar redrawn in
// place (a line when a phase ends), else each step's line once.
func ProgressPrinter(w io.Writer, tty bool, cmd string) func(Progress) {
	last := ""
	return func(p Progress) {
		switch {
		case tty && p.Total > 0:
			const width = 30
			done := min(max(p.Done, 0)*width/p.Total, width)
			fmt.Fprintf(w, "\r%-8s [%s%s] %d/%d ", p.Phase, strings.Repeat("#", done), strings.Repeat(".", width-done), p.Done, p.Total)
			if p.Done >= p.Total {
				fmt.Fprintln(w)
			}
		case p.Line != "" && p.Line != last:
			fmt.Fprintf(w, "breaker %s: %s: %s\n", cmd, p.Phase, report.SafeLine(p.Line))
			last = p.Line
		}
	}
}
