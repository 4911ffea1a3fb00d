package action_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/report"
)

// The attacks of docs/trust-model.md, end to end: the Action over several
// runs against the fake GitHub, an agent with the access a coding agent
// has (pushes, force pushes, rebases, its own pull requests and comments,
// tags). Each ends OPEN or refused.

// trust is one repository with pull requests whose pushes GitHub records
// as it does: the pull request's commits (main..head) and a force-push
// event whenever a push does not descend from the head before it.
type trust struct {
	t     *testing.T
	h     *actionHarness
	heads map[int]string
}

func newTrust(t *testing.T) *trust {
	h := newActionHarness(t)
	h.advance = true
	return &trust{t: t, h: h, heads: map[int]string{}}
}

// commit adds a plain fix (no trailers) on the checked-out branch.
func (tr *trust) commit(msg string) string {
	tr.t.Helper()
	n := len(tr.heads) + tr.h.repo.Tick
	return tr.h.repo.CommitFiles(msg, map[string]string{fmt.Sprintf("internal/auth/fix%d.go", n): "package auth\n"})
}

// openPR records pull request pr from branch at head as GitHub has it.
func (tr *trust) openPR(pr int, branch, head, author string) forge.PullRequest {
	tr.t.Helper()
	p := forge.PullRequest{Number: pr, HeadSHA: head, HeadRef: branch, BaseRef: "main",
		BaseSHA: tr.h.repo.Git("rev-parse", "main"), Author: author}
	tr.h.srv.AddPullRequest(p)
	commits := strings.Fields(tr.h.repo.Git("rev-list", "--reverse", "main.."+head))
	tr.h.srv.SetPullRequestCommits(pr, commits)
	if prev, ok := tr.heads[pr]; ok && prev != head && !tr.ancestor(prev, head) {
		tr.h.srv.AddForcePush(pr, prev)
	}
	tr.heads[pr] = head
	return p
}

func (tr *trust) ancestor(a, b string) bool {
	cmd := exec.Command("git", "merge-base", "--is-ancestor", a, b)
	cmd.Dir = tr.h.repo.Dir
	return cmd.Run() == nil
}

// push writes the results (TestLogin failing), records pull request pr at
// the checked-out head and runs the Action on the push.
func (tr *trust) push(pr int, branch string, statuses map[string]string) (actionResult, string) {
	tr.t.Helper()
	head := tr.h.repo.Git("rev-parse", "HEAD")
	if statuses == nil {
		statuses = map[string]string{"TestLogin": "fail"}
	}
	tr.h.repo.JUnit("junit.xml", statuses)
	tr.openPR(pr, branch, head, "agent-bot")
	return tr.h.run("push", pushEvent(tr.t, branch, head)), head
}

// want fails the test unless res ended with code (and, when given, state).
func (tr *trust) want(step string, res actionResult, code int) {
	tr.t.Helper()
	if res.code != code {
		tr.t.Fatalf("%s: exit %d, want %d (state %q, trip %q)\n%s", step, res.code, code, res.outputs["state"], res.outputs["trip-reason"], res.stdout)
	}
}

// trip checks out a new branch and has the agent fail three pushes on
// pull request pr (closed, closed, tripped); attempt makes push i's commit.
// It returns the tripped head.
func (tr *trust) trip(pr int, branch string, attempt func(i int)) string {
	tr.t.Helper()
	tr.h.repo.Git("checkout", "-q", "-b", branch)
	for i, want := range []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped} {
		attempt(i + 1)
		res, _ := tr.push(pr, branch, nil)
		tr.want(fmt.Sprintf("push %d", i+1), res, want)
	}
	return tr.h.repo.Git("rev-parse", "HEAD")
}

// reset has alice (write) comment the command on pull request pr.
func (tr *trust) reset(pr int, command string) actionResult {
	tr.t.Helper()
	tr.h.srv.SetPermission("alice", "write")
	return tr.h.run("issue_comment", commentEvent(tr.t, pr, "alice", "User", command))
}

