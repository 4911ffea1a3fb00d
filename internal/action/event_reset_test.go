package action_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
)

// main: I ── agent/S-3: A A A (OPEN); alice (write) comments /breaker
// reset; the reset tag lands on the head and the next push counts 0.
func TestAction_ResetByWriterRestartsCounts(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	head := h.tripped()
	h.srv.SetPermission("alice", "write")

	res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset use the unique index"))
	if res.code != cli.ExitClosed {
		t.Fatalf("reset: exit = %d, want %d\n%s", res.code, cli.ExitClosed, res.stdout)
	}
	if got, ok := h.srv.Ref("tags/greenlight/reset/S-3"); !ok || got != head {
		t.Errorf("reset ref = %q (exists %v), want the pull request head %s", got, ok, head)
	}
	body := h.comments(7)[0].Body
	for _, want := range []string{"alice reset S-3 at 2026-02-18 10:30 UTC", "use the unique index"} {
		if !strings.Contains(body, want) {
			t.Errorf("sticky comment lacks the acknowledgement %q:\n%s", want, body)
		}
	}
	if res.outputs["failed-attempts"] != "0" || res.outputs["tripped"] != "false" {
		t.Errorf("after the reset: outputs %v, want 0 failed attempts, not tripped", res.outputs)
	}

	res = h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitClosed || res.outputs["failed-attempts"] != "0" || res.outputs["state"] != "CLOSED" {
		t.Errorf("next push: exit %d, outputs %v; want 0, CLOSED, 0 failed attempts", res.code, res.outputs)
	}
	head = h.repo.Attempt("S-3", testDup, "the guided try")
	h.openPR(head)
	res = h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitClosed || res.outputs["failed-attempts"] != "1" {
		t.Errorf("first attempt after the reset: exit %d, outputs %v; want 0 and 1 failed attempt", res.code, res.outputs)
	}
}

// Commands from the agent, from bots, and from people who cannot write are
// refused with the reason, as a reply; the check stays green; no reset.
func TestAction_ResetRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, login, userType, perm, reason string
	}{
		{"agent actor with write", "robo-coder", "User", "admin", "listed in agent-actors"},
		{"bot by type", "helper", "Bot", "write", "is a bot"},
		{"bot by login", "renovate[bot]", "User", "write", "is a bot"},
		{"read-only person", "bob", "User", "read", "bob has read permission"},
		{"triage person", "carol", "User", "triage", "carol has triage permission"},
		{"outsider", "mallory", "User", "", "mallory has none permission"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			h.inputs["agent-actors"] = "someone-else\nRobo-Coder"
			_, head := h.spiral(3)
			h.openPR(head)
			if tt.perm != "" {
				h.srv.SetPermission(tt.login, tt.perm)
			}
			res := h.run("issue_comment", commentEvent(t, 7, tt.login, tt.userType, "/breaker reset S-3 --rollback go on"))
			if res.code != cli.ExitClosed {
				t.Errorf("exit = %d, want %d: a refusal is an answer, not a failure", res.code, cli.ExitClosed)
			}
			comments := h.comments(7)
			if len(comments) != 1 || !strings.Contains(comments[0].Body, "Refused /breaker reset from") ||
				!strings.Contains(comments[0].Body, tt.reason) {
				t.Fatalf("replies = %+v, want one refusal saying %q", comments, tt.reason)
			}
			if !strings.Contains(res.summary, tt.reason) {
				t.Errorf("step summary lacks the reason %q:\n%s", tt.reason, res.summary)
			}
			if refs := h.srv.Tags(); len(refs) != 0 {
				t.Errorf("refs = %v, want none: nothing was reset or rolled back", refs)
			}
			for _, c := range h.writes() {
				if !strings.HasSuffix(c.Path, "/issues/7/comments") {
					t.Errorf("unexpected write %s", c)
				}
			}
		})
	}
}

