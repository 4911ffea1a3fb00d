package action

import (
	"fmt"
	"strings"

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
		if ledger.Verify(e, key) {
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
	verified := func(e ledger.Entry) bool { return ledger.Verify(e, key) }
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
	after := from.Carry.NewestEntries()
	lo := from.Seq - after + 1
	if after < 1 || lo < 1 {
		return nil, nil, "", "the newest entry's carry leaves out more entries than the line has"
	}
	bySeq := map[int]ledger.Entry{}
	heads := map[string]bool{}
	for _, e := range read.Entries {
		if e.Kind == ledger.KindBase || !who.Belongs(e) || e.Seq < lo || e.Seq > from.Seq {
			continue
		}
		if _, dup := bySeq[e.Seq]; dup || heads[strings.ToLower(e.Head)] {
			return nil, nil, "", fmt.Sprintf("two entries at place %d of the line, or two at one head (runs side by side)", e.Seq)
		}
		if !verified(e) {
			return nil, nil, "", "an entry after the carry does not verify"
		}
		if e.Reset != nil {
			// Checking a reset needs every commit's author: the whole line
			// is read until the reset is folded into a carry.
			return nil, nil, "", "an entry after the carry records a reset"
		}
		bySeq[e.Seq], heads[strings.ToLower(e.Head)] = e, true
	}
	for s := lo; s <= from.Seq; s++ {
		e, ok := bySeq[s]
		if !ok {
			return nil, nil, "", fmt.Sprintf("the entry at place %d of the line, after the carry, is not among the newest commits and force pushes", s)
		}
		if n := len(window); n > 0 && !window[n-1].ObservedAt.Before(e.ObservedAt) {
			return nil, nil, "", "the entries after the carry were not observed in their order"
		}
		window = append(window, e)
	}
	// An entry of the line the window does not hold, written after the
	// carry's fold read the line (a run that finished late, one beside the
	// newest, another pull request's at one of this one's commits), is not
	// in the carry.
	for _, e := range read.Entries {
		if w, ok := bySeq[e.Seq]; e.Kind == ledger.KindBase || ok && w.CheckRunID == e.CheckRunID {
			continue
		}
		if (who.Belongs(e) || own[strings.ToLower(e.Head)]) && (e.CheckRunID == 0 || e.CheckRunID > from.Carry.Read || !e.ObservedAt.Before(window[0].ObservedAt)) {
			return nil, nil, "", "an entry of the line at " + breaker.ShortSHA(e.Head) + " was written after the newest entry's carry was folded"
		}
	}
	// The carry's newest push is the line's entry just below the window.
	if from.Carry.Pushes > 0 {
		var at []ledger.Entry
		for _, e := range read.Entries {
			if e.Kind != ledger.KindBase && who.Belongs(e) && e.Seq == lo-1 && verified(e) {
				at = append(at, e)
			}
		}
		if len(at) != 1 {
			return nil, nil, "", fmt.Sprintf("the entry just below the newest %d (the carry's newest push) is not among the newest commits and force pushes, or is not one", after)
		}
		edge = at[0].Head
	}
	return window, from, edge, ""
}