// One reset is not unlimited: after it the agent fails three more times
// (OPEN again), then force-pushes back onto the reset commit plus one
// commit, again and again; every push from the third on is OPEN.
func TestTrust_OneResetIsNotUnlimited(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	resetAt := tr.trip(7, "agent/S-3", func(i int) { tr.commit(fmt.Sprintf("Fix the login, take %d", i)) })
	if res := tr.reset(7, "/breaker reset S-3"); res.code != cli.ExitClosed || res.outputs["state"] != "CLOSED" {
		t.Fatalf("reset: exit %d, state %q\n%s", res.code, res.outputs["state"], res.stdout)
	}
	for i := range 9 {
		if i >= 3 {
			// Back onto the reset commit, plus one new commit: a force push.
			tr.h.repo.Git("reset", "-q", "--hard", resetAt)
		}
		tr.commit(fmt.Sprintf("Fix the login after the reset, take %d", i+1))
		res, _ := tr.push(7, "agent/S-3", nil)
		want := cli.ExitClosed
		if i >= 2 {
			want = cli.ExitTripped
		}
		tr.want(fmt.Sprintf("failing push %d after the reset", i+1), res, want)
	}
}

// A rebase (or a squash) and a force push after two failing pushes take
// commits off the branch, never pushes out of the ledger: the third failing
// push trips, and the push history has three rows.
func TestTrust_RebaseAndSquashKeepEveryPush(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"rebase", "squash"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			tr := newTrust(t)
			tr.h.repo.Git("checkout", "-q", "-b", "agent/fix-login")
			for i := range 2 {
				tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
				res, _ := tr.push(7, "agent/fix-login", nil)
				tr.want(fmt.Sprintf("push %d", i+1), res, cli.ExitClosed)
			}
			switch how {
			case "rebase": // main moves on; the agent rebases onto it, as reviewers ask
				tr.h.repo.Git("checkout", "-q", "main")
				tr.h.repo.CommitFiles("main moves on", map[string]string{"README.md": "shop v2\n"})
				tr.h.repo.Git("checkout", "-q", "agent/fix-login")
				tr.h.repo.Git("rebase", "-q", "main")
			case "squash":
				tr.h.repo.Git("reset", "-q", "--soft", "main")
				tr.h.repo.Git("commit", "-q", "-m", "Fix the login")
			}
			res, _ := tr.push(7, "agent/fix-login", nil)
			tr.want("the rewritten push", res, cli.ExitTripped)
			if res.outputs["trip-reason"] != "no_progress" {
				t.Errorf("trip reason %q, want no_progress", res.outputs["trip-reason"])
			}
			rep := readReport(t, tr.h)
			if len(rep.Pushes) != 3 {
				t.Errorf("%d rows in the push history, want 3: %+v", len(rep.Pushes), rep.Pushes)
			}
		})
	}
}

// 101 force pushes that CI never completed (a loop of git push -f) do not
// push the observed heads out of the ledger: every force-push event is read.
func TestTrust_ManyUnobservedForcePushes(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "agent/fix-login")
	var observed []string
	for i := range 2 {
		tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		res, head := tr.push(7, "agent/fix-login", nil)
		tr.want(fmt.Sprintf("push %d", i+1), res, cli.ExitClosed)
		observed = append(observed, head)
	}
	for i := range 101 {
		tr.h.srv.AddForcePush(7, fmt.Sprintf("%040x", 0xdead0000+i))
	}
	// The observed heads were force-pushed away: the pull request no longer
	// lists them; only the force-push events (the oldest first) do.
	tr.h.srv.AddForcePush(7, observed[1])
	tr.h.repo.Git("reset", "-q", "--hard", "main")
	tr.commit("Start over")
	tr.heads[7] = tr.h.repo.Git("rev-parse", "HEAD") // the force push is recorded above
	res, _ := tr.push(7, "agent/fix-login", nil)
	tr.want("the push after 101 unobserved force pushes", res, cli.ExitTripped)
}

// A push-only branch (no pull request): 100 empty commits do not push the
// observed heads out of the branch's history.
func TestTrust_EmptyCommitsOnAPushOnlyBranch(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "agent/fix-login")
	push := func(step string, want int) {
		t.Helper()
		head := tr.h.repo.Git("rev-parse", "HEAD")
		tr.h.repo.JUnit("junit.xml", map[string]string{"TestLogin": "fail"})
		res := tr.h.run("push", pushEvent(t, "agent/fix-login", head))
		tr.want(step, res, want)
	}
	for i := range 2 {
		tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		push(fmt.Sprintf("push %d", i+1), cli.ExitClosed)
	}
	for i := range 100 {
		tr.h.repo.Git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("empty %d", i))
	}
	push("the push of 100 empty commits", cli.ExitTripped)
}

