package replay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/replay"
)

// `breaker stats` sums what the ledger recorded: here the seeded window's
// pushes with the verdicts the Action would have written (three trips,
// one reset half an hour after its trip), every figure worked out by hand.
func TestReadStats_WhatTheLedgerSays(t *testing.T) {
	t.Parallel()
	w := seeded(t)
	login := ledger.Test{Suite: "users", Name: "TestLogin", Status: breaker.StatusFail, Fingerprint: "fp-login"}
	// failed: the slice's failed attempts at each push; green: CI passed it.
	verdicts := map[int][]struct {
		failed int
		open   bool
		green  bool
	}{
		101: {{1, false, false}, {2, false, false}, {3, true, false}, {3, true, true}},
		102: {{1, false, false}, {1, false, true}},
		103: {{1, false, false}, {2, false, false}, {3, true, false}},
		104: {{0, false, true}, {0, false, true}},
		105: {{1, false, false}, {2, false, false}, {3, true, false}},
	}
	read := func(_ context.Context, pr forge.PastPullRequest) ([]ledger.Entry, error) {
		heads := strings.Fields(w.repo.Git("rev-list", "--reverse", "main.."+pr.HeadRef))
		var out []ledger.Entry
		for i, v := range verdicts[pr.Number] {
			e := ledger.Entry{Schema: ledger.Schema, Head: heads[i], ObservedAt: epoch.Add(time.Duration((pr.Number-100)*100+i*10) * time.Minute),
				RunID: int64(pr.Number*10 + i), PR: pr.Number, Slice: "S-1", Seq: i + 1, Counts: ledger.Counts{Total: 2, Passed: 2},
				Verdict: ledger.Verdict{State: breaker.StateClosed, TotalFailed: v.failed}}
			if !v.green {
				e.Counts = ledger.Counts{Total: 2, Passed: 1, Failed: 1}
				e.Tests = []ledger.Test{login}
			}
			if v.open {
				e.Verdict.State, e.Verdict.TripReason = breaker.StateOpen, breaker.TripPerTest
			}
			out = append(out, e)
		}
		if pr.Number == 105 { // a maintainer resets it half an hour after the trip
			trip := out[len(out)-1]
			at := trip.ObservedAt.Add(30 * time.Minute)
			out = append(out, ledger.Entry{Schema: ledger.Schema, Head: trip.Head, ObservedAt: at, RunID: 999, PR: 105, Slice: "S-1", Seq: 4,
				Verdict: ledger.Verdict{State: breaker.StateClosed}, Reset: &ledger.Reset{Author: "alice", At: at, CommentID: 7}})
		}
		return out, nil
	}
	client, err := ghapi.New(ghapi.Config{Token: token, APIURL: w.srv.URL(), Owner: w.srv.Owner(), Repo: w.srv.Repo(),
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	o := replay.StatsOptions{Options: replay.Options{Repo: w.srv.Owner() + "/" + w.srv.Repo(), Since: epoch.Add(-time.Hour), Until: epoch.Add(30 * 24 * time.Hour),
		Agents: []string{"agent-bot"}, Workflow: "ci.yml", CacheDir: t.TempDir()}, Ledger: read}
	st, err := replay.ReadStats(context.Background(), client, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Observed != 5 || st.Pushes != 14 || st.Trips != 3 || st.ByReason[string(breaker.TripPerTest)] != 3 || st.NeverGreen != 2 {
		t.Errorf("observed %d, pushes %d, trips %d by %v, never green %d; want 5, 14, 3 (per_test), 2", st.Observed, st.Pushes, st.Trips, st.ByReason, st.NeverGreen)
	}
	if r := st.TripToReset; r.Count != 1 || r.Median != 30 || r.Max != 30 || r.Pending != 2 {
		t.Errorf("the wait for a reset: %+v; want one of 30 minutes, two trips not reset", r)
	}
	if g := st.PushesToGreen; g.Count != 3 || g.Median != 2 || g.Max != 4 {
		t.Errorf("pushes to green: %+v; want 3 pull requests, a median of 2, at most 4", g)
	}
	// The pushes that added a failed attempt: 3 + 1 + 3 + 3, four minutes
	// of CI each.
	if st.NoProgress.Pushes != 10 || st.NoProgress.Minutes != 40 {
		t.Errorf("no progress: %+v; want 10 pushes, 40 minutes", st.NoProgress)
	}
	if len(st.Errors) != 1 || st.Errors[0].Fingerprint != "fp-login" || st.Errors[0].Trips != 3 || len(st.Errors[0].PullRequests) != 3 {
		t.Errorf("errors %+v; want fp-login at the three trips", st.Errors)
	}
	if len(st.ByAgent) != 1 || st.ByAgent[0].Tripped != 3 || st.ByAgent[0].PullRequests != 5 {
		t.Errorf("by agent %+v; want agent-bot's five pull requests, three tripped", st.ByAgent)
	}
	if len(st.TripsPerWeek) == 0 || st.TripsPerWeek[0].Trips != 3 {
		t.Errorf("trips per week %+v; want the three in the first week", st.TripsPerWeek)
	}
	again, err := replay.ReadStats(context.Background(), client, o)
	if err != nil || again.Cached != 5 || again.Trips != st.Trips {
		t.Errorf("from the cache: %d cached, %d trips, %v; want every pull request cached, the same figures", again.Cached, again.Trips, err)
	}
	if md := replay.StatsMarkdown(st); !strings.Contains(md, "fp-login") {
		t.Errorf("the stats page does not name the error:\n%s", md)
	}
}
