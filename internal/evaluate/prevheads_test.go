package evaluate

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// lineWriter writes a line of work's entries as the Action does: each with
// the names NamePrevHeads gives, the entries before it read.
type lineWriter struct {
	entries []ledger.Entry
	n       int
}

func (w *lineWriter) head() string {
	w.n++
	sum := sha1.Sum([]byte(fmt.Sprint("head ", w.n)))
	return hex.EncodeToString(sum[:])
}

// write records an entry at head, whose history holds the heads of
// history (lower case).
func (w *lineWriter) write(head string, history map[string]bool) ledger.Entry {
	e := ledger.Entry{Schema: ledger.Schema, Head: head, ObservedAt: time.Unix(int64(1_800_000_000+len(w.entries)*60), 0).UTC(), RunID: int64(len(w.entries) + 1)}
	e.PrevHeads, e.Since, e.Seq = NamePrevHeads(w.entries, nil, history, head)
	w.entries = append(w.entries, e)
	return e
}

// reach is what a reader of e finds by following names a round at a time
// (as the Action's FollowPrevHeads does), with the heads of history read
// with the branch: every head it reaches, and the rounds it took.
func (w *lineWriter) reach(e ledger.Entry, history map[string]bool) (map[string]bool, int) {
	byHead := map[string][]ledger.Entry{}
	for _, x := range w.entries {
		byHead[strings.ToLower(x.Head)] = append(byHead[strings.ToLower(x.Head)], x)
	}
	got := map[string]bool{strings.ToLower(e.Head): true}
	frontier := []string{strings.ToLower(e.Head)}
	for h := range history {
		if !got[h] {
			got[h] = true
			frontier = append(frontier, h)
		}
	}
	rounds := 0
	for len(frontier) > 0 {
		var next []string
		for _, h := range frontier {
			for _, x := range byHead[h] {
				for _, p := range x.PrevHeads {
					if k := strings.ToLower(p); !got[k] {
						got[k] = true
						next = append(next, k)
					}
				}
			}
		}
		if len(next) > 0 {
			rounds++
		}
		frontier = next
	}
	return got, rounds
}

// A line of force pushes only (no entry in the newest head's history):
// every entry names the one below it and an express link a level it sits
// on, and following the names reaches every earlier entry within about
// 2b rounds a level.
func TestNamePrevHeads_ASkipListReachesEveryEntry(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 7, 8, 9, 63, 64, 65, 511, 513, 700} {
		w := &lineWriter{}
		var last ledger.Entry
		for range n {
			last = w.write(w.head(), nil)
		}
		got, rounds := w.reach(last, nil)
		for _, e := range w.entries {
			if !got[strings.ToLower(e.Head)] {
				t.Fatalf("%d entries: entry %d (seq %d) is not reached from the newest", n, e.RunID, e.Seq)
			}
		}
		levels := 1
		for span := ledger.SkipBase; span < n; span *= ledger.SkipBase {
			levels++
		}
		for _, e := range w.entries {
			if max := 1 + levels; len(e.PrevHeads) > max {
				t.Errorf("%d entries: entry %d (seq %d) names %d heads, want at most %d (one below, one a level)", n, e.RunID, e.Seq, len(e.PrevHeads), max)
			}
		}
		if max := 2*(ledger.SkipBase-1)*levels + 1; rounds > max {
			t.Errorf("%d entries: %d rounds to reach them all, want at most %d", n, rounds, max)
		}
		if last.Seq != n {
			t.Errorf("%d entries: the newest's seq is %d", n, last.Seq)
		}
	}
}

// Pushes and force pushes at random: every entry's names, with the
// history of its head, reach every entry written before it, however the
// branch was rewritten in between; and no entry names more than a skip
// list's worth when every earlier entry has its seq.
func TestNamePrevHeads_RewrittenLinesStayReachable(t *testing.T) {
	t.Parallel()
	for seed := range uint64(16) {
		rng := rand.New(rand.NewPCG(seed, 29))
		w := &lineWriter{}
		var branch []string // the current history's heads, oldest first
		for i := range 200 {
			switch r := rng.IntN(10); {
			case r < 2 && len(branch) > 0: // a force push keeping a prefix
				branch = branch[:rng.IntN(len(branch))]
			case r < 3: // a rebase: nothing of the old history stays
				branch = nil
			}
			h := w.head()
			branch = append(branch, h)
			history := map[string]bool{}
			for _, b := range branch {
				history[b] = true
			}
			e := w.write(h, history)
			got, _ := w.reach(e, history)
			for _, x := range w.entries {
				if !got[strings.ToLower(x.Head)] {
					t.Fatalf("seed %d, push %d: entry at push %d is not reached (names %d heads)", seed, i, x.RunID, len(e.PrevHeads))
				}
			}
			if len(e.PrevHeads) > 4*ledger.SkipBase {
				t.Fatalf("seed %d, push %d: names %d heads", seed, i, len(e.PrevHeads))
			}
		}
	}
}