// readReport reads the JSON report the last run wrote into the workspace.
func readReport(t *testing.T, h *actionHarness) report.Report {
	t.Helper()
	l := &ledgerRun{h: h}
	return l.report()
}

// The agent's own account (write permission, neither author nor pusher of
// the other pull request) resets slice S-3 on a person's pull request, and
// a maintainer resets that person's pull request too; the agent then
// merges that head into its branch. Neither reset reaches the agent's pull
// request: a reset is a record of the pull request it was made on.
func TestTrust_ResetOnAnotherPullRequestDoesNotReachThisOne(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "people/S-3")
	tr.h.repo.Attempt("S-3", "TestLogin", "the person's fix")
	res, personHead := tr.push(8, "people/S-3", nil)
	tr.want("the person's push", res, cli.ExitClosed)
	tr.h.srv.AddPullRequest(forge.PullRequest{Number: 8, HeadSHA: personHead, HeadRef: "people/S-3", BaseRef: "main",
		BaseSHA: tr.h.repo.Git("rev-parse", "main"), Author: "bob"})

	tr.h.repo.Git("checkout", "-q", "main")
	tr.trip(7, "agent/S-3", func(i int) { tr.h.repo.Attempt("S-3", "TestLogin", fmt.Sprintf("the agent's take %d", i)) })
	// The agent's account: write permission, nothing to do with #8.
	tr.h.srv.SetPermission("mallory", "write")
	if res := tr.h.run("issue_comment", commentEvent(t, 8, "mallory", "User", "/breaker reset S-3")); res.code != cli.ExitClosed {
		t.Fatalf("mallory's reset on #8: exit %d\n%s", res.code, res.stdout)
	}
	if res := tr.reset(8, "/breaker reset S-3"); res.code != cli.ExitClosed {
		t.Fatalf("alice's reset on #8: exit %d\n%s", res.code, res.stdout)
	}
	tr.h.repo.Git("merge", "-q", "--no-ff", "-m", "Merge the person's work", "people/S-3")
	res, _ = tr.push(7, "agent/S-3", nil)
	tr.want("the agent's push after merging the reset head", res, cli.ExitTripped)
}

// The agent plants greenlight/checkpoint/S-3 at a commit of its own (the
// app deleted, EVIL added); a maintainer's /breaker reset --rollback on a
// person's pull request restores the checkpoint that pull request's ledger
// recorded, never the tag, and reports the disagreeing tag.
func TestTrust_PlantedCheckpointIsNeverARollbackTarget(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	base := tr.h.repo.Git("rev-parse", "main")
	baseTree := tr.h.repo.Git("rev-parse", "main^{tree}")
	tr.h.repo.Git("checkout", "-q", "-b", "evil")
	tr.h.repo.Git("rm", "-q", "-r", "internal")
	evil := tr.h.repo.CommitFiles("take over", map[string]string{"EVIL": "pwned\n"})
	evilTree := tr.h.repo.Git("rev-parse", "HEAD^{tree}")
	tr.h.srv.AddCommit(evil, evilTree, "take over", base)
	tr.h.srv.SetRef("tags/greenlight/checkpoint/S-3", evil)

	tr.h.repo.Git("checkout", "-q", "main")
	tr.h.repo.Git("checkout", "-q", "-b", "people/S-3")
	tr.h.repo.Attempt("S-3", "TestLogin", "the person's fix")
	res, head := tr.push(8, "people/S-3", nil)
	tr.want("the person's push", res, cli.ExitClosed)
	res = tr.reset(8, "/breaker reset S-3 --rollback")
	if res.code != cli.ExitClosed {
		t.Fatalf("reset --rollback: exit %d\n%s", res.code, res.stdout)
	}
	newHead, ok := tr.h.srv.Ref("heads/people/S-3")
	if !ok || newHead == head {
		t.Fatalf("the branch was not rolled back: %q", newHead)
	}
	tree, _, parents, _ := tr.h.srv.Commit(newHead)
	if tree != baseTree || tree == evilTree || len(parents) != 1 || parents[0] != head {
		t.Errorf("rollback commit has tree %s (the checkpoint's is %s, the planted tag's %s), parents %v", tree, baseTree, evilTree, parents)
	}
	if !strings.Contains(res.summary, "not at the checkpoint this pull request's ledger recorded") {
		t.Errorf("the disagreeing tag is not reported:\n%s", res.summary)
	}
	if got, _ := tr.h.srv.Ref("tags/greenlight/checkpoint/S-3"); got != evil {
		t.Errorf("the planted tag was moved to %s; the breaker never moves a tag it does not own", got)
	}
}

