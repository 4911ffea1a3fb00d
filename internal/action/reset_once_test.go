package action_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/ledger"
)

// One maintainer comment gives exactly one reset (issue 30): the reset
// records its comment; re-running the reset's workflow run (attempt 2,
// the same payload) or redelivering the event after a new trip is
// refused, and the circuit stays OPEN; a comment edited or deleted before
// its run resets nothing.
func TestReset_OneCommentOneReset(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"re-run of the workflow run", "event delivered again", "edited", "deleted"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.git("checkout", "-q", "-b", "copilot/fix-login")
			r.tripOn(7, "copilot/fix-login")
			event := r.commented(7, "alice", "/breaker reset copilot-fix-login")
			id := event["comment"].(map[string]any)["id"].(int64)
			switch how {
			case "edited":
				r.srv.EditCommentAs(id, "/breaker reset copilot-fix-login --rollback")
			case "deleted":
				r.srv.RemoveComment(id)
			}
			first := r.run("issue_comment", event)
			if how == "edited" || how == "deleted" {
				if first.Decision != nil || !strings.Contains(first.stdout, "Refused /breaker reset") {
					t.Fatalf("a comment %s before its run: decision %v; want refused\n%s", how, first.Decision, first.stdout)
				}
				if o := r.failingPush(7, "copilot/fix-login"); o.state() != "OPEN" {
					t.Errorf("the push after the refused reset: %q; want still OPEN\n%s", o.state(), o.stdout)
				}
				return
			}
			if first.state() != "CLOSED" {
				t.Fatalf("the reset: %q\n%s", first.state(), first.stdout)
			}
			r.tripOn(7, "copilot/fix-login") // three more failing pushes: OPEN again
			if how == "re-run of the workflow run" {
				r.env = map[string]string{"GITHUB_RUN_ATTEMPT": "2"}
			}
			again := r.run("issue_comment", event)
			r.env = nil
			if again.Decision != nil || !strings.Contains(again.stdout, "Refused /breaker reset") {
				t.Fatalf("the %s: decision %v; want refused\n%s", how, again.Decision, again.stdout)
			}
			if o := r.failingPush(7, "copilot/fix-login"); o.state() != "OPEN" {
				t.Errorf("the push after the replayed reset: %q; want still OPEN\n%s", o.state(), o.stdout)
			}
		})
	}
}

// A rollback commits on the pull request's branch: refused when another
// open pull request has the same branch as its head, which the commit
// would change too (issue 30); the branch does not move.
func TestReset_RollbackOnlyOnABranchOfItsOwn(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	head := r.tripOn(7, "copilot/fix-login")
	r.srv.SetRef("heads/copilot/fix-login", head)
	r.open(9, "copilot/fix-login")
	o := r.comment(7, "alice", "/breaker reset copilot-fix-login --rollback")
	if o.Decision != nil || !strings.Contains(o.stdout, "which is the head of #9 too") {
		t.Fatalf("a rollback of a branch #9 shares: decision %v; want refused naming #9\n%s", o.Decision, o.stdout)
	}
	if got, _ := r.srv.Ref("heads/copilot/fix-login"); got != head {
		t.Errorf("the branch moved to %s", got)
	}
}

// A comment's run ran no tests: it takes the head's observation from the
// head's entry, which keeps the failing tests and the run's counts. The
// reset's entry carries the whole run's counts, not only the tests the
// entry lists.
func TestReset_TheResetEntryKeepsTheHeadsCounts(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	head := r.commit("Fix the login")
	r.results(map[string]string{"TestLogin": "fail", "TestLogout": "pass", "TestSignup": "pass"})
	r.open(7, "copilot/fix-login")
	r.push("copilot/fix-login")
	if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.state() != "CLOSED" {
		t.Fatalf("the reset: %q\n%s", o.state(), o.stdout)
	}
	e, err := ledger.Decode(r.checkRun(head).Text)
	if err != nil {
		t.Fatal(err)
	}
	if e.Reset == nil || e.Counts.Total != 3 || e.Counts.Passed != 2 || e.Counts.Failed != 1 {
		t.Errorf("the reset's entry: reset %v, counts %+v; want the head's 3 tests, 2 passing, 1 failing", e.Reset, e.Counts)
	}
}
