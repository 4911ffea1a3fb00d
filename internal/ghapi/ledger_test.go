package ghapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// sha is a made-up commit id, distinct for each n.
func sha(n int) string { return fmt.Sprintf("%040x", n+1) }

// richLedger gives pull request 7 what a long-lived agent pull request
// has on GitHub: 130 commits (two pages), 120 force pushes (two pages), a
// head re-run in the same check suite (GraphQL's default checkType LATEST
// hides the first run), a head with the breaker's runs in two suites
// (two workflows), a comment by the bot, and GitHub-sized ids. It returns
// how many check runs the ledger holds.
func richLedger(srv *ghfake.Server) int {
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: sha(129), HeadRef: "agent/fix", BaseRef: "main", Author: "agent"})
	var commits []string
	runs := 0
	add := func(run ghfake.CheckRun) {
		run.Name, run.AppID, run.AppSlug = "greenlight-breaker", ghfake.ActionsAppID, ghfake.ActionsAppSlug
		srv.AddCheckRun(run)
		runs++
	}
	for i := range 130 {
		commits = append(commits, sha(i))
		add(ghfake.CheckRun{HeadSHA: sha(i), Text: "entry"})
	}
	add(ghfake.CheckRun{HeadSHA: sha(5), Text: "re-run"})
	add(ghfake.CheckRun{HeadSHA: sha(6), Text: "other workflow", Suite: 2})
	srv.SetPullRequestCommits(7, commits)
	for i := range 120 {
		before := sha(1000 + i)
		srv.AddForcePush(7, before)
		add(ghfake.CheckRun{HeadSHA: before, Text: "pushed away"})
	}
	srv.AddComment(7, ghfake.BotLogin, "<!-- greenlight-breaker:S-3 -->\nours")
	return runs
}