// Closing the agent's pull request deletes no tag of another pull request
// of the same slice: the person's pull request created the checkpoint tag,
// its ledger owns it.
func TestTrust_ClosingAPullRequestKeepsOthersTags(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "people/S-3")
	tr.h.repo.Attempt("S-3", "TestLogin", "the person's fix")
	res, _ := tr.push(8, "people/S-3", nil)
	tr.want("the person's push", res, cli.ExitClosed)
	cp, ok := tr.h.srv.Ref("tags/greenlight/checkpoint/S-3")
	if !ok {
		t.Fatalf("the person's push created no checkpoint tag: %v", tr.h.srv.Tags())
	}
	tr.h.repo.Git("checkout", "-q", "main")
	tr.h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	tr.h.repo.Attempt("S-3", "TestLogin", "the agent's take")
	res, head := tr.push(7, "agent/S-3", nil)
	tr.want("the agent's push", res, cli.ExitClosed)
	pr := forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "agent/S-3", BaseRef: "main", BaseSHA: tr.h.repo.Git("rev-parse", "main"), Author: "agent-bot"}
	if res := tr.h.run("pull_request", pullRequestEvent(t, "closed", pr)); res.code != cli.ExitClosed {
		t.Fatalf("close: exit %d\n%s", res.code, res.stdout)
	}
	if got, ok := tr.h.srv.Ref("tags/greenlight/checkpoint/S-3"); !ok || got != cp {
		t.Errorf("the person's checkpoint tag is %q (exists %v) after the agent's pull request closed, want %s kept", got, ok, cp)
	}
	if n := tr.h.countCalls("DELETE", "/git/refs/"); n != 0 {
		t.Errorf("%d tag deletions: the agent's pull request owns no tag", n)
	}
}

// A greenlight/reset/S-3 tag the agent pushes itself is no reset, with or
// without a ledger key.
func TestTrust_SelfPushedResetTagIsNoReset(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"", "a-ledger-key-of-32-characters-ok"} {
		t.Run(fmt.Sprintf("key=%v", key != ""), func(t *testing.T) {
			t.Parallel()
			tr := newTrust(t)
			if key != "" {
				tr.h.inputs["ledger-key"] = key
			}
			tr.trip(7, "agent/S-3", func(i int) { tr.h.repo.Attempt("S-3", "TestLogin", fmt.Sprintf("take %d", i)) })
			tr.h.srv.SetRef("tags/greenlight/reset/S-3", tr.h.repo.Git("rev-parse", "HEAD"))
			tr.h.repo.Attempt("S-3", "TestLogin", "after my own reset")
			res, _ := tr.push(7, "agent/S-3", nil)
			tr.want("the push after the self-pushed reset tag", res, cli.ExitTripped)
		})
	}
}

// After a trip, a head whose results hold no test, or whose result path is
// a directory, is still a failed check: an OPEN circuit is never neutral.
func TestTrust_OpenCircuitIsNeverNeutral(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"zero tests", "a directory"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			tr := newTrust(t)
			tr.trip(7, "agent/fix-login", func(i int) { tr.commit(fmt.Sprintf("Fix the login, take %d", i)) })
			head := tr.commit("Skip the tests")
			switch how {
			case "zero tests":
				writeFile(t, tr.h.repo.Dir+"/junit.xml", `<?xml version="1.0"?><testsuite name="users"></testsuite>`)
			case "a directory":
				tr.h.repo.Git("rm", "-q", "--cached", "--ignore-unmatch", "junit.xml")
				removeAll(t, tr.h.repo.Dir+"/junit.xml")
				mkdir(t, tr.h.repo.Dir+"/junit.xml")
			}
			tr.openPR(7, "agent/fix-login", head, "agent-bot")
			res := tr.h.run("push", pushEvent(t, "agent/fix-login", head))
			runs := tr.h.srv.CheckRuns()
			last := runs[len(runs)-1]
			if last.HeadSHA != head || last.Conclusion != "failure" {
				t.Errorf("the check run on %s concluded %q (on %s), want failure: exit %d\n%s", head, last.Conclusion, last.HeadSHA, res.code, res.stdout)
			}
		})
	}
}

