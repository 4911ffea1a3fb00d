package cli

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
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
	n := len(tr.heads) + tr.h.repo.tick
	return tr.h.repo.commit(msg, map[string]string{fmt.Sprintf("internal/auth/fix%d.go", n): "package auth\n"})
}

// openPR records pull request pr from branch at head as GitHub has it.
func (tr *trust) openPR(pr int, branch, head, author string) breaker.PullRequest {
	tr.t.Helper()
	p := breaker.PullRequest{Number: pr, HeadSHA: head, HeadRef: branch, BaseRef: "main",
		BaseSHA: tr.h.repo.git("rev-parse", "main"), Author: author}
	tr.h.srv.AddPullRequest(p)
	commits := strings.Fields(tr.h.repo.git("rev-list", "--reverse", "main.."+head))
	tr.h.srv.SetPullRequestCommits(pr, commits)
	if prev, ok := tr.heads[pr]; ok && prev != head && !tr.ancestor(prev, head) {
		tr.h.srv.AddForcePush(pr, prev)
	}
	tr.heads[pr] = head
	return p
}

func (tr *trust) ancestor(a, b string) bool {
	cmd := exec.Command("git", "merge-base", "--is-ancestor", a, b)
	cmd.Dir = tr.h.repo.dir
	return cmd.Run() == nil
}

// push writes the results (TestLogin failing), records pull request pr at
// the checked-out head and runs the Action on the push.
func (tr *trust) push(pr int, branch string, statuses map[string]string) (actionResult, string) {
	tr.t.Helper()
	head := tr.h.repo.git("rev-parse", "HEAD")
	if statuses == nil {
		statuses = map[string]string{"TestLogin": "fail"}
	}
	tr.h.repo.results("junit.xml", statuses)
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
	tr.h.repo.git("checkout", "-q", "-b", "agent/S-3")
	for i, want := range []int{ExitClosed, ExitClosed, ExitTripped} {
		tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		res, _ := tr.push(7, "agent/S-3", nil)
		tr.want(fmt.Sprintf("push %d", i+1), res, want)
	}
	resetAt := tr.h.repo.git("rev-parse", "HEAD")
	if res := tr.reset(7, "/breaker reset S-3"); res.code != ExitClosed || res.outputs["state"] != "CLOSED" {
		t.Fatalf("reset: exit %d, state %q\n%s", res.code, res.outputs["state"], res.stdout)
	}
	for i := range 9 {
		if i >= 3 {
			// Back onto the reset commit, plus one new commit: a force push.
			tr.h.repo.git("reset", "-q", "--hard", resetAt)
		}
		tr.commit(fmt.Sprintf("Fix the login after the reset, take %d", i+1))
		res, _ := tr.push(7, "agent/S-3", nil)
		want := ExitClosed
		if i >= 2 {
			want = ExitTripped
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
			tr.h.repo.git("checkout", "-q", "-b", "agent/fix-login")
			for i := range 2 {
				tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
				res, _ := tr.push(7, "agent/fix-login", nil)
				tr.want(fmt.Sprintf("push %d", i+1), res, ExitClosed)
			}
			switch how {
			case "rebase": // main moves on; the agent rebases onto it, as reviewers ask
				tr.h.repo.git("checkout", "-q", "main")
				tr.h.repo.commit("main moves on", map[string]string{"README.md": "shop v2\n"})
				tr.h.repo.git("checkout", "-q", "agent/fix-login")
				tr.h.repo.git("rebase", "-q", "main")
			case "squash":
				tr.h.repo.git("reset", "-q", "--soft", "main")
				tr.h.repo.git("commit", "-q", "-m", "Fix the login")
			}
			res, _ := tr.push(7, "agent/fix-login", nil)
			tr.want("the rewritten push", res, ExitTripped)
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
	tr.h.repo.git("checkout", "-q", "-b", "agent/fix-login")
	var observed []string
	for i := range 2 {
		tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		res, head := tr.push(7, "agent/fix-login", nil)
		tr.want(fmt.Sprintf("push %d", i+1), res, ExitClosed)
		observed = append(observed, head)
	}
	for i := range 101 {
		tr.h.srv.AddForcePush(7, fmt.Sprintf("%040x", 0xdead0000+i))
	}
	// The observed heads were force-pushed away: the pull request no longer
	// lists them; only the force-push events (the oldest first) do.
	tr.h.srv.AddForcePush(7, observed[1])
	tr.h.repo.git("reset", "-q", "--hard", "main")
	tr.commit("Start over")
	tr.heads[7] = tr.h.repo.git("rev-parse", "HEAD") // the force push is recorded above
	res, _ := tr.push(7, "agent/fix-login", nil)
	tr.want("the push after 101 unobserved force pushes", res, ExitTripped)
}

// A push-only branch (no pull request): 100 empty commits do not push the
// observed heads out of the branch's history.
func TestTrust_EmptyCommitsOnAPushOnlyBranch(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.git("checkout", "-q", "-b", "agent/fix-login")
	push := func(step string, want int) {
		t.Helper()
		head := tr.h.repo.git("rev-parse", "HEAD")
		tr.h.repo.results("junit.xml", map[string]string{"TestLogin": "fail"})
		res := tr.h.run("push", pushEvent(t, "agent/fix-login", head))
		tr.want(step, res, want)
	}
	for i := range 2 {
		tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		push(fmt.Sprintf("push %d", i+1), ExitClosed)
	}
	for i := range 100 {
		tr.h.repo.git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("empty %d", i))
	}
	push("the push of 100 empty commits", ExitTripped)
}

// readReport reads the JSON report the last run wrote into the workspace.
func readReport(t *testing.T, h *actionHarness) jsonReport {
	t.Helper()
	l := &ledgerRun{h: h}
	return l.report()
}
