package evaluate

import (
	"context"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// BaseEntry is the ledger entry of an observation of the base branch (a
// push to the default branch): the counts and every failing test of the
// results at head, no verdict. Pull requests read it to tell the base's failures from theirs
// (DESIGN §2). Only the results are read; git is not.
func BaseEntry(ctx context.Context, opts Options, head string) (ledger.Entry, error) {
	dir := opts.ResultsDir
	if dir == "" {
		dir = opts.RepoDir
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		return ledger.Entry{}, err
	}
	defer ws.Close()
	rep, err := readResults(ctx, ws, opts)
	if err != nil {
		return ledger.Entry{}, err
	}
	run := opts.Run
	if run.ObservedAt.IsZero() {
		run.ObservedAt = time.Now().UTC()
	}
	e := ledger.Entry{Schema: ledger.Schema, Kind: ledger.KindBase, Head: head, ObservedAt: run.ObservedAt.UTC(), RunID: run.RunID, Event: run.Event,
		Branch: run.Branch, Tests: []ledger.Test{}, Verdict: ledger.Verdict{State: breaker.StateClosed}}
	if rep.Infra != "" {
		infra := rep.Infra
		e.Infra, e.InfraKind = &infra, rep.InfraKind
		return e, nil
	}
	c := rep.Counts()
	e.Counts = ledger.Counts{Total: c.Total, Passed: c.Passed, Failed: c.Failed, Errored: c.Errored, Skipped: c.Skipped}
	for _, t := range rep.Tests {
		if !t.Status.Failed() {
			continue // what fails on the base is all a pull request asks
		}
		lt := ledger.Test{Suite: t.Suite, Name: t.Name, Status: t.Status}
		lt.Fingerprint = pushTest(t.Status, t.Message, t.Output).Fingerprint
		e.Tests = append(e.Tests, lt)
	}
	return e, nil
}

// MergeBase is the best common ancestor of commits a and b in the
// repository at dir (git merge-base a b; the first when there are several),
// read with go-git.
func MergeBase(dir, a, b string) (string, error) {
	repo, err := gitlog.Open(dir)
	if err != nil {
		return "", err
	}
	defer repo.Close()
	return repo.MergeBase(a, b)
}

// BaseFailures are the tests failing in the newest of the base
// observations written at head (the base commit; ledger.KindBase, by a run
// on a push to the default branch) that observed its tests: what fails on
// the base. A judged entry at that commit (a pull request whose head it
// was, a branch run) is never the base's observation, so a pull request
// cannot declare its own failures the base's. ok is false when no base
// observation there ran the tests.
func BaseFailures(entries []ledger.Entry, head string) (failing map[string]bool, ok bool) {
	var newest *ledger.Entry
	for i := range entries {
		e := &entries[i]
		if e.Kind != ledger.KindBase || !strings.EqualFold(e.Head, head) || e.Infra != nil {
			continue
		}
		if newest == nil || e.ObservedAt.After(newest.ObservedAt) {
			newest = e
		}
	}
	if newest == nil {
		return nil, false
	}
	failing = map[string]bool{}
	for _, t := range newest.Tests {
		if t.Status.Failed() {
			failing[t.FullName()] = true
		}
	}
	return failing, true
}
