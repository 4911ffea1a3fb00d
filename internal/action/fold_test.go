package action

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// foldPage is a read of the newest commits holding a line of n entries of
// pull request 7, one a push, signed with key; the newest keeps a carry of
// the pushes before the newest after.
func foldPage(n, after int, key []byte) Decoded {
	var d Decoded
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for s := 1; s <= n; s++ {
		e := ledger.Entry{Schema: ledger.Schema, Head: fmt.Sprintf("%040x", s), ObservedAt: at.Add(time.Duration(s) * time.Minute),
			RunID: int64(100 + s), Event: "push", PR: 7, Slice: "S-1", Branch: "agent/S-1", Seq: s, Tests: []ledger.Test{}}
		e.Carry = &ledger.Carry{After: min(after, s), Pushes: max(0, s-after), MinFailing: -1, Limit: 3, Read: int64(1000 + s - 1)}
		e = ledger.Sign(e, key)
		e.CheckRunID = int64(1000 + s)
		d.Entries = append(d.Entries, e)
	}
	return d
}

// foldedLine starts from the carry of the entry at before only when the
// read holds the entries after it, each once, verified, and nothing of the
// line written since the carry's fold read it.
func TestFoldedLine_Rules(t *testing.T) {
	t.Parallel()
	key := []byte("a-ledger-key-of-the-test-0123")
	who := evaluate.Run{PR: 7, Branch: "agent/S-1"}
	head := fmt.Sprintf("%040x", 999)
	before := func(n int) string { return fmt.Sprintf("%040x", n) }
	window, from, edge, why := foldedLine(foldPage(40, 15, key), who, before(40), head, key)
	if why != "" || len(window) != 15 || from.Seq != 40 || edge != before(25) {
		t.Fatalf("a line of 40: window %d, from %v, edge %s, why %q; want the 15 newest, the 40th, the 25th's head", len(window), from, edge, why)
	}
	folded := foldPage(40, 15, key) // a reset the carry folded is no reason to read the whole line
	e := folded.Entries[5]
	e.Reset, e.MAC = &ledger.Reset{Author: "maintainer"}, ""
	folded.Entries[5] = ledger.Sign(e, key)
	folded.Entries[5].CheckRunID = e.CheckRunID
	if _, _, _, why := foldedLine(folded, who, before(40), head, key); why != "" {
		t.Errorf("a reset folded into the carry: why %q, want none", why)
	}
	// A run re-run: its head observed at two places in a row is one push.
	rerun := foldPage(41, 15, key)
	e = rerun.Entries[30]
	e.Head, e.MAC = rerun.Entries[29].Head, ""
	rerun.Entries[30] = ledger.Sign(e, key)
	rerun.Entries[30].CheckRunID = e.CheckRunID
	for i := range rerun.Entries[31:] {
		ee := rerun.Entries[31+i]
		ee.Head, ee.MAC = before(40+i), ""
		rerun.Entries[31+i] = ledger.Sign(ee, key)
		rerun.Entries[31+i].CheckRunID = ee.CheckRunID
	}
	if window, _, edge, why := foldedLine(rerun, who, before(49), head, key); why != "" || len(window) != 16 || edge != before(25) {
		t.Errorf("a re-run's two entries: window %d, edge %s, why %q; want 16 entries of 15 pushes, the 25th's head", len(window), edge, why)
	}
	if _, _, _, why := foldedLine(foldPage(63, 15, key), who, before(63), head, key); !strings.Contains(why, "names an entry 64 below") {
		t.Errorf("the 64th entry: why %q, want it to name the express link beyond the newest entries", why)
	}
	for name, c := range map[string]struct {
		page func() Decoded
		why  string
	}{
		"written after the fold": {func() Decoded {
			d := foldPage(40, 15, key)
			d.Entries[10].CheckRunID = 5000 // a run that finished late, at an older head
			return d
		}, "was written after the newest entry's carry was folded"},
		"two at one place": {func() Decoded {
			d := foldPage(40, 15, key)
			e := d.Entries[30]
			e.Head, e.RunID = before(77), 777
			d.Entries = append(d.Entries, ledger.Sign(e, key))
			return d
		}, "two entries at place 31"},
		"one missing": {func() Decoded {
			d := foldPage(40, 15, key)
			d.Entries = append(d.Entries[:30:30], d.Entries[31:]...)
			return d
		}, "the entry at place 31"},
		"not verified": {func() Decoded {
			d := foldPage(40, 15, key)
			d.Entries[33].Verdict.TotalFailed = 1 // rewritten: its MAC no longer holds
			return d
		}, "does not verify"},
		"a reset after the carry": {func() Decoded {
			d := foldPage(40, 15, key)
			e := d.Entries[30]
			e.Reset, e.MAC = &ledger.Reset{Author: "maintainer"}, ""
			d.Entries[30] = ledger.Sign(e, key)
			d.Entries[30].CheckRunID = e.CheckRunID
			return d
		}, "records a reset"},
		"the edge away": {func() Decoded {
			d := foldPage(40, 15, key)
			d.Entries = d.Entries[25:]
			return d
		}, "just below the newest 15"},
		"a re-run": {func() Decoded {
			d := foldPage(40, 15, key)
			d.Entries[39].Head = head
			return d
		}, "observed before"},
	} {
		if _, _, _, why := foldedLine(c.page(), who, before(40), head, key); !strings.Contains(why, c.why) {
			t.Errorf("%s: why %q, want it to say %q", name, why, c.why)
		}
	}
	// Two pushes observed in one second (runs that finished together, a
	// concurrency group): the entries keep their place in the line, and
	// the next run still starts from the carry (issue 50).
	sameSecond := foldPage(40, 15, key)
	for _, i := range []int{30, 31} {
		e := sameSecond.Entries[i]
		e.ObservedAt, e.MAC = sameSecond.Entries[29].ObservedAt, ""
		sameSecond.Entries[i] = ledger.Sign(e, key)
		sameSecond.Entries[i].CheckRunID = e.CheckRunID
	}
	if window, _, _, why := foldedLine(sameSecond, who, before(40), head, key); why != "" || len(window) != 15 {
		t.Errorf("three entries in one second: window %d, why %q; want the carry and the 15 newest", len(window), why)
	}
	// Another key, or none: nothing verifies, nothing is folded.
	if _, _, _, why := foldedLine(foldPage(40, 15, key), who, before(40), head, []byte("another-key-of-the-test-0123")); why == "" {
		t.Error("a carry that does not verify under the run's key was used")
	}
}
