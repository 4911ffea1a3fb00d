package app_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// commentOn is an issue_comment created on pull request pr by login, its
// id the one the fake GitHub gave it (a reset is read back by it).
func (w *world) commentOn(pr int, login, body string) map[string]any {
	id := w.gh.AddComment(pr, login, body)
	p := payload(w.t, "issue_comment.json")
	setPath(p, "issue.number", pr)
	setPath(p, "issue.pull_request", map[string]any{"url": "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo + "/pulls/" + strconv.Itoa(pr)})
	setPath(p, "comment.id", id)
	setPath(p, "comment.body", body)
	setPath(p, "comment.user.login", login)
	setPath(p, "comment.user.type", "User")
	return p
}

// A maintainer's /breaker reset on the tripped pull request, delivered to
// the App: the reset is acknowledged in the one comment, and the next
// push counts from nothing — its check run green.
func TestServe_ResetByAMaintainersComment(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	head := w.trip()
	w.gh.SetPermission("alice", "write")
	if code := w.deliver("issue_comment", "reset-1", w.commentOn(7, "alice", "/breaker reset use the unique index")); code != http.StatusAccepted {
		t.Fatalf("the comment's delivery: %d, want 202", code)
	}
	if got, ok := w.gh.Ref("tags/greenlight/reset/S-3"); !ok || got != head {
		t.Errorf("reset ref = %q (exists %v), want the head %s", got, ok, head)
	}
	comments := w.gh.CommentsByAuthor(7, "greenlight-breaker[bot]")
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "alice reset S-3") {
		t.Fatalf("the App's comments on #7: %+v; want the one comment acknowledging alice's reset", comments)
	}

	pr, runID := w.push(3)
	w.deliver("workflow_run", "after-reset", w.workflowRun(runID, pr))
	runs := w.gh.CheckRuns()
	last := runs[len(runs)-1]
	if last.HeadSHA != pr.HeadSHA || last.Conclusion != "success" {
		t.Errorf("the push after the reset: check run on %s concluded %q; want %s, success", last.HeadSHA, last.Conclusion, pr.HeadSHA)
	}
}

// The same comment from someone who may not write is refused as a reply;
// the circuit stays OPEN.
func TestServe_ResetFromAReaderIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	w.trip()
	w.gh.SetPermission("bob", "read")
	w.deliver("issue_comment", "reset-1", w.commentOn(7, "bob", "/breaker reset"))
	if _, ok := w.gh.Ref("tags/greenlight/reset/S-3"); ok {
		t.Error("a reader's reset wrote the reset ref")
	}
	var refused bool
	for _, c := range w.gh.CommentsByAuthor(7, "greenlight-breaker[bot]") {
		refused = refused || strings.Contains(c.Body, "Refused /breaker reset from")
	}
	if !refused {
		t.Errorf("no refusal by the App on #7: %+v", w.gh.Comments(7))
	}
}

// A fork's pull request: GitHub's workflow_run lists no pull request
// (pull_requests is empty for a fork's), head_repository is the fork, and
// the head commit is only at refs/pull/7/head of the base repository.
// The App finds the pull request by its head and trips on the third push.
func TestServe_ForkPullRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	// The fork left main 100 commits ago, and its pull request's base is
	// where main was then: deeper than main's newest commits, which the
	// fetch deepens past (its run names no base: the default branch's tip
	// stands in until the two histories meet).
	base := w.repo.CommitMany("main", 1)
	w.repo.CommitMany("main", 100)
	w.gh.SetDefaultBranch("main", w.repo.Git("rev-parse", "main"))
	var heads []string
	tip := base
	for i := range 3 {
		w.repo.Git("checkout", "-q", "--detach", tip)
		head := w.repo.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
		w.repo.Git("update-ref", "refs/pull/7/head", head)
		w.repo.Git("checkout", "-q", "main") // GitHub's HEAD is the default branch
		tip = head
		heads = append(heads, head)
		pr := forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "fix-login", BaseRef: "main",
			BaseSHA: base, Author: "forker", Fork: true}
		w.gh.AddPullRequest(pr)
		w.gh.SetPullRequestCommits(7, strings.Fields(w.repo.Git("rev-list", "--reverse", base+".."+head)))
		runID := int64(6000 + i)
		w.gh.AddArtifact(runID, "test-results", zipOf(t, map[string]string{"reports/junit.xml": failingJUnit}))
		p := w.workflowRun(runID, pr)
		setPath(p, "workflow_run.pull_requests", []any{})
		setPath(p, "workflow_run.head_repository.full_name", "forker/"+ghfake.DefaultRepo)
		setPath(p, "workflow_run.head_repository.owner.login", "forker")
		setPath(p, "workflow_run.head_repository.fork", true)
		w.deliver("workflow_run", "fork-"+strconv.Itoa(i), p)
	}
	runs := w.gh.CheckRuns()
	if len(runs) != 3 {
		t.Fatalf("%d check runs, want one on every head: %+v", len(runs), runs)
	}
	for i, run := range runs {
		if run.HeadSHA != heads[i] {
			t.Errorf("check run %d on %s, want %s", i, run.HeadSHA, heads[i])
		}
	}
	if runs[2].Conclusion != "failure" {
		t.Errorf("the third check run concluded %q, want failure", runs[2].Conclusion)
	}
	if c := w.gh.CommentsByAuthor(7, "greenlight-breaker[bot]"); len(c) != 1 {
		t.Errorf("%d comments by the App on #7, want 1", len(c))
	}
	if logs := w.log.String(); strings.Count(logs, "depth=512") != 3 {
		t.Errorf("the fork's lines were not fetched at depth 512:\n%s", grepLines(logs, "fetched the line"))
	}
}