// main: I(checkpoint) ── agent/S-3: A A A; /breaker reset S-3 --rollback
// adds R on top of the head with the checkpoint's tree and fast-forwards
// the branch to it:  I ── A A A ── R(tree of I).
func TestAction_ResetRollbackFastForwardsToCheckpointTree(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	base, head := h.spiral(3)
	h.openPR(head)
	h.srv.SetRef("tags/greenlight/checkpoint/S-3", base)
	h.srv.SetRef("heads/agent/S-3", head)
	baseTree := h.repo.Git("rev-parse", base+"^{tree}")
	h.srv.AddCommit(base, baseTree, "Initial commit")
	parent := base
	for _, sha := range strings.Fields(h.repo.Git("rev-list", "--reverse", base+".."+head)) {
		h.srv.AddCommit(sha, h.repo.Git("rev-parse", sha+"^{tree}"), "attempt", parent)
		parent = sha
	}
	h.srv.SetPermission("alice", "maintain")

	res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset S-3 --rollback start from the contract"))
	if res.code != cli.ExitClosed {
		t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitClosed, res.stdout)
	}
	newHead, ok := h.srv.Ref("heads/agent/S-3")
	if !ok || newHead == head {
		t.Fatalf("branch ref = %q, want it moved past %s", newHead, head)
	}
	tree, msg, parents, known := h.srv.Commit(newHead)
	if !known || tree != baseTree || len(parents) != 1 || parents[0] != head {
		t.Errorf("rollback commit: tree %s parents %v (known %v); want tree %s of the checkpoint, parent %s",
			tree, parents, known, baseTree, head)
	}
	if !strings.Contains(msg, "Greenlight-Slice: S-3") {
		t.Errorf("rollback commit message lacks its slice trailer:\n%s", msg)
	}
	for _, c := range h.srv.Calls() {
		if c.Method == "PATCH" && strings.HasSuffix(c.Path, "/git/refs/heads/agent/S-3") {
			var in struct{ Force bool }
			if err := json.Unmarshal([]byte(c.Body), &in); err != nil || in.Force {
				t.Errorf("%s with body %s: want a fast-forward, force false", c, c.Body)
			}
		}
	}
	if got := h.countCalls("PATCH", "/git/refs/heads/agent/S-3"); got != 1 {
		t.Errorf("branch updates = %d, want 1", got)
	}
	if got, _ := h.srv.Ref("tags/greenlight/reset/S-3"); got != newHead {
		t.Errorf("reset ref = %q, want the rollback commit %s", got, newHead)
	}
	if cp, _ := h.srv.Ref("tags/greenlight/checkpoint/S-3"); cp != base {
		t.Errorf("checkpoint moved to %s, want it left at %s", cp, base)
	}
	if body := h.comments(7)[0].Body; !strings.Contains(body, "alice reset and rolled back S-3") {
		t.Errorf("sticky comment lacks the rollback acknowledgement:\n%s", body)
	}
}

// A reset naming a slice the pull request never had is refused with the
// slices it has: nothing is reset, no tag is made, and the breaker stays
// OPEN (it was "accepted", reported CLOSED, while the slice stayed OPEN).
func TestAction_ResetOfAnUnknownSliceIsRefused(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.tripped()
	h.srv.SetPermission("alice", "write")
	runs := len(h.srv.CheckRuns())
	res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset S-1"))
	if res.code != cli.ExitClosed {
		t.Fatalf("exit %d; a refusal is an answer, not a failed check\n%s", res.code, res.stdout)
	}
	if !strings.Contains(res.summary+res.stdout, "has no slice S-1") || !strings.Contains(res.summary+res.stdout, "S-3") {
		t.Errorf("the refusal does not name the slices the pull request has:\n%s", res.summary)
	}
	if len(h.srv.CheckRuns()) != runs {
		t.Errorf("a refused reset wrote a ledger record")
	}
	if _, ok := h.srv.Ref("tags/greenlight/reset/S-1"); ok {
		t.Errorf("a refused reset made a tag")
	}
}

// A run a comment started ran no tests: it reports the head as the ledger
// saw it, never "the tests did not run", and an accepted reset's
// acknowledgement states the head's last observation.
func TestAction_CommandRunsReportTheHeadsObservation(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.tripped()
	removeAll(t, h.repo.Dir+"/junit.xml") // the comment's workflow ran no tests
	h.srv.SetPermission("alice", "write")
	for _, cmd := range []string{"/breaker debug", "/breaker reset S-3 try the index"} {
		res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", cmd))
		if res.code != cli.ExitClosed {
			t.Fatalf("%s: exit %d\n%s", cmd, res.code, res.stdout)
		}
		body := h.comments(7)[0].Body
		if strings.Contains(body, "did not run") || strings.Contains(res.summary, "did not run") {
			t.Errorf("%s: the report says the tests did not run on a head CI saw failing:\n%s", cmd, body)
		}
		if strings.HasPrefix(cmd, "/breaker reset") && !strings.Contains(body, "last observation of the head") {
			t.Errorf("the reset's acknowledgement does not state the head's last observation:\n%s", body)
		}
	}
}
