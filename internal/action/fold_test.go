package action

import (
	"fmt"
	"slices"
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
	got, why := foldedLine(foldPage(40, 15, key), who, before(40), head, key)
	if why != "" || len(got.window) != 15 || got.from.Seq != 40 || got.edge != before(25) {
		t.Fatalf("a line of 40: window %d, from %v, edge %s, why %q; want the 15 newest, the 40th, the 25th's head", len(got.window), got.from, got.edge, why)
	}
	folded := foldPage(40, 15, key) // a reset the carry folded is no reason to read the whole line
	e := folded.Entries[5]
	e.Reset, e.MAC = &ledger.Reset{Author: "maintainer"}, ""
	folded.Entries[5] = ledger.Sign(e, key)
	folded.Entries[5].CheckRunID = e.CheckRunID
	if _, why := foldedLine(folded, who, before(40), head, key); why != "" {
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
	if got, why := foldedLine(rerun, who, before(49), head, key); why != "" || len(got.window) != 16 || got.edge != before(25) {
		t.Errorf("a re-run's two entries: window %d, edge %s, why %q; want 16 entries of 15 pushes, the 25th's head", len(got.window), got.edge, why)
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
		if _, why := foldedLine(c.page(), who, before(40), head, key); !strings.Contains(why, c.why) {
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
	if got, why := foldedLine(sameSecond, who, before(40), head, key); why != "" || len(got.window) != 15 {
		t.Errorf("three entries in one second: window %d, why %q; want the carry and the 15 newest", len(got.window), why)
	}
	// Another key, or none: nothing verifies, nothing is folded.
	if _, why := foldedLine(foldPage(40, 15, key), who, before(40), head, []byte("another-key-of-the-test-0123")); why == "" {
		t.Error("a carry that does not verify under the run's key was used")
	}
}

// The entry at a multiple of 64 names the entry 64 below it, older than
// the newest ones (an express link of the skip list): the run starts from
// the carry when the read holds that entry (the newest commits, or the
// relay that carried it), and keeps the line's express-link entries below
// the window for its own relay; only the link its entry names, missing,
// makes it read every page (issue 50: no place in the line does by
// itself).
func TestFoldedLine_ExpressLinks(t *testing.T) {
	t.Parallel()
	key := []byte("a-ledger-key-of-the-test-0123")
	who := evaluate.Run{PR: 7, Branch: "agent/S-1"}
	head := fmt.Sprintf("%040x", 9999)
	before := func(n int) string { return fmt.Sprintf("%040x", n) }
	places := func(es []ledger.Entry) []int {
		var out []int
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	without := func(d Decoded, seq int) Decoded {
		d.Entries = slices.DeleteFunc(d.Entries, func(e ledger.Entry) bool { return e.Seq == seq })
		return d
	}
	for _, c := range []struct {
		name  string
		page  Decoded
		from  int
		links []int  // kept for the relay
		why   string // "" when it starts from the carry
	}{
		{"the 64th names 56, in the window", foldPage(63, 15, key), 63, nil, ""},
		{"the 100th keeps 64 for the 128th", foldPage(99, 15, key), 99, []int{64}, ""},
		{"the 100th without 64: the 128th will read every page", without(foldPage(99, 15, key), 64), 99, nil, ""},
		{"the 128th names 64", foldPage(127, 15, key), 127, []int{64}, ""},
		{"the 128th without 64", without(foldPage(127, 15, key), 64), 127, nil, "the entry at place 64 of the line, which this run's entry names (the express link 64 below it)"},
		{"the 512th names 448", foldPage(511, 15, key), 511, []int{448}, ""},
		{"the 521st: its links are in the window", foldPage(520, 15, key), 520, nil, ""},
		{"the 601st keeps 576 and 512", foldPage(600, 15, key), 600, []int{576, 512}, ""},
	} {
		got, why := foldedLine(c.page, who, before(c.from), head, key)
		switch {
		case c.why == "" && why != "":
			t.Errorf("%s: why %q; want the carry", c.name, why)
		case c.why != "" && !strings.Contains(why, c.why):
			t.Errorf("%s: why %q; want %q", c.name, why, c.why)
		case c.why == "" && !slices.Equal(places(got.links), c.links):
			t.Errorf("%s: links at %v; want %v", c.name, places(got.links), c.links)
		}
	}
	// A link that does not verify is not kept, and refuses when named.
	forged := foldPage(127, 15, key)
	forged.Entries[63].Verdict.TotalFailed = 9
	if _, why := foldedLine(forged, who, before(127), head, key); !strings.Contains(why, "is not verified") {
		t.Errorf("a forged link: why %q; want the link named as not verified", why)
	}
}
