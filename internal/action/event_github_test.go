package action_test

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// These tests hold the Action to GitHub's real contract, as the fake
// serves it: ids past 2^31, a bot's login without "[bot]" in GraphQL, a
// fork's pull request missing from the run and from commits/{sha}/pulls,
// GraphQL's rate limit at HTTP 200 and its points, secondary limits
// without Retry-After (issue #21).

// Three failing pushes of an agent without trailers trip on the third with
// every id GitHub hands out past 2^31; every run reads the ledger.
func TestGitHub_IDsPast2e31ThreeFailingPushesTrip(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix-login")
	for i, want := range []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped} {
		res, _ := l.push(map[string]string{"TestLogin": "fail"})
		if res.code != want {
			t.Fatalf("push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
	}
	if got := l.h.countCalls("POST", "/graphql"); got < 3 {
		t.Errorf("%d GraphQL queries for 3 runs: every run must read the ledger", got)
	}
	for _, run := range l.h.srv.CheckRuns() {
		if run.ID <= math.MaxInt32 {
			t.Errorf("check run id %d fits 32 bits: the fake must hand out GitHub-sized ids", run.ID)
		}
	}
	comments := l.h.comments(7)
	if len(comments) != 1 || comments[0].ID <= math.MaxInt32 {
		t.Errorf("comments %+v; want one, its id past 2^31", comments)
	}
}

// The sticky comment is created once and edited in place on every later
// run, with a GITHUB_TOKEN and with an App's installation token: GraphQL
// names the author "github-actions" (or the App's slug), REST and the
// viewer "…[bot]"; no run deletes and re-posts it.
func TestGitHub_StickyCommentEditedInPlaceForBotTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []ghfake.Option
		app  string // app-id input
		want string // the comment's author
	}{
		{"GITHUB_TOKEN", nil, "", ghfake.BotLogin},
		{"App token", []ghfake.Option{ghfake.WithApp(912345, "greenlight-breaker-app")}, "912345", "greenlight-breaker-app[bot]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t, tc.opts...)
			if tc.app != "" {
				h.inputs["app-id"] = tc.app
			}
			h.repo.Git("checkout", "-q", "-b", "agent/S-3")
			for i := range 4 {
				head := h.repo.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
				h.failing(testDup)
				h.openPR(head)
				if res := h.run("push", pushEvent(t, "agent/S-3", head)); res.code != cli.ExitClosed && res.code != cli.ExitTripped {
					t.Fatalf("run %d: exit %d\n%s", i+1, res.code, res.stdout)
				}
			}
			if got := h.countCalls("POST", "/issues/7/comments"); got != 1 {
				t.Errorf("comments created = %d, want 1: later runs edit it", got)
			}
			if got := h.countCalls("DELETE", "/issues/comments/"); got != 0 {
				t.Errorf("comments deleted = %d, want 0: the comment is ours and is edited, never re-posted", got)
			}
			if got := h.countCalls("PATCH", "/issues/comments/"); got < 2 {
				t.Errorf("comment edits = %d, want one a run that changed it", got)
			}
			if c := h.comments(7); len(c) != 1 || c[0].Author != tc.want {
				t.Errorf("comments %+v; want one by %s", c, tc.want)
			}
		})
	}
}

// forkRunEvent is a completed workflow_run of a fork's pull request as
// GitHub sends it: pull_requests is empty, and head_repository is the
// fork.
func forkRunEvent(t *testing.T, runID int64, owner, branch, head string) map[string]any {
	p := webhook(t, "workflow_run.json")
	setPath(p, "action", "completed")
	setPath(p, "workflow_run.id", runID)
	setPath(p, "workflow_run.event", "pull_request")
	setPath(p, "workflow_run.head_sha", head)
	setPath(p, "workflow_run.head_branch", branch)
	setPath(p, "workflow_run.pull_requests", []any{})
	setPath(p, "workflow_run.head_repository.full_name", owner+"/"+ghfake.DefaultRepo)
	setPath(p, "workflow_run.head_repository.owner.login", owner)
	setPath(p, "workflow_run.head_repository.owner.type", "User")
	setPath(p, "workflow_run.head_repository.fork", true)
	return p
}

