package action

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// A push whose before holds the line's newest entry, verified, with a
// carry starts from that carry: the run needs the entries after it (the
// newest of the line, all in the read of the newest commits), not every
// entry (issue 29; docs/ledger.md "The folded state"). foldedLine takes
// them out of that read, or says why it cannot: then the whole line is
// read, as before. The decision the carry gives is checked once more
// against the loaded branch (evaluate.Snapshot.FoldRefused).

// headAt is the head of a place's entries (the first's).
func headAt(es []ledger.Entry) string { return strings.ToLower(es[0].Head) }

// newestOwnHead is, for an event that does not say where the branch was
// before the push (a workflow_run), the head of the pull request's newest
// verified entry (by place in the line) at one of its commits other than
// head: where the branch was at the push before, when that push's run
// wrote its entry. Its descendants up to head are all in the read, so an
// entry of the line newer than it is in the read too (foldedLine checks);
// "" when there is none.
func newestOwnHead(read Decoded, who evaluate.Run, head string, key []byte) string {
	own := who.OwnCommits()
	best, seq := "", 0
	for _, e := range read.Entries {
		if e.Kind == ledger.KindBase || !who.Belongs(e) || !own[strings.ToLower(e.Head)] || breaker.SameSHA(e.Head, head) || e.Seq <= seq {
			continue
		}
		if ledger.Trusted(e, key) {
			best, seq = e.Head, e.Seq
		}
	}
	return best
}

// carryRead is what a run that starts from a carry reads of the line.
type carryRead struct {
	window []ledger.Entry // the entries after the carry, oldest first
	from   *ledger.Entry  // the entry at the push's before, whose carry it starts from
	edge   string         // the head of the carry's newest push; "" when it folded none
	// links are the line's entries below the window at its express-link
	// places (linkPlaces): this run's entry names them and its relay
	// carries them on, so no place in the line needs every page.
	links []ledger.Entry
}

// folding is foldedLine's work: the read, who the run is, and what each
// rule found so far.
type folding struct {
	carryRead
	read  Decoded
	who   evaluate.Run
	own   map[string]bool
	key   []byte
	bySeq map[int][]ledger.Entry // the line's entries up to from, by place
	heads []string               // the window's heads, newest first
	in    map[string]bool        // the window's heads
	lo    int                    // the oldest place after the carry
	first map[string]time.Time   // each window head's first observation
}

// foldedLine is the entries after the carry of the entry at before, that
// entry, the carry's edge and the express links below the window; why
// says why the read cannot start from a carry ("" when it can). The
// entries are the page's decoded ones (read). Each rule below is one
// reason to read every page instead, in the order they are checked.
func foldedLine(read Decoded, who evaluate.Run, before, head string, key []byte) (carryRead, string) {
	f := &folding{read: read, who: who, own: who.OwnCommits(), key: key}
	rules := []func() string{
		f.everyRunReads,
		func() string { return f.carryAtBefore(before, head) },
		f.windowReadPlaceByPlace,
		f.windowObservedInOrder,
		f.nothingWrittenSinceTheFold,
		f.edgeRead,
		f.expressLinksRead,
	}
	for _, rule := range rules {
		if why := rule(); why != "" {
			return carryRead{}, why
		}
	}
	return f.carryRead, ""
}

func (f *folding) verified(e ledger.Entry) bool { return ledger.Trusted(e, f.key) }

// everyRunReads: a check run of the breaker that holds no entry may hide
// anything.
func (f *folding) everyRunReads() string {
	if len(f.read.Tampered) > 0 {
		return "a check run of the breaker holds no entry that reads"
	}
	return ""
}