// checkRunRerequested is GitHub's check_run rerequested for the App's
// check run on head, from App app.
func (w *world) checkRunRerequested(head string, app int64) map[string]any {
	p := payload(w.t, "check_run.rerequested.json")
	setPath(p, "check_run.head_sha", head)
	setPath(p, "check_run.check_suite.head_sha", head)
	setPath(p, "check_run.app.id", app)
	setPath(p, "check_run.check_suite.app.id", app)
	return p
}

// "Re-run" on the App's check: the head is judged again from its tested
// run, an observation the ledger holds already — it counts once, so the
// spiral still trips on its third push, not earlier. Another App's check
// run, or a head no tested run completed at, is nothing to judge.
func TestServe_ReRequestedCheckJudgesItsHeadAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	w.repo.Git("checkout", "-q", "-b", "agent/S-3")
	var heads []string
	for i := range 2 {
		pr, runID := w.push(i)
		heads = append(heads, pr.HeadSHA)
		w.deliver("workflow_run", "d-"+strconv.Itoa(i), w.workflowRun(runID, pr))
	}
	w.deliver("check_run", "again-1", w.checkRunRerequested(heads[1], appID))
	w.deliver("check_run", "again-2", w.checkRunRerequested(heads[1], appID))
	runs := w.gh.CheckRuns()
	if len(runs) != 4 || runs[3].HeadSHA != heads[1] || runs[3].Conclusion != "success" {
		t.Fatalf("check runs after two re-requests of the second head: %+v; want the third and fourth, green, on %s", runs, heads[1])
	}

	w.deliver("check_run", "another-app", w.checkRunRerequested(heads[1], 15368))
	w.deliver("check_run", "untested", w.checkRunRerequested(w.repo.Git("rev-parse", "main"), appID))
	if n := len(w.gh.CheckRuns()); n != 4 {
		t.Errorf("%d check runs after re-requests of another App's check and of an untested head, want still 4", n)
	}

	pr, runID := w.push(2)
	w.deliver("workflow_run", "d-2", w.workflowRun(runID, pr))
	runs = w.gh.CheckRuns()
	if last := runs[len(runs)-1]; last.HeadSHA != pr.HeadSHA || last.Conclusion != "failure" {
		t.Errorf("the third push: %s %s; want it to trip (the re-requests counted no push)", last.HeadSHA, last.Conclusion)
	}
}

// A repository with a long history: the agent's branch left main 300
// commits in, and main moved on 100 more before the pushes. Each delivery
// fetches the line of work alone — main's and the branch's newest
// commits, deepened until they meet (64 commits are too few, 512 reach
// the fork point) — never the history below it, and the third push trips.
func TestServe_FetchesTheLineOfWorkNotTheRepositorysAge(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	w.repo.CommitMany("main", 300)
	w.repo.Git("checkout", "-q", "-b", "agent/S-3")
	w.repo.Git("checkout", "-q", "main")
	w.repo.CommitMany("main", 100)
	w.gh.SetDefaultBranch("main", w.repo.Git("rev-parse", "main"))
	w.repo.Git("checkout", "-q", "agent/S-3")
	for i := range 3 {
		pr, runID := w.push(i)
		w.deliver("workflow_run", "d-"+strconv.Itoa(i), w.workflowRun(runID, pr))
	}
	runs := w.gh.CheckRuns()
	if len(runs) != 3 || runs[2].Conclusion != "failure" {
		t.Fatalf("check runs %+v; want the third push to trip", runs)
	}
	if logs := w.log.String(); strings.Count(logs, "fetched the line of work") != 3 || !strings.Contains(logs, "depth=512") || strings.Contains(logs, "depth=0") {
		t.Errorf("the fetches were not the line of work at depth 512:\n%s", grepLines(logs, "fetched the line"))
	}
}

// grepLines are the lines of s that hold sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
