package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// One run reads git and the results once: a push (which also reads the
// remote tags and creates the checkpoint), a reset (which decides before
// and after moving the reset tag), a rollback reset and the pull cord.
func TestAction_EachRunLoadsGitAndResultsOnce(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	base, head := h.spiral(3)
	h.openPR(head)
	h.srv.SetPermission("alice", "write")
	h.srv.AddCommit(base, h.repo.Git("rev-parse", base+"^{tree}"), "Initial commit")
	h.srv.SetRef("heads/agent/S-3", head)
	runs := []struct {
		name    string
		event   string
		payload map[string]any
	}{
		{"first push", "push", pushEvent(t, "agent/S-3", head)},
		{"push with the checkpoint tag in place", "push", pushEvent(t, "agent/S-3", head)},
		{"/breaker reset", "issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset")},
		{"/breaker reset --rollback", "issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset S-3 --rollback")},
		{"/breaker debug", "issue_comment", commentEvent(t, 7, "alice", "User", "/breaker debug")},
		{"workflow_dispatch", "workflow_dispatch", dispatchEvent(t, "agent/S-3")},
	}
	for _, r := range runs {
		before := h.loadCount()
		res := h.run(r.event, r.payload)
		if res.code == cli.ExitError {
			t.Fatalf("%s: exit 1\n%s", r.name, res.stdout)
		}
		if got := h.loadCount() - before; got != 1 {
			t.Errorf("%s: loaded git and results %d times, want 1", r.name, got)
		}
	}
}

// An agent commits breaker-report.json as a symlink to a file outside the
// workspace. The Action runs as root in its container: it must not write
// through it. The verdict still lands, and the summary says why the report
// is missing.
func TestAction_ReportSymlinkIsNeverWrittenThrough(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	victim := filepath.Join(t.TempDir(), "victim")
	writeFile(t, victim, "original\n")
	_, head := h.spiral(3)
	if err := os.Symlink(victim, filepath.Join(h.repo.Dir, action.ReportFile)); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	h.openPR(head)
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit = %d, want %d: the verdict must not depend on the report file\n%s", res.code, cli.ExitTripped, res.stdout)
	}
	if got, _ := os.ReadFile(victim); string(got) != "original\n" {
		t.Errorf("the file behind the symlink was written: %q", got)
	}
	if res.outputs["report-json"] != "" {
		t.Errorf("output report-json = %q, want empty: no report was written", res.outputs["report-json"])
	}
	if want := "JSON report not written: breaker-report.json: refused: it is a symlink"; !strings.Contains(res.summary, want) {
		t.Errorf("summary does not say %q:\n%s", want, res.summary)
	}
}

// A slice id with '/' is refused by the CLI and the Action with the same
// message, from breaker.CheckSlice; a trailer that names one gets the same
// note from both, and neither creates a tag for it.
func TestSliceWithSlash_RefusedIdenticallyByCLIAndAction(t *testing.T) {
	t.Parallel()
	want := breaker.CheckSlice("team/S-3").Error()

	r := gitrepo.Shop(t)
	r.Git("checkout", "-q", "-b", "agent/work")
	r.Attempt("S-3", testDup, "one try")
	r.JUnit("junit.xml", map[string]string{testDup: "fail"})
	_, stderr, code := runCLI(t, "", "evaluate", "--repo", r.Dir, "--slice", "team/S-3", "--results", "junit.xml")
	if code != cli.ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("CLI --slice team/S-3: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}

	h := newActionHarness(t)
	_, head := h.spiral(1)
	h.openPR(head)
	h.inputs["slice"] = "team/S-3"
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitError || !strings.Contains(res.stdout, want) {
		t.Errorf("Action slice input team/S-3: exit %d; want 1 and %q in the log:\n%s", res.code, want, res.stdout)
	}

	// Named by the agent's trailer: the same note in both, no tag.
	h = newActionHarness(t)
	h.repo.Git("checkout", "-q", "-b", "agent/work")
	head = h.repo.Attempt("team/S-3", testDup, "one try")
	h.failing(testDup)
	h.openPR(head)
	res = h.run("push", pushEvent(t, "agent/work", head))
	note := want + "; it cannot name a git tag"
	if !strings.Contains(res.stdout, note) {
		t.Errorf("Action: the log lacks the note %q:\n%s", note, res.stdout)
	}
	if refs := h.srv.Tags(); len(refs) != 0 {
		t.Errorf("Action created refs %v for an invalid slice", refs)
	}
	out, _, _ := runCLI(t, "", "evaluate", "--repo", h.repo.Dir, "--head", head, "--base", "main", "--results", "junit.xml")
	if !strings.Contains(out, note) {
		t.Errorf("CLI: the verdict lacks the note %q:\n%s", note, out)
	}
}