// The agent opens a second pull request at its tripped head: the head is
// one of the new pull request's own commits, so the trip is its own (the
// line of work, issue 29), and the newest check run on that commit, the
// one a required check reads, stays failure.
func TestTrust_SecondPullRequestOnTheTrippedHead(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	head := tr.trip(7, "agent/fix-login", func(i int) { tr.commit(fmt.Sprintf("Fix the login, take %d", i)) })
	tr.h.repo.Git("checkout", "-q", "-b", "agent/fresh-start")
	p := tr.openPR(9, "agent/fresh-start", head, "agent-bot")
	tr.h.run("pull_request", pullRequestEvent(t, "opened", p))
	runs := tr.h.srv.CheckRuns()
	last := runs[len(runs)-1]
	if last.HeadSHA != head || last.Conclusion != "failure" {
		t.Errorf("the newest check run on the tripped head concluded %q, want failure", last.Conclusion)
	}
	if !strings.HasPrefix(last.Title, "OPEN") || !strings.Contains(last.Title, "agent-fix-login") {
		t.Errorf("the title does not say the line of work's slice is OPEN: %q", last.Title)
	}
}

// The token in a test name and in build output reaches no request the
// Action sends: not raw, not JSON-escaped, not base64, not URL-encoded.
func TestTrust_NoSecretInAnyRequest(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "agent/fix-login")
	tr.commit("Fix the login")
	head := tr.h.repo.Git("rev-parse", "HEAD")
	junit := `<?xml version="1.0"?><testsuite name="users"><testcase classname="users" name="TestLogin_` + actionToken + `" file="internal/auth/login_test.go" line="12">` +
		`<failure message="login with ` + actionToken + ` failed">dial tcp: token=` + actionToken + ` refused</failure></testcase></testsuite>`
	writeFile(t, tr.h.repo.Dir+"/junit.xml", junit)
	tr.openPR(7, "agent/fix-login", head, "agent-bot")
	tr.h.run("push", pushEvent(t, "agent/fix-login", head))
	if len(tr.h.srv.CheckRuns()) == 0 {
		t.Fatal("no check run written: the test proves nothing")
	}
	forms := []string{actionToken, base64.StdEncoding.EncodeToString([]byte(actionToken)), url.QueryEscape(actionToken),
		base64.StdEncoding.EncodeToString([]byte("x-access-token:" + actionToken))}
	for _, c := range tr.h.srv.Calls() {
		for _, f := range forms {
			if strings.Contains(c.Body, f) || strings.Contains(c.Query, f) {
				t.Errorf("%s carries the token (as %q)", c, f)
			}
		}
	}
}

func removeAll(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// Under policy liza the agent logs anomalies on its blackboard and trips;
// then it empties .liza/state.yaml, a file it writes: the slice stays OPEN
// until a verified reset, as under every policy.
func TestTrust_LizaStaysOpenWhenTheBlackboardIsEmptied(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.inputs["policy"] = "liza"
	tr.h.repo.Git("checkout", "-q", "-b", "agent/fix")
	tr.h.repo.CommitFiles("Log the blockers", map[string]string{".liza/state.yaml": "anomalies:\n" +
		"  - {task: task-1, type: external_blocker, details: {blocker_service: payments-sandbox}}\n" +
		"  - {task: task-2, type: external_blocker, details: {blocker_service: payments-sandbox}}\n"})
	res, _ := tr.push(7, "agent/fix", map[string]string{"TestLogin": "pass"})
	tr.want("the blackboard with two outages", res, cli.ExitTripped)
	tr.h.repo.CommitFiles("Clear the blackboard", map[string]string{".liza/state.yaml": "anomalies: []\n"})
	res, _ = tr.push(7, "agent/fix", map[string]string{"TestLogin": "pass"})
	tr.want("the blackboard emptied", res, cli.ExitTripped)
	if res.outputs["trip-reason"] != "anomaly_pattern" {
		t.Errorf("trip reason %q, want the recorded anomaly_pattern", res.outputs["trip-reason"])
	}
	if res := tr.reset(7, "/breaker reset"); res.code != cli.ExitClosed {
		t.Fatalf("a verified reset: exit %d\n%s", res.code, res.stdout)
	}
	tr.commit("Carry on")
	res, _ = tr.push(7, "agent/fix", map[string]string{"TestLogin": "pass"})
	tr.want("after the reset", res, cli.ExitClosed)
}
