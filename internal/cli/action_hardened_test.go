package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/action"
)

// The agent's test code moves the workspace's refs to the head, as one
// line in a test would (git update-ref refs/remotes/origin/main HEAD). The
// base comes from the event (pull_request) or the API (push), so the
// verdict does not change, and the report says which base it used.
func TestAction_MovedWorkspaceRefsDoNotChangeTheVerdict(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"push", "pull_request", "push without a pull request"} {
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			base, head := h.spiral(3)
			pr := h.openPR(head)
			if event == "push without a pull request" {
				pr.State = "closed"
				h.srv.AddPullRequest(pr)
			}
			for _, ref := range []string{"refs/remotes/origin/main", "refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master"} {
				h.repo.git("update-ref", ref, head)
			}
			var res actionResult
			switch event {
			case "push":
				res = h.run("push", pushEvent(t, "agent/S-3", head))
			case "pull_request":
				res = h.run("pull_request", pullRequestEvent(t, "synchronize", pr))
			default:
				res = h.run("push", pushEvent(t, "agent/S-3", head))
			}
			if res.code != ExitTripped {
				t.Fatalf("exit %d, want 42: the moved refs changed the verdict\n%s", res.code, res.stdout)
			}
			var rep struct {
				Base struct{ Ref, SHA, Source string } `json:"base"`
			}
			data, err := os.ReadFile(filepath.Join(h.repo.dir, action.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			wantSource := map[string]string{"push": "api", "pull_request": "event", "push without a pull request": "api"}[event]
			if rep.Base.SHA != base || rep.Base.Source != wantSource {
				t.Errorf("base = %+v, want %s from %s", rep.Base, base, wantSource)
			}
		})
	}
}

// A base input that is a ref name would be resolved in the workspace: it
// is refused, naming the fix.
func TestAction_BaseInputMustBeASHA(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(1)
	h.openPR(head)
	h.inputs["base"] = "origin/main"
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != ExitError || !strings.Contains(res.stdout, "input base") {
		t.Errorf("exit %d; want 1 naming the input base\n%s", res.code, res.stdout)
	}
}

// The pull request's author is treated as the agent: its /breaker reset is
// refused with a reply even with agent-actors empty; allow-pr-author lets a
// person who opens the agent's pull requests reset. Whoever pushed its
// commits is refused either way.
func TestAction_ResetByThePullRequestsAuthorOrPushers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, login string
		allow       bool
		wantReset   bool
		reason      string
	}{
		{"author, default", "agent-bot", false, false, "opened the pull request"},
		{"author, allow-pr-author", "agent-bot", true, true, ""},
		{"pusher", "pusher-bob", true, false, "wrote or pushed commits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			_, head := h.spiral(3)
			pr := h.openPR(head) // opened by agent-bot
			h.srv.SetPullRequestCommits(pr.Number, []string{head})
			h.srv.SetCommitLogin(head, "pusher-bob")
			h.srv.SetPermission("agent-bot", "write")
			h.srv.SetPermission("pusher-bob", "admin")
			if tt.allow {
				h.inputs["allow-pr-author"] = "true"
			}
			res := h.run("issue_comment", commentEvent(t, 7, tt.login, "User", "/breaker reset"))
			if res.code != ExitClosed {
				t.Fatalf("exit %d, want 0\n%s", res.code, res.stdout)
			}
			_, reset := h.srv.Ref("tags/greenlight/reset/S-3")
			if reset != tt.wantReset {
				t.Errorf("reset tag exists = %v, want %v", reset, tt.wantReset)
			}
			if tt.reason == "" {
				return
			}
			var reply string
			for _, c := range h.srv.Comments(7) {
				if strings.Contains(c.Body, "Refused") {
					reply = c.Body
				}
			}
			if !strings.Contains(reply, tt.reason) {
				t.Errorf("no reply saying %q; comments: %+v", tt.reason, h.srv.Comments(7))
			}
		})
	}
}
