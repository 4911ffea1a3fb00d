package cli

import (
	"strings"
	"testing"
)

// A closed (or merged) pull request takes its slice's checkpoint and reset
// tags with it; a tag already gone is success. Other slices' tags stay.
func TestAction_ClosedPullRequestDeletesTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		present []string // tags of S-3 present before
	}{
		{"both tags", []string{"checkpoint", "reset"}},
		{"reset tag missing", []string{"checkpoint"}},
		{"no tags at all", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			base, head := h.spiral(2)
			pr := h.openPR(head)
			for _, kind := range tt.present {
				h.srv.SetRef("tags/greenlight/"+kind+"/S-3", base)
			}
			h.srv.SetRef("tags/greenlight/checkpoint/S-9", base)

			res := h.run("pull_request", pullRequestEvent(t, "closed", pr))
			if res.code != ExitClosed {
				t.Fatalf("exit = %d, want %d\n%s%s", res.code, ExitClosed, res.stdout, res.summary)
			}
			refs := h.srv.Tags()
			if _, ok := refs["tags/greenlight/checkpoint/S-9"]; !ok || len(refs) != 1 {
				t.Errorf("refs = %v, want only the other slice's checkpoint", refs)
			}
			for _, kind := range []string{"checkpoint", "reset"} {
				if got := h.countCalls("DELETE", "/git/refs/tags/greenlight/"+kind+"/S-3"); got != 1 {
					t.Errorf("DELETE of the %s tag sent %d times, want 1", kind, got)
				}
			}
			if !strings.Contains(res.summary, "deleted tags/greenlight/checkpoint/S-3") {
				t.Errorf("step summary does not say what was deleted:\n%s", res.summary)
			}
		})
	}
}

// The slice comes from the commits too: a branch without S-<n> in its name
// still loses its tags once merged.
func TestAction_MergedPullRequestFindsSliceInCommits(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	base := h.repo.git("rev-parse", "HEAD")
	h.repo.git("checkout", "-q", "-b", "agent/users")
	head := h.repo.attempt("S-4", testDup, "first try")
	h.repo.git("checkout", "-q", "main")
	h.repo.git("merge", "-q", "--no-ff", "-m", "Merge agent/users", "agent/users")
	pr := h.openPR(head)
	pr.HeadRef, pr.BaseSHA = "agent/users", base
	h.srv.SetRef("tags/greenlight/checkpoint/S-4", base)
	payload := pullRequestEvent(t, "closed", pr)
	setPath(payload, "pull_request.merged", true)

	if res := h.run("pull_request", payload); res.code != ExitClosed {
		t.Fatalf("exit = %d, want %d\n%s", res.code, ExitClosed, res.stdout)
	}
	if refs := h.srv.Tags(); len(refs) != 0 {
		t.Errorf("refs = %v, want the S-4 checkpoint deleted", refs)
	}
}
