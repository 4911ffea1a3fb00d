package replay

import (
	"strings"
	"testing"
	"time"
)

func TestReplay_ParseSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"30d": now.AddDate(0, 0, -30), "2w": now.AddDate(0, 0, -14), "72h": now.Add(-72 * time.Hour),
		"2026-10-01": time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := ParseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0d", "-3d", "d", "99999d", "yesterday", "-1h"} {
		if _, err := ParseSince(bad, now); err == nil {
			t.Errorf("ParseSince(%q) accepted", bad)
		}
	}
}

// On a terminal the progress is a bar redrawn in place, ended by a line
// when the phase is done; in a log each step is a line, said once, its
// untrusted text made safe.
func TestReplay_ProgressBarAndLines(t *testing.T) {
	t.Parallel()
	var bar strings.Builder
	say := ProgressPrinter(&bar, true, "replay")
	for i := 0; i <= 4; i++ {
		say(Progress{Phase: "evidence", Done: i, Total: 4})
	}
	want := "\revidence [..............................] 0/4 \revidence [#######.......................] 1/4 " +
		"\revidence [###############...............] 2/4 \revidence [######################........] 3/4 " +
		"\revidence [##############################] 4/4 \n"
	if bar.String() != want {
		t.Errorf("terminal:\n%q\nwant\n%q", bar.String(), want)
	}
	var log strings.Builder
	say = ProgressPrinter(&log, false, "stats")
	say(Progress{Phase: "ledger", Done: 1, Total: 4, Line: "#7: 3 pushes observed"})
	say(Progress{Phase: "ledger", Done: 1, Total: 4, Line: "#7: 3 pushes observed"})
	say(Progress{Phase: "ledger", Done: 2, Total: 4})
	say(Progress{Phase: "ledger", Done: 3, Total: 4, Line: "::error::\x1b[31mred"})
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "breaker stats: ledger: #7: 3 pushes observed" ||
		!strings.HasPrefix(lines[1], "breaker stats: ledger: ") || strings.ContainsAny(lines[1], "\x1b") {
		t.Errorf("log:\n%q", log.String())
	}
}