// A fork's pull request under workflow_run (the hardened mode), with a
// head branch named main and with another name: a check run on every
// head, one comment, the third failing push trips.
func TestGitHub_ForkPullRequestUnderWorkflowRun(t *testing.T) {
	t.Parallel()
	for _, branch := range []string{"main", "fix-login"} {
		t.Run(branch, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			h.inputs["results-artifact"] = "test-results"
			h.inputs["results"] = "reports/*.xml"
			h.env["RUNNER_TEMP"] = t.TempDir()
			h.repo.Git("checkout", "-q", "-b", "fork-work")
			junit := `<testsuite name="users"><testcase classname="users" name="` + testDup + `"><failure message="expected 409, got 500">service_test.go:42</failure></testcase></testsuite>`
			var res actionResult
			var heads []string
			for i := range 3 {
				head := h.repo.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
				heads = append(heads, head)
				h.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: branch, BaseRef: "main",
					BaseSHA: h.repo.Git("rev-parse", "main"), Author: "forker", Fork: true})
				runID := int64(6000 + i)
				h.srv.AddArtifact(runID, "test-results", zipOf(t, map[string]string{"reports/junit.xml": junit}))
				res = h.run("workflow_run", forkRunEvent(t, runID, "forker", branch, head))
				if want := []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped}[i]; res.code != want {
					t.Fatalf("run %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
				}
			}
			runs := h.srv.CheckRuns()
			if len(runs) != 3 {
				t.Fatalf("%d check runs, want one on every head", len(runs))
			}
			for i, run := range runs {
				if run.HeadSHA != heads[i] {
					t.Errorf("check run %d on %s, want %s", i, run.HeadSHA, heads[i])
				}
			}
			if runs[2].Conclusion != "failure" {
				t.Errorf("third check run concluded %q, want failure", runs[2].Conclusion)
			}
			if c := h.comments(7); len(c) != 1 {
				t.Errorf("%d comments on #7, want 1", len(c))
			}
		})
	}
}

// A pull_request run for which GitHub lists no open pull request (closed
// meanwhile, or never found) is a failed check run that says why, and an
// error — never "nothing to judge".
func TestGitHub_WorkflowRunWithoutPullRequestFailsItsCheck(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.inputs["results-artifact"] = "test-results"
	h.env["RUNNER_TEMP"] = t.TempDir()
	h.repo.Git("checkout", "-q", "-b", "fork-work")
	head := h.repo.Attempt("S-3", testDup, "strategy")
	res := h.run("workflow_run", forkRunEvent(t, 6100, "forker", "main", head))
	if res.code != cli.ExitError {
		t.Fatalf("exit %d, want %d\n%s", res.code, cli.ExitError, res.stdout)
	}
	runs := h.srv.CheckRuns()
	if len(runs) != 1 || runs[0].HeadSHA != head || runs[0].Conclusion != "failure" {
		t.Fatalf("check runs %+v; want one failed check run on %s", runs, head)
	}
	if !strings.Contains(runs[0].Summary, "no open pull request") || !strings.Contains(runs[0].Title, "no pull request found") {
		t.Errorf("the failed check run does not say why:\n%s\n%s", runs[0].Title, runs[0].Summary)
	}
	if !strings.Contains(res.stdout, "forker:main") {
		t.Errorf("the error does not name the head it looked for:\n%s", res.stdout)
	}
}

// GraphQL's primary rate limit is HTTP 200 with an error of type
// RATE_LIMITED. Answered once, the run waits (bounded) and goes on;
// past the wait bound, the run fails naming the limit, never judging
// without the ledger.
func TestGitHub_GraphQLRateLimited(t *testing.T) {
	t.Parallel()
	limited := func(h *actionHarness, reset time.Duration, times int) {
		h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/graphql", Status: 200, Body: ghfake.BodyGraphQLRateLimited, Times: times,
			Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Resource": "graphql",
				"X-RateLimit-Reset": strconv.FormatInt(actionNow.Add(reset).Unix(), 10)}})
	}
	t.Run("once", func(t *testing.T) {
		t.Parallel()
		l := newLedgerRun(t, "agent/fix-login")
		limited(l.h, 40*time.Second, 1)
		res, _ := l.push(map[string]string{"TestLogin": "fail"})
		if res.code != cli.ExitClosed {
			t.Fatalf("exit %d, want 0\n%s", res.code, res.stdout)
		}
		if w := l.h.waits(); len(w) != 1 || w[0] != 41*time.Second {
			t.Errorf("waits %v, want one of 41s (until the reset)", w)
		}
		if len(l.h.srv.CheckRuns()) != 1 {
			t.Errorf("the entry was not written after the wait")
		}
	})
	t.Run("past the bound", func(t *testing.T) {
		t.Parallel()
		l := newLedgerRun(t, "agent/fix-login")
		limited(l.h, 50*time.Minute, 1)
		res, _ := l.push(map[string]string{"TestLogin": "fail"})
		if res.code != cli.ExitError {
			t.Fatalf("exit %d, want 1\n%s", res.code, res.stdout)
		}
		if !strings.Contains(res.stdout, "graphql api rate limit") || !strings.Contains(res.stdout, "RATE_LIMITED") {
			t.Errorf("the error does not name GraphQL's limit:\n%s", res.stdout)
		}
		if strings.Contains(res.stdout, "no history") || res.outputs["state"] != "" {
			t.Errorf("a run without its ledger decided: state %q\n%s", res.outputs["state"], res.stdout)
		}
	})
}