// carryAtBefore: the newest verified entry of this pull request at the
// push's before keeps a carry, and this head was not observed before (a
// re-run's observations are one push with the first's).
func (f *folding) carryAtBefore(before, head string) string {
	for i := range f.read.Entries {
		e := &f.read.Entries[i]
		switch {
		case e.Kind == ledger.KindBase:
		case breaker.SameSHA(e.Head, head) && (f.who.Belongs(*e) || f.own[strings.ToLower(e.Head)]):
			return "this head was observed before (a re-run): its observations are one push"
		case breaker.SameSHA(e.Head, before) && f.who.Belongs(*e) && f.verified(*e) && e.Carry != nil && (f.from == nil || e.Seq > f.from.Seq):
			f.from = e
		}
	}
	if f.from == nil {
		return "no verified entry of this pull request at the push's before, " + breaker.ShortSHA(before) + ", keeps a carry"
	}
	f.bySeq = map[int][]ledger.Entry{}
	for _, e := range f.read.Entries {
		if e.Kind != ledger.KindBase && f.who.Belongs(e) && e.Seq >= 1 && e.Seq <= f.from.Seq {
			f.bySeq[e.Seq] = append(f.bySeq[e.Seq], e)
		}
	}
	return ""
}

// place is the head at place s of the line, or why there is not one.
func (f *folding) place(s int) (string, string) {
	es := f.bySeq[s]
	if len(es) == 0 {
		return "", fmt.Sprintf("the entry at place %d of the line is not among the newest commits and force pushes", s)
	}
	for _, e := range es[1:] {
		if !breaker.SameSHA(e.Head, es[0].Head) {
			return "", fmt.Sprintf("two entries at place %d of the line, at two heads (runs side by side)", s)
		}
	}
	return strings.ToLower(es[0].Head), ""
}

// windowReadPlaceByPlace: the entries after the carry are the newest
// After pushes of the line, down from the entry at before, place by place
// (Seq), each place one head, each verified and none a reset (checking a
// reset needs every commit's author: the whole line is read until the
// reset is folded into a carry). A head observed at two places in a row
// (a run re-run, or a push and a pull_request run of one head, the later
// run placed after the first) is one push, as the whole line counts it.
func (f *folding) windowReadPlaceByPlace() string {
	after := f.from.Carry.NewestEntries()
	f.in = map[string]bool{}
	s := f.from.Seq
	for ; len(f.heads) < after || (s >= 1 && len(f.bySeq[s]) > 0 && f.in[headAt(f.bySeq[s])]); s-- {
		if s < 1 {
			return "the newest entry's carry leaves out more entries than the line has"
		}
		h, why := f.place(s)
		if why != "" {
			return why
		}
		switch {
		case len(f.heads) > 0 && h == f.heads[len(f.heads)-1]: // the same push, observed again
		case f.in[h]:
			return "a head observed at two places of the line, apart: " + breaker.ShortSHA(h)
		default:
			f.heads, f.in[h] = append(f.heads, h), true
		}
		for _, e := range f.bySeq[s] {
			if !f.verified(e) {
				return "an entry after the carry does not verify"
			}
			if e.Reset != nil {
				return "an entry after the carry records a reset"
			}
			f.window = append(f.window, e)
		}
	}
	f.lo = s + 1
	slices.SortStableFunc(f.window, func(a, b ledger.Entry) int { return a.Seq - b.Seq })
	return ""
}

// windowObservedInOrder: the whole line orders pushes by the first
// observation of each head, and entries of one second by their place in
// the line (Seq: ledger.Sort). Two pushes in one second (runs that
// finished together) are in order; only a head first seen after the head
// above it is not.
func (f *folding) windowObservedInOrder() string {
	f.first = map[string]time.Time{}
	for _, e := range f.window {
		if t, ok := f.first[strings.ToLower(e.Head)]; !ok || e.ObservedAt.Before(t) {
			f.first[strings.ToLower(e.Head)] = e.ObservedAt
		}
	}
	for i := len(f.heads) - 1; i > 0; i-- {
		if f.first[f.heads[i]].After(f.first[f.heads[i-1]]) {
			return "the entries after the carry were not observed in their order"
		}
	}
	return ""
}