// An entry from before Seq (none) that the skip list cannot reach is
// named outright when the head's history does not hold it.
func TestNamePrevHeads_AnEntryWithoutSeqIsNamed(t *testing.T) {
	t.Parallel()
	w := &lineWriter{}
	old := ledger.Entry{Schema: ledger.Schema, Head: w.head(), ObservedAt: time.Unix(1_700_000_000, 0).UTC(), RunID: 1}
	w.entries = append(w.entries, old)
	for range 20 {
		w.write(w.head(), nil)
	}
	e := w.write(w.head(), nil)
	if got, _ := w.reach(e, nil); !got[old.Head] {
		t.Fatalf("the entry without seq is not reached: names %v", e.PrevHeads)
	}
}

// A seq at the bound (an entry forged without a ledger key may carry any)
// never makes the next entry one the reader refuses: the next seq stays
// within the bound, and the entry decodes.
func TestNamePrevHeads_ASeqAtTheBoundStaysReadable(t *testing.T) {
	t.Parallel()
	w := &lineWriter{}
	forged := ledger.Entry{Schema: ledger.Schema, Head: w.head(), ObservedAt: time.Unix(1_700_000_000, 0).UTC(), RunID: 1, Seq: ledger.MaxSeq}
	w.entries = append(w.entries, forged)
	e := w.write(w.head(), nil)
	if e.Seq > ledger.MaxSeq {
		t.Fatalf("seq %d is over the bound %d", e.Seq, ledger.MaxSeq)
	}
	block, _ := ledger.Encode(e, nil)
	if _, err := ledger.Decode(block); err != nil {
		t.Fatalf("the next entry does not decode: %v", err)
	}
}

// Issue 29's size line: an entry for a push with 20 failing tests in a
// suite of 20,000, signed, stays within 2 KB at every push of a long line
// (here 600, three quarters force-pushed away, so the names are all it
// has), the entries at multiples of 8, 64 and 512 with their express links
// included, each with the carry of a line tripped again after a reset
// (the trip's actions on the pull request recorded), at its largest. The
// line's first entry, with its filter, may be larger.
func TestNamePrevHeads_AnEntryStaysWithin2KB(t *testing.T) {
	t.Parallel()
	key := []byte("a-ledger-key-of-the-test-0123")
	var tests []ledger.Test
	for i := range 20 {
		tests = append(tests, ledger.Test{Suite: fmt.Sprintf("cache/pkg%03d", i), Name: fmt.Sprintf("TestCache%05d", i), Status: "fail",
			Fingerprint: ledger.Fingerprint("got 1, want 2", "")})
	}
	w := &lineWriter{}
	var onBranch []string
	largest, at := 0, 0
	for i := range 600 {
		h := w.head()
		history := map[string]bool{}
		if i >= 450 { // the newest quarter is the branch; the rest was force-pushed away
			onBranch = append(onBranch, h)
			for _, b := range onBranch {
				history[b] = true
			}
		}
		e := w.write(h, history)
		e.Event, e.PR, e.Branch, e.Checkpoint = "push", 7, "agent/S-1", strings.Repeat("b8", 20)
		e.Counts = ledger.Counts{Total: 20000, Passed: 19980, Failed: 20}
		// A tripped line's entry, the carry at its largest: every count as
		// large as the line, a verdict recorded, each failing test carried.
		e.Verdict = ledger.Verdict{State: breaker.StateOpen, TripReason: breaker.TripNoProgress, TotalFailed: e.Seq}
		e.Tests, e.Known = tests, &ledger.Known{}
		c := breaker.NewCarry()
		n := max(0, e.Seq-15)
		c.Slice, c.Pushes, c.Failed, c.Streak, c.Extra, c.Floor, c.NoProgress, c.HadResults, c.MinFailing = "S-1", n, n, n, n, n, true, true, 20
		c.Recorded, c.Verdicts, c.Open = &breaker.Verdict{State: breaker.StateOpen, TripReason: breaker.TripNoProgress}, true, true
		c.Prior, c.Reset = n/2, h // tripped again after a reset
		for _, t := range tests {
			c.Tests[t.FullName()] = &breaker.CarryTest{Failed: true, Flip: breaker.FlipFailed}
		}
		e.FoldCarry = &ledger.FoldHint{Carry: c, After: min(15, e.Seq), Limit: 3, Read: 24_000_000_000 + int64(e.Seq), OnTrip: true}
		e.Names = ledger.Digest([]string{"a", "b"})
		block, written := ledger.Encode(e, key)
		if written.Carry == nil {
			t.Fatalf("seq %d: the entry keeps no carry", e.Seq)
		}
		if len(block) > largest {
			largest, at = len(block), e.Seq
		}
	}
	if largest > 2048 {
		t.Errorf("the largest entry is %d bytes (seq %d); want at most 2,048", largest, at)
	}
	t.Logf("largest entry %d bytes, at seq %d", largest, at)
}
