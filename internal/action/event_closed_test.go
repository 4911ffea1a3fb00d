package action_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
)

// A closed (or merged) pull request takes the tags its runs created with
// it — the ones its ledger records, while they point where it put them; a
// tag already gone is success. Other slices' tags, and a tag someone moved
// since, stay.
func TestAction_ClosedPullRequestDeletesTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reset   bool   // a maintainer reset the slice (the reset tag)
		gone    string // a tag deleted by hand before the close
		moved   string // a tag someone moved before the close
		deleted []string
	}{
		{"both tags", true, "", "", []string{"checkpoint", "reset"}},
		{"reset tag missing", true, "reset", "", []string{"checkpoint"}},
		{"checkpoint only", false, "", "", []string{"checkpoint"}},
		{"checkpoint moved by someone", false, "", "checkpoint", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			base, head := h.spiral(2)
			pr := h.openPR(head)
			h.srv.SetRef("tags/greenlight/checkpoint/S-9", base)
			if res := h.run("push", pushEvent(t, "agent/S-3", head)); res.code != cli.ExitClosed {
				t.Fatalf("push: exit %d\n%s", res.code, res.stdout)
			}
			if tt.reset {
				h.srv.SetPermission("alice", "write")
				if res := h.run("issue_comment", commentEvent(t, 7, "alice", "User", "/breaker reset")); res.code != cli.ExitClosed {
					t.Fatalf("reset: exit %d\n%s", res.code, res.stdout)
				}
			}
			if tt.gone != "" {
				h.srv.DeleteRef("tags/greenlight/" + tt.gone + "/S-3")
			}
			if tt.moved != "" {
				h.srv.SetRef("tags/greenlight/"+tt.moved+"/S-3", head)
			}
			res := h.run("pull_request", pullRequestEvent(t, "closed", pr))
			if res.code != cli.ExitClosed {
				t.Fatalf("exit = %d, want %d\n%s%s", res.code, cli.ExitClosed, res.stdout, res.summary)
			}
			refs := h.srv.Tags()
			if _, ok := refs["tags/greenlight/checkpoint/S-9"]; !ok {
				t.Errorf("refs = %v: the other slice's checkpoint was deleted", refs)
			}
			for _, kind := range []string{"checkpoint", "reset"} {
				want := 0
				for _, d := range tt.deleted {
					if d == kind {
						want = 1
					}
				}
				if got := h.countCalls("DELETE", "/git/refs/tags/greenlight/"+kind+"/S-3"); got != want {
					t.Errorf("DELETE of the %s tag sent %d times, want %d", kind, got, want)
				}
			}
			if len(tt.deleted) > 0 && !strings.Contains(res.summary, "deleted greenlight/checkpoint/S-3") {
				t.Errorf("step summary does not say what was deleted:\n%s", res.summary)
			}
			if tt.moved != "" && !strings.Contains(res.summary, "left alone") {
				t.Errorf("step summary does not say the moved tag was left alone:\n%s", res.summary)
			}
		})
	}
}

// A merged pull request (base..head is empty then) still takes the tags
// its runs created: they come from its ledger, not from its commits.
func TestAction_MergedPullRequestDeletesItsOwnTags(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	base := h.repo.Git("rev-parse", "HEAD")
	h.repo.Git("checkout", "-q", "-b", "agent/users")
	head := h.repo.Attempt("S-4", testDup, "first try")
	h.failing(testDup)
	pr := h.openPR(head)
	pr.HeadRef, pr.BaseSHA = "agent/users", base
	h.srv.AddPullRequest(pr)
	if res := h.run("push", pushEvent(t, "agent/users", head)); res.code != cli.ExitClosed {
		t.Fatalf("push: exit %d\n%s", res.code, res.stdout)
	}
	if _, ok := h.srv.Ref("tags/greenlight/checkpoint/S-4"); !ok {
		t.Fatalf("the push created no checkpoint tag: %v", h.srv.Tags())
	}
	h.repo.Git("checkout", "-q", "main")
	h.repo.Git("merge", "-q", "--no-ff", "-m", "Merge agent/users", "agent/users")
	payload := pullRequestEvent(t, "closed", pr)
	setPath(payload, "pull_request.merged", true)

	if res := h.run("pull_request", payload); res.code != cli.ExitClosed {
		t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitClosed, res.stdout)
	}
	if refs := h.srv.Tags(); len(refs) != 0 {
		t.Errorf("refs = %v, want the S-4 checkpoint deleted", refs)
	}
}