// One run's ledger reads cost at most 5 points by GitHub's calculation,
// and the look at the agent's other pull requests (issue 46) one more, so
// a GITHUB_TOKEN's 1,000 points an hour cover over 160 runs; the run logs
// the cost and what is left, and says so when a few runs' worth is left.
func TestGitHub_GraphQLCostAndLowPoints(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix-login")
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	costs := l.h.srv.GraphQLCosts()
	total := 0
	for _, c := range costs {
		total += c
	}
	t.Logf("one push run: %d GraphQL queries costing %v points", len(costs), costs)
	if len(costs) == 0 || total > 6 || costs[len(costs)-1] != 1 {
		t.Errorf("one push run cost %v GraphQL points (%d), want at most 5 and the agent lookup's 1", costs, total)
	}
	if !strings.Contains(res.stdout, "GraphQL points in 1 query;") || !strings.Contains(res.stdout, "left this hour") {
		t.Errorf("the log does not give the cost and the points left:\n%s", res.stdout)
	}
	if strings.Contains(res.summary, "running out") {
		t.Errorf("the summary warns with 1,000 points left")
	}
	l.h.srv.SetGraphQLRemaining(12)
	res, _ = l.push(map[string]string{"TestLogin": "fail"})
	if res.code != cli.ExitClosed {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	if !strings.Contains(res.summary, "GraphQL points are running out") {
		t.Errorf("the summary does not warn with 12 points left:\n%s", res.summary)
	}
}

// A secondary limit without Retry-After on the check run write (the
// ledger entry) is waited out for at least a minute, as GitHub's docs
// ask, and the entry is written.
func TestGitHub_SecondaryLimitOnCheckRunIsWaitedOut(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix-login")
	l.h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/check-runs", Status: 403, Body: ghfake.BodySecondaryRateLimit,
		Header: map[string]string{"X-RateLimit-Remaining": "4321", "X-RateLimit-Reset": strconv.FormatInt(actionNow.Add(55*time.Minute).Unix(), 10)}})
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	if res.code != cli.ExitClosed {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	if w := l.h.waits(); len(w) != 1 || w[0] < time.Minute || w[0] > 2*time.Minute {
		t.Errorf("waits %v, want one of at least a minute (and not the hour to the primary reset)", w)
	}
	if len(l.h.srv.CheckRuns()) != 1 {
		t.Errorf("the ledger entry was lost to a secondary limit")
	}
}

// Every request names its client: GitHub asks for a User-Agent, and
// Go's default says nothing of who sends it.
func TestGitHub_EveryRequestHasOurUserAgent(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix-login")
	l.push(map[string]string{"TestLogin": "fail"})
	for _, c := range l.h.srv.Calls() {
		if !strings.HasPrefix(c.UserAgent, "greenlight-breaker") {
			t.Errorf("%s sent User-Agent %q", c, c.UserAgent)
		}
	}
}

// A ruleset that restricts tags refuses the checkpoint tag with 422
// "Repository rule violations found": the run says so once, with what to
// do, and the verdict stands.
func TestGitHub_TagRulesetRefusalSaysTheFix(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.srv.SetRuleset("tags/")
	_, head := h.spiral(3)
	h.openPR(head)
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit %d, want 42: a refused tag never changes the verdict\n%s", res.code, res.stdout)
	}
	if got := strings.Count(res.summary, "ruleset refuses the checkpoint tag"); got != 1 {
		t.Errorf("the refusal is said %d times in the summary, want once:\n%s", got, res.summary)
	}
	for _, fix := range []string{"bypass list", "tag-prefix"} {
		if !strings.Contains(res.summary, fix) {
			t.Errorf("the summary does not say the fix (%s):\n%s", fix, res.summary)
		}
	}
	if len(h.srv.Tags()) != 0 {
		t.Errorf("tags %v exist despite the ruleset", h.srv.Tags())
	}
}
