package action_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/report"
)

// workflow_dispatch is the /gl-debug pull cord: the diagnostic now,
// whatever the counts, read only, exit 0 even when OPEN.
func TestAction_DispatchPublishesDiagnosticReadOnly(t *testing.T) {
	t.Parallel()
	for _, attempts := range []int{1, 3} {
		t.Run(strconv.Itoa(attempts)+" attempts", func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			_, head := h.spiral(attempts) // the workspace is checked out at head
			h.openPR(head)

			res := h.run("workflow_dispatch", dispatchEvent(t, "agent/S-3"))
			if res.code != cli.ExitClosed {
				t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitClosed, res.stdout)
			}
			comments := h.comments(7)
			if len(comments) != 1 || !report.HasMarker(comments[0].Body, "S-3") {
				t.Fatalf("comments = %+v, want the sticky diagnostic", comments)
			}
			for name, md := range map[string]string{"comment": comments[0].Body, "summary": res.summary} {
				for _, want := range []string{"**What actually happens**", "expected 409, got 500", "#### Recovery options"} {
					if !strings.Contains(md, want) {
						t.Errorf("%s lacks %q: the diagnostic was not published\n%s", name, want, md)
					}
				}
			}
			for _, c := range h.writes() {
				if strings.Contains(c.Path, "/git/") {
					t.Errorf("%s: workflow_dispatch is read only", c)
				}
			}
			if refs := h.srv.Tags(); len(refs) != 0 {
				t.Errorf("refs = %v, want none", refs)
			}
			if got := res.outputs["failed-attempts"]; got != strconv.Itoa(attempts) {
				t.Errorf("output failed-attempts = %q, want %d", got, attempts)
			}
		})
	}
}

// onlyCheckRuns fails unless every write that reached GitHub is a check run
// (the ledger), and there is at least one.
func onlyCheckRuns(t *testing.T, h *actionHarness) {
	t.Helper()
	w := h.writes()
	for _, c := range w {
		if c.Method != "POST" || !strings.HasSuffix(c.Path, "/check-runs") {
			t.Errorf("a write other than the ledger reached GitHub in a dry run: %v", c)
		}
	}
	if len(w) == 0 {
		t.Errorf("a dry run wrote no ledger entry: it would forget this push")
	}
}

// dry-run reads from GitHub and writes only the ledger (a neutral check
// run saying what it would be), says what else it would have done, and
// passes: how a careful team starts, without losing the counts.
func TestAction_DryRunWritesOnlyTheLedger(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	h.inputs["dry-run"] = "true"

	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitClosed || res.outputs["state"] != "OPEN" {
		t.Fatalf("exit = %d, state %q; want 0 and OPEN\n%s", res.code, res.outputs["state"], res.stdout)
	}
	onlyCheckRuns(t, h)
	if runs := h.srv.CheckRuns(); len(runs) != 1 || runs[0].Conclusion != "neutral" || !strings.HasPrefix(runs[0].Title, "dry run: would be OPEN") {
		t.Errorf("check runs %+v; want one, neutral, titled dry run: would be OPEN", runs)
	}
	if h.srv.CallCount() == 0 {
		t.Errorf("no request reached GitHub: a dry run still reads")
	}
	for _, want := range []string{"dry run: would create tags/greenlight/checkpoint/S-3", "dry run: would create a comment on #\u200d7"} {
		if !strings.Contains(res.summary, want) {
			t.Errorf("step summary lacks %q:\n%s", want, res.summary)
		}
	}
	for _, claim := range []string{"created the checkpoint tag", ": done"} {
		if strings.Contains(res.summary, claim) {
			t.Errorf("step summary claims a write (%q) in a dry run:\n%s", claim, res.summary)
		}
	}
}

// dry-run covers the comment commands too: a writer's reset with rollback
// touches neither refs nor comments; the reset record, a ledger entry, is
// written.
func TestAction_DryRunResetWritesOnlyTheLedger(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	base, head := h.spiral(3)
	h.openPR(head)
	h.srv.SetRef("tags/greenlight/checkpoint/S-3", base)
	h.srv.AddCommit(base, h.repo.Git("rev-parse", base+"^{tree}"), "Initial commit")
	h.srv.SetPermission("alice", "write")
	h.inputs["dry-run"] = "true"

	res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset S-3 --rollback try again"))
	if res.code != cli.ExitClosed {
		t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitClosed, res.stdout)
	}
	onlyCheckRuns(t, h)
	if refs := h.srv.Tags(); len(refs) != 1 {
		t.Errorf("refs = %v, want only the checkpoint", refs)
	}
	for _, claim := range []string{"rolled agent/S-3 back", "reset slice S-3 at", ": done"} {
		if strings.Contains(res.summary, claim) {
			t.Errorf("step summary claims a write (%q) in a dry run:\n%s", claim, res.summary)
		}
	}
	if !strings.Contains(res.summary, "dry run: would move heads/agent/S-3") &&
		!strings.Contains(res.summary, "dry run: would create a commit") {
		t.Errorf("step summary does not say what the rollback would have done:\n%s", res.summary)
	}
}

// "/breaker debug" from a writer is the pull cord on the pull request:
// the diagnostic with the acknowledgement, read only, exit 0.
func TestAction_DebugCommandPublishesDiagnostic(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(1)
	h.openPR(head)
	h.srv.SetPermission("alice", "admin")

	res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", "/breaker debug"))
	if res.code != cli.ExitClosed {
		t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitClosed, res.stdout)
	}
	comments := h.comments(7)
	if len(comments) != 1 {
		t.Fatalf("comments = %+v, want the sticky diagnostic", comments)
	}
	for _, want := range []string{"alice asked for the diagnostic (/breaker debug) at 2026-02-18 10:30 UTC", "**What actually happens**"} {
		if !strings.Contains(comments[0].Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, comments[0].Body)
		}
	}
	if refs := h.srv.Tags(); len(refs) != 0 {
		t.Errorf("refs = %v, want none: debug is read only", refs)
	}
}