// The ledger is read completely — every page of commits and force pushes,
// every run of a head (re-runs and other suites) — with ids past 2^31, a
// bot's login in REST's form, and each query within GitHub's points.
func TestReadLedger_ReadsEverythingGitHubHas(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	want := richLedger(srv)
	c, _ := newClient(t, srv)
	st, err := c.ReadLedger(context.Background(), forge.LedgerQuery{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Runs) != want {
		t.Errorf("read %d check runs, want all %d", len(st.Runs), want)
	}
	texts := map[string]bool{}
	for _, r := range st.Runs {
		texts[r.Text] = true
		if r.ID <= math.MaxInt32 || r.AppID != ghfake.ActionsAppID {
			t.Errorf("run %+v: want an id past 2^31 and the Actions app", r)
		}
	}
	for _, w := range []string{"re-run", "other workflow", "pushed away"} {
		if !texts[w] {
			t.Errorf("the %q run was not read", w)
		}
	}
	if st.Viewer != ghfake.BotLogin {
		t.Errorf("viewer %q, want %q", st.Viewer, ghfake.BotLogin)
	}
	if len(st.Comments) != 1 || st.Comments[0].Author != ghfake.BotLogin || st.Comments[0].ID <= math.MaxInt32 {
		t.Errorf("comments %+v; want one by %s with its 64-bit id", st.Comments, ghfake.BotLogin)
	}
	for i, cost := range srv.GraphQLCosts() {
		if cost > 5 {
			t.Errorf("query %d cost %d points, want at most 5", i, cost)
		}
	}
	if st.RateLimit.Queries != len(srv.GraphQLCosts()) || st.RateLimit.Remaining <= 0 {
		t.Errorf("rate limit %+v; want every query counted and the points left", st.RateLimit)
	}
}

// A Newest read is one query: the pull request's newest 100 commits and
// force pushes, in GitHub's order, with their check runs, who wrote them,
// and Older set because older ones exist. A short pull request read so is
// whole (Older false).
func TestReadLedger_NewestIsOneQueryOfTheNewestCommits(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	richLedger(srv)
	c, _ := newClient(t, srv)
	st, err := c.ReadLedger(context.Background(), forge.LedgerQuery{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Newest: true})
	if err != nil {
		t.Fatal(err)
	}
	if costs := srv.GraphQLCosts(); len(costs) != 1 || st.RateLimit.Queries != 1 || costs[0] > 5 {
		t.Errorf("queries %v points (counted %d), want one of at most 5", costs, st.RateLimit.Queries)
	}
	if !st.Older {
		t.Error("Older is false with 130 commits and 120 force pushes: the caller would take 100 for the whole")
	}
	if len(st.Commits) != 100 || st.Commits[0] != sha(30) || st.Commits[99] != sha(129) {
		t.Fatalf("commits %d, %v .. %v; want the newest 100, oldest first (%s .. %s)", len(st.Commits), st.Commits[0], st.Commits[len(st.Commits)-1], sha(30), sha(129))
	}
	heads := map[string]int{}
	for _, r := range st.Runs {
		heads[r.HeadSHA]++
	}
	if heads[sha(29)] != 0 || heads[sha(30)] != 1 || heads[sha(1000+19)] != 0 || heads[sha(1000+20)] != 1 || heads[sha(1000+119)] != 1 {
		t.Errorf("runs by head %v: want those of the newest 100 commits and force pushes only", heads)
	}
	if len(st.Comments) != 1 || st.Viewer != ghfake.BotLogin {
		t.Errorf("comments %+v, viewer %q: the newest read keeps what the first query says", st.Comments, st.Viewer)
	}

	short := newFake(t)
	short.AddPullRequest(forge.PullRequest{Number: 8, HeadSHA: sha(2), HeadRef: "agent/short", BaseRef: "main", Author: "agent"})
	short.SetPullRequestCommits(8, []string{sha(1), sha(2)})
	sc, _ := newClient(t, short)
	st, err = sc.ReadLedger(context.Background(), forge.LedgerQuery{PR: 8, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Newest: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Older || len(st.Commits) != 2 {
		t.Errorf("a two-commit pull request: Older %v, commits %v; want whole", st.Older, st.Commits)
	}
}

// GitHub's errors at HTTP 200 are errors, never an empty ledger: a pull
// request that does not exist (NOT_FOUND, null pullRequest), a repository
// the token cannot see.
func TestReadLedger_GraphQLErrorsAreErrors(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	c, _ := newClient(t, srv)
	_, err := c.ReadLedger(context.Background(), forge.LedgerQuery{PR: 99, CheckName: "greenlight-breaker", TagPrefix: "greenlight/"})
	if err == nil || !strings.Contains(err.Error(), "Could not resolve to a PullRequest") {
		t.Errorf("missing pull request: %v; want GitHub's NOT_FOUND", err)
	}
	srv.Fail(ghfake.Failure{Method: "POST", Path: "/graphql", Status: 200,
		Body: `{"data":{"repository":null},"errors":[{"type":"FORBIDDEN","path":["repository"],"message":"Resource not accessible by integration"}]}`})
	_, err = c.ReadLedger(context.Background(), forge.LedgerQuery{Branch: "main", CheckName: "greenlight-breaker", TagPrefix: "greenlight/"})
	if err == nil || !strings.Contains(err.Error(), "not accessible") {
		t.Errorf("forbidden: %v; want GitHub's FORBIDDEN", err)
	}
}

// A branch without a pull request: its history is walked page by page,
// so a push of 100 empty commits does not push the observed heads out.
func TestReadLedger_BranchHistoryEveryPage(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	parent := []string{}
	for i := range 250 {
		srv.AddCommit(sha(i), sha(5000), "c", parent...)
		parent = []string{sha(i)}
	}
	srv.SetRef("heads/agent/fix", sha(249))
	srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: sha(3), Text: "old", AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
	c, _ := newClient(t, srv)
	st, err := c.ReadLedger(context.Background(), forge.LedgerQuery{Branch: "agent/fix", CheckName: "greenlight-breaker", TagPrefix: "greenlight/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Runs) != 1 || st.Runs[0].HeadSHA != sha(3) {
		t.Errorf("runs %+v; want the one 246 commits back", st.Runs)
	}
}

// A head a squash took off the branch: its history is read a page of 100
// commits at a time down to the oldest earlier head its entry had in it,
// and no further; a history without that head is an error naming it.
func TestReadAncestry_ReadsTheRewrittenHeadsHistory(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	const n = 150
	for i := range n {
		var parents []string
		if i > 0 {
			parents = []string{sha(5000 + i - 1)}
		}
		srv.AddCommit(sha(5000+i), sha(9000+i), "", parents...)
	}
	for _, i := range []int{3, 20, 149} {
		srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: sha(5000 + i), Text: "entry",
			AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
	}
	c, _ := newClient(t, srv)
	q := forge.LedgerQuery{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/"}
	runs, err := c.ReadAncestry(context.Background(), q, sha(5000+n-1), sha(5020))
	if err != nil {
		t.Fatal(err)
	}
	heads := map[string]bool{}
	for _, r := range runs {
		heads[r.HeadSHA] = true
	}
	if !heads[sha(5149)] || !heads[sha(5020)] || len(srv.GraphQLQueries()) != 2 {
		t.Errorf("read runs on %v in %d queries; want the head's and the until commit's, in two pages", heads, len(srv.GraphQLQueries()))
	}
	if _, err := c.ReadAncestry(context.Background(), q, sha(5010), sha(5020)); !errors.Is(err, forge.ErrNotInHistory) || !strings.Contains(err.Error(), sha(5020)) {
		t.Errorf("a history without the named head: err %v, want it named", err)
	}
}

// With the pull request's base, the ledger query reads the base's check
// runs in the same request: one query, the base's runs apart from the
// pull request's.
func TestReadLedger_ReadsTheBaseInTheSameQuery(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: sha(2), HeadRef: "agent/fix", BaseRef: "main", BaseSHA: sha(900), Author: "agent"})
	srv.SetPullRequestCommits(7, []string{sha(1), sha(2)})
	for _, h := range []string{sha(2), sha(900)} {
		srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: h, Text: "entry", AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
	}
	c, _ := newClient(t, srv)
	st, err := c.ReadLedger(context.Background(), forge.LedgerQuery{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Base: sha(900)})
	if err != nil {
		t.Fatal(err)
	}
	if !st.BaseRead || len(st.BaseRuns) != 1 || st.BaseRuns[0].HeadSHA != sha(900) || len(st.Runs) != 1 || st.Runs[0].HeadSHA != sha(2) {
		t.Errorf("base read %v, base runs %+v, runs %+v; want the base's one run apart from the head's", st.BaseRead, st.BaseRuns, st.Runs)
	}
	if n := len(srv.GraphQLQueries()); n != 1 {
		t.Errorf("%d queries, want 1", n)
	}
}
