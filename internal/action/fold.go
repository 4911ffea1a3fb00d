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

// foldedLine is the entries after the carry of the entry at before, and
// that entry; why says why the read cannot start from a carry ("" when it
// can). The entries are the page's decoded ones (read).
func foldedLine(read Decoded, who evaluate.Run, before, head string, key []byte) (window []ledger.Entry, from *ledger.Entry, edge, why string) {
	if len(read.Tampered) > 0 {
		return nil, nil, "", "a check run of the breaker holds no entry that reads"
	}
	verified := func(e ledger.Entry) bool { return ledger.Trusted(e, key) }
	own := who.OwnCommits()
	for i := range read.Entries {
		e := &read.Entries[i]
		switch {
		case e.Kind == ledger.KindBase:
		case breaker.SameSHA(e.Head, head) && (who.Belongs(*e) || own[strings.ToLower(e.Head)]):
			return nil, nil, "", "this head was observed before (a re-run): its observations are one push"
		case breaker.SameSHA(e.Head, before) && who.Belongs(*e) && verified(*e) && e.Carry != nil && (from == nil || e.Seq > from.Seq):
			from = e
		}
	}
	if from == nil {
		return nil, nil, "", "no verified entry of this pull request at the push's before, " + breaker.ShortSHA(before) + ", keeps a carry"
	}
	if next := from.Seq + 1; next%(ledger.SkipBase*ledger.SkipBase) == 0 {
		return nil, nil, "", fmt.Sprintf("this run's entry, the %dth of the line, names an entry %d below it, older than the newest ones", next, ledger.SkipBase*ledger.SkipBase)
	}
	// The entries after the carry are the newest After pushes of the line:
	// down from the entry at before, place by place (Seq), each place one
	// head; a head observed at two places in a row (a run re-run, or a push
	// and a pull_request run of one head, the later run placed after the
	// first) is one push, as the whole line counts it.
	after := from.Carry.NewestEntries()
	bySeq := map[int][]ledger.Entry{}
	for _, e := range read.Entries {
		if e.Kind != ledger.KindBase && who.Belongs(e) && e.Seq >= 1 && e.Seq <= from.Seq {
			bySeq[e.Seq] = append(bySeq[e.Seq], e)
		}
	}
	place := func(s int) (string, string) { // the head at place s, or why not one
		es := bySeq[s]
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
	var heads []string // the window's heads, newest first
	in := map[string]bool{}
	s := from.Seq
	for ; len(heads) < after || (s >= 1 && len(bySeq[s]) > 0 && in[headAt(bySeq[s])]); s-- {
		if s < 1 {
			return nil, nil, "", "the newest entry's carry leaves out more entries than the line has"
		}
		h, why := place(s)
		if why != "" {
			return nil, nil, "", why
		}
		switch {
		case len(heads) > 0 && h == heads[len(heads)-1]: // the same push, observed again
		case in[h]:
			return nil, nil, "", "a head observed at two places of the line, apart: " + breaker.ShortSHA(h)
		default:
			heads, in[h] = append(heads, h), true
		}
		for _, e := range bySeq[s] {
			if !verified(e) {
				return nil, nil, "", "an entry after the carry does not verify"
			}
			if e.Reset != nil {
				// Checking a reset needs every commit's author: the whole
				// line is read until the reset is folded into a carry.
				return nil, nil, "", "an entry after the carry records a reset"
			}
			window = append(window, e)
		}
	}
	lo := s + 1 // the oldest place after the carry
	slices.SortStableFunc(window, func(a, b ledger.Entry) int { return a.Seq - b.Seq })
	// The pushes were observed in their order (the whole line orders them
	// by the first observation of each head, and entries of one second by
	// their place in the line, Seq: ledger.Sort). Two pushes in one second
	// (runs that finished together) are in order; only a head first seen
	// after the head above it is not.
	first := map[string]time.Time{}
	for _, e := range window {
		if t, ok := first[strings.ToLower(e.Head)]; !ok || e.ObservedAt.Before(t) {
			first[strings.ToLower(e.Head)] = e.ObservedAt
		}
	}
	for i := len(heads) - 1; i > 0; i-- {
		if first[heads[i]].After(first[heads[i-1]]) {
			return nil, nil, "", "the entries after the carry were not observed in their order"
		}
	}
	inWindow := map[int64]bool{}
	for _, e := range window {
		inWindow[e.CheckRunID] = true
	}
	// An entry of the line the window does not hold, written after the
	// carry's fold read the line (a run that finished late, one beside the
	// newest, another pull request's at one of this one's commits), is not
	// in the carry.
	oldest := first[heads[len(heads)-1]]
	for _, e := range read.Entries {
		if e.Kind == ledger.KindBase || inWindow[e.CheckRunID] && e.CheckRunID != 0 {
			continue
		}
		if !who.Belongs(e) && !own[strings.ToLower(e.Head)] {
			continue
		}
		// In the same second as the window's oldest, the line's own entry
		// below the window is before it (ledger.Sort orders one second by
		// Seq); anything else in that second may not be.
		below := e.ObservedAt.Before(oldest) || e.ObservedAt.Equal(oldest) && who.Belongs(e) && e.Seq > 0 && e.Seq < lo
		if e.CheckRunID == 0 || e.CheckRunID > from.Carry.Read || !below {
			return nil, nil, "", "an entry of the line at " + breaker.ShortSHA(e.Head) + " was written after the newest entry's carry was folded"
		}
		if in[strings.ToLower(e.Head)] {
			// An earlier observation of a push after the carry: the whole
			// line counts them as one, at the first.
			return nil, nil, "", "a head after the carry was observed before it too: " + breaker.ShortSHA(e.Head)
		}
	}
	// The carry's newest push is the line's entry just below the window.
	if from.Carry.Pushes > 0 {
		h, why := place(lo - 1)
		if why != "" {
			return nil, nil, "", fmt.Sprintf("the entry just below the newest %d (the carry's newest push): %s", after, why)
		}
		if in[h] {
			return nil, nil, "", "a head after the carry was observed before it too: " + breaker.ShortSHA(h)
		}
		for _, e := range bySeq[lo-1] {
			if !verified(e) {
				return nil, nil, "", "the entry just below the newest ones does not verify"
			}
		}
		edge = bySeq[lo-1][0].Head
	}
	return window, from, edge, ""
}