// nothingWrittenSinceTheFold: an entry of the line the window does not
// hold, written after the carry's fold read the line (a run that finished
// late, one beside the newest, another pull request's at one of this
// one's commits), is not in the carry; nor is an earlier observation of a
// push after the carry (the whole line counts them as one, at the first).
func (f *folding) nothingWrittenSinceTheFold() string {
	inWindow := map[int64]bool{}
	for _, e := range f.window {
		inWindow[e.CheckRunID] = true
	}
	oldest := f.first[f.heads[len(f.heads)-1]]
	for _, e := range f.read.Entries {
		if e.Kind == ledger.KindBase || inWindow[e.CheckRunID] && e.CheckRunID != 0 || !f.who.Belongs(e) && !f.own[strings.ToLower(e.Head)] {
			continue
		}
		// In the same second as the window's oldest, the line's own entry
		// below the window is before it (ledger.Sort orders one second by
		// Seq); anything else in that second may not be.
		below := e.ObservedAt.Before(oldest) || e.ObservedAt.Equal(oldest) && f.who.Belongs(e) && e.Seq > 0 && e.Seq < f.lo
		if e.CheckRunID == 0 || e.CheckRunID > f.from.Carry.Read || !below {
			return "an entry of the line at " + breaker.ShortSHA(e.Head) + " was written after the newest entry's carry was folded"
		}
		if f.in[strings.ToLower(e.Head)] {
			return "a head after the carry was observed before it too: " + breaker.ShortSHA(e.Head)
		}
	}
	return ""
}

// edgeRead: the carry's newest push is the line's entry just below the
// window, verified.
func (f *folding) edgeRead() string {
	if f.from.Carry.Pushes == 0 {
		return ""
	}
	h, why := f.place(f.lo - 1)
	if why != "" {
		return fmt.Sprintf("the entry just below the newest %d (the carry's newest push): %s", f.from.Carry.NewestEntries(), why)
	}
	if f.in[h] {
		return "a head after the carry was observed before it too: " + breaker.ShortSHA(h)
	}
	for _, e := range f.bySeq[f.lo-1] {
		if !f.verified(e) {
			return "the entry just below the newest ones does not verify"
		}
	}
	f.edge = f.bySeq[f.lo-1][0].Head
	return ""
}

// expressLinksRead: the entry this run writes, at place next, names the
// entries the skip list's express links reach (evaluate.NamePrevHeads:
// span below it for every level span that divides next); those below the
// window must be in the read (the newest commits, force pushes, or the
// relay of the entry at before, which carries them: Relay). The line's
// other express-link places (linkPlaces) are kept when read, for this
// run's relay to carry on; one missing is no reason by itself (the run at
// its level reads every page, once).
func (f *folding) expressLinksRead() string {
	next := f.from.Seq + 1
	for span := ledger.SkipBase; span <= f.from.Seq; span *= ledger.SkipBase {
		p := f.from.Seq / span * span
		if p >= f.lo { // in the window: named from there
			continue
		}
		got := slices.DeleteFunc(slices.Clone(f.bySeq[p]), func(e ledger.Entry) bool { return !f.verified(e) })
		switch {
		case len(got) > 0 && len(got) == len(f.bySeq[p]):
			f.links = append(f.links, got...)
		case next%span == 0: // p is next-span
			return fmt.Sprintf("the entry at place %d of the line, which this run's entry names (the express link %d below it), is not verified among the newest commits, force pushes and the relay", p, span)
		}
	}
	return ""
}

// linkPlaces are the line's places the express links of the entries after
// seq name: for every level span (ledger.SkipBase, its square, ...) up to
// seq, the newest multiple of span at or below seq (the entry at the next
// multiple of span names it).
func linkPlaces(seq int) []int {
	var out []int
	for span := ledger.SkipBase; span <= seq; span *= ledger.SkipBase {
		if p := seq / span * span; !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
