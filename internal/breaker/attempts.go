package breaker

import (
	"fmt"
	"strings"
)

// candidate is one (commit, test) pair that is an attempt of some slice.
type candidate struct {
	idx         int // index in Input.Commits
	slice       string
	sliceSource string
	test        string
}

// tracked is an attempt being evaluated, with what the fold needs beside it.
type tracked struct {
	Attempt
	idx      int     // index in Input.Commits
	commit   *Commit // the attempt's commit
	findings []ScopeFinding
	observed TestStatus // CI's status of the test at this commit, "" if not observed
	ciError  bool       // Error is CI's output, not the agent's account
	// Where the line of work placed it (placeAttempts): the push that
	// brought it (an index of evaluator.pushes, -1 none) and the push whose
	// run judges it. carried: the input's carry holds it (not judged
	// again); folded: judged and counted before the window, not listed;
	// counted: after the reset.
	push, judge              int
	carried, folded, counted bool
}

// collect returns every attempt of the branch, oldest first: one per
// (commit, distinct <prefix>Test value), skipping <prefix>Infra commits.
func collect(in Input, p Policy) []candidate {
	var cands []candidate
	testKey, infraKey := p.Key(TrailerTest), p.Key(TrailerInfra)
	for i, c := range in.Commits {
		if HasTrailer(c.Trailers, infraKey) {
			continue
		}
		tests := TrailerValues(c.Trailers, testKey)
		if len(tests) == 0 {
			continue
		}
		slice, src := sliceOf(c, p, in.Slice, in.Branch)
		seen := make(map[string]bool, len(tests))
		for _, t := range tests {
			if seen[t] {
				continue
			}
			seen[t] = true
			cands = append(cands, candidate{idx: i, slice: slice, sliceSource: src, test: t})
		}
	}
	return cands
}

// track turns the candidates of one slice into attempts with their
// trailers read; outcomes are resolved later.
func track(in Input, p Policy, cands []candidate, slice string) []tracked {
	var out []tracked
	for _, c := range cands {
		if c.slice != slice {
			continue
		}
		commit := &in.Commits[c.idx]
		out = append(out, tracked{idx: c.idx, commit: commit, Attempt: readAttempt(*commit, p, c.test)})
	}
	return out
}

// readAttempt fills the parts of an attempt that come from its commit alone.
func readAttempt(c Commit, p Policy, test string) Attempt {
	a := Attempt{SHA: c.SHA, Test: test, Strategy: c.Subject, Files: c.Files}
	if v, ok := TrailerValue(c.Trailers, p.Key(TrailerStrategy)); ok {
		a.Strategy = v
	}
	a.AgentError = strings.Join(TrailerValues(c.Trailers, p.Key(TrailerError)), "\n")
	a.Claimed, _ = TrailerValue(c.Trailers, p.Key(TrailerResult))
	a.Hypothesis, _ = TrailerValue(c.Trailers, p.Key(TrailerHypothesis))
	a.Question, _ = TrailerValue(c.Trailers, p.Key(TrailerQuestion))
	return a
}

// resetPoint places the slice's reset, a ledger record (reset is the push
// that carries it, nil when none), on the current history. cut is the
// index in Input.Commits of the last commit that was pushed before the
// reset: the reset head when the branch still has it, else the newest
// head observed before the reset that it still has; attempts at or before
// cut are prior. -1 when every attempt on the branch counts. sha is the
// reset's head; note says when the branch no longer has it.
func resetPoint(in Input, reset *Push, prior []Push, slice string) (cut int, sha, note string) {
	if reset == nil {
		return -1, "", ""
	}
	idx := make(map[string]int, len(in.Commits))
	for i, c := range in.Commits {
		idx[strings.ToLower(c.SHA)] = i
	}
	if i, ok := idx[strings.ToLower(reset.Head)]; ok {
		return i, in.Commits[i].SHA, ""
	}
	if len(in.Commits) > 0 && SameSHA(in.Commits[0].Parent, reset.Head) {
		return -1, reset.Head, ""
	}
	cut = -1
	for _, p := range prior {
		if i, ok := idx[strings.ToLower(p.Head)]; ok && i > cut {
			cut = i
		}
	}
	if cut >= 0 {
		return cut, reset.Head, fmt.Sprintf("the reset of slice %s was made at %s, which the branch no longer has (force-pushed away): "+
			"the attempts after %s, the newest head observed before the reset that it still has, count", slice, ShortSHA(reset.Head), ShortSHA(in.Commits[cut].SHA))
	}
	return -1, reset.Head, fmt.Sprintf("the reset of slice %s was made at %s, which the branch no longer has (force-pushed away or rewritten): "+
		"the pushes observed before the reset stay reset, and every attempt on the branch now counts", slice, ShortSHA(reset.Head))
}

// placeAttempts places each attempt on the push that brought it, and says
// which run judges it (view): the commits at or before the carry's edge
// are the carry's; a push brought the commits after the newest one the
// pushes before it brought, up to its own head. The pushes before the
// newest Window are folded, and so are the attempts they brought. ok is
// false when the carry's edge is not on the branch while it has
// attempts: which of them the carry holds is unknown.
func (e *evaluator) placeAttempts(atts []tracked) (ok bool) {
	idx := e.commitIndex()
	_, hi, front, start := pushRanges(e.pushes, idx, e.edge())
	e.front, e.start = front, start
	n := len(e.pushes)
	split := max(0, n-Window)
	k := 0
	for i := range atts {
		a := &atts[i]
		a.push, a.judge = -1, n-1
		if a.idx <= start {
			a.carried = true
			continue
		}
		for k < n && (hi[k] < a.idx) {
			k++
		}
		if k < n {
			a.push, a.judge = k, min(k+Window-1, n-1)
			a.folded = k < split
		}
	}
	return e.edge() == "" || start >= 0 || len(atts) == 0
}

// splitAtReset numbers the attempts the carry does not hold and splits
// them into prior (at or before the reset commit cut) and current (after
// it), each numbered on from the carry's, listing the ones not folded;
// counted are the current ones, folded included, in order.
func splitAtReset(atts []tracked, cut int, carry *Carry) (prior, current, counted []tracked) {
	var np, nc int
	if carry != nil {
		np, nc = carry.Attempts.Prior, carry.Attempts.Counted
	}
	for i := range atts {
		a := &atts[i]
		if a.carried {
			continue
		}
		if a.idx <= cut {
			np++
			a.Number = np
			if !a.folded {
				prior = append(prior, *a)
			}
			continue
		}
		nc++
		a.Number, a.counted = nc, true
		counted = append(counted, *a)
		if !a.folded {
			current = append(current, *a)
		}
	}
	return prior, current, counted
}

// SameSHA compares two object names, ignoring case; empty never matches.
func SameSHA(a, b string) bool {
	return a != "" && strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
