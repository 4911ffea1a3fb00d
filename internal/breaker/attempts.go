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

// splitAtReset numbers the attempts and splits them into prior (at or
// before the reset commit) and current (after it), each numbered from 1.
func splitAtReset(atts []tracked, cut int) (prior, current []tracked) {
	for _, a := range atts {
		if a.idx <= cut {
			a.Number = len(prior) + 1
			prior = append(prior, a)
			continue
		}
		a.Number = len(current) + 1
		current = append(current, a)
	}
	return prior, current
}

// SameSHA compares two object names, ignoring case; empty never matches.
func SameSHA(a, b string) bool {
	return a != "" && strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
