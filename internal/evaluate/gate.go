package evaluate

import (
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// Gate is what the ledger says of a line of work before an agent is asked
// to work on it again (issue 32): OPEN while an earlier run left a slice
// OPEN and no verified reset of that slice came after it, or while an
// entry of the line does not verify (fail closed).
type Gate struct {
	Open   bool
	Slice  string
	Reason breaker.TripReason
	// Head is the head of the entry that recorded the verdict.
	Head string
	// Tampered are the heads whose entries did not verify.
	Tampered []string
	// Prior is the <prior_attempts> block of the newest verified reset of
	// this pull request (or branch), for the agent's next invocation; ""
	// when none, or while OPEN.
	Prior string
	// Elsewhere names the same agent's OPEN pull request this one repeats
	// (Reason agent_open): "#7".
	Elsewhere string
}

// GateOf reads the gate out of the ledger of run's line of work (its pull
// request or branch, and the entries at its own commits, run.Commits). It
// judges nothing new: no results, no commits, only what earlier runs
// recorded, so an agent that has not pushed since a reset is let through
// and one whose breaker is OPEN is not.
func GateOf(l Ledger, run Run) Gate {
	pushes, info := ledgerPushes(l, nil, run, lineHeads(l.Entries, run.OwnCommits()))
	if len(info.Tampered) > 0 {
		return Gate{Open: true, Reason: breaker.TripLedgerTampered, Tampered: info.Tampered}
	}
	slice := breaker.OpenSlice(pushes)
	if slice == "" {
		g := Gate{}
		entries := append([]ledger.Entry(nil), l.Entries...)
		ledger.Sort(entries)
		for _, e := range entries {
			if e.Reset != nil && run.Belongs(e) && (l.Key == nil || ledger.Verify(e, l.Key)) {
				g.Prior = e.Reset.Prior
			}
		}
		return g
	}
	g := Gate{Open: true, Slice: slice}
	for _, p := range pushes {
		if p.Slice == slice && p.Verdict != nil && p.Source == breaker.PushFromLedger {
			g.Reason, g.Head = p.Verdict.TripReason, p.Head
		}
	}
	return g
}

// Line is the gate in one line of words for a person or an agent.
func (g Gate) Line() string {
	switch {
	case !g.Open:
		return "CLOSED: no slice of this line of work is OPEN; the agent may work on it"
	case g.Reason == breaker.TripAgentOpen:
		return "OPEN: the same agent's pull request " + g.Elsewhere + " is OPEN (slice " + g.Slice + ") and this line of work repeats it; " +
			"the agent may not work on it until a maintainer answers /breaker reset on either, or closes " + g.Elsewhere
	case g.Reason == breaker.TripLedgerTampered:
		return "OPEN: ledger entries at " + strings.Join(shortHeads(g.Tampered), ", ") + " do not verify; a maintainer's /breaker reset clears them"
	}
	return "OPEN: slice " + g.Slice + " tripped (" + string(g.Reason) + ") at " + breaker.ShortSHA(g.Head) +
		"; the agent may not work on it until a maintainer answers /breaker reset " + g.Slice
}

func shortHeads(hs []string) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = breaker.ShortSHA(h)
	}
	return out
}
