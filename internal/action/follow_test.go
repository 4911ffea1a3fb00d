package action_test

import (
	"strings"
	"testing"
)

// copyTripped puts the tripped branch's code on a new branch from main as
// new commits: one squash, or every commit cherry-picked.
func (r *rig) copyTripped(from, to, how string) string {
	r.t.Helper()
	r.git("checkout", "-q", "-b", to, "main")
	switch how {
	case "squash":
		r.git("checkout", from, "--", ".")
		r.repo.Tick++
		r.git("commit", "-q", "-m", "Rework the login handler")
	case "cherry-pick":
		for _, c := range strings.Fields(r.git("rev-list", "--reverse", "main.."+from)) {
			r.repo.Tick++
			r.git("cherry-pick", "--allow-empty", c)
		}
	}
	return r.git("rev-parse", to)
}

// An OPEN circuit follows the agent, not its commit ids (issue 46): after
// a trip on #7 the agent puts the tripped code on a fresh branch as new
// commits and opens #8. The gate refuses #8 before the agent runs on it,
// and every failing push of #8 is OPEN; the same copy opened by a person
// is judged on its own. The agent works under an account agent-actors
// lists.
func TestFollow_ACopyOfTheTrippedCodeStartsOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, how, author, tripped string
		open                       bool
	}{
		{"squashed by the agent", "squash", "agent-bot", "agent-bot", true},
		{"cherry-picked by the agent", "cherry-pick", "agent-bot", "agent-bot", true},
		{"squashed by a person", "squash", "alice", "agent-bot", false},
		{"a person's own second pull request", "squash", "bob", "bob", false},
		{"squashed by another agent", "squash", "claude[bot]", "Copilot[bot]", false},
		{"squashed by the same bot", "squash", "Copilot[bot]", "Copilot[bot]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.inputs["agent-actors"] = "agent-bot" // the agent works under this account
			r.authors = map[int]string{7: tc.tripped, 8: tc.author}
			r.git("checkout", "-q", "-b", "agent/fix-login")
			tripped := r.tripOn(7, "agent/fix-login")
			head := r.copyTripped("agent/fix-login", "agent/login-again", tc.how)
			if r.git("rev-parse", head+"^{tree}") != r.git("rev-parse", tripped+"^{tree}") || head == tripped {
				t.Fatalf("the copy is not the tripped tree in new commits")
			}
			r.open(8, "agent/login-again")
			r.giveCommits(head)
			dispatch := r.payload("workflow_dispatch.json")
			dispatch["ref"], dispatch["inputs"] = "refs/heads/main", map[string]any{}
			g := r.gate("workflow_dispatch", dispatch, map[string]string{"pull-request": "8"})
			want := map[bool]string{true: "OPEN", false: "CLOSED"}[tc.open]
			if g.Err != nil || g.state() != want {
				t.Fatalf("the gate of #8 before the agent runs: err %v, state %q; want %s\n%s", g.Err, g.state(), want, g.stdout)
			}
			if tc.open && !strings.Contains(g.stdout, "#7") {
				t.Errorf("the gate does not name the tripped pull request:\n%s", g.stdout)
			}
			for i := range 2 {
				if i > 0 {
					r.commit("Fix the login on the new pull request")
				}
				r.results(map[string]string{"TestLogin": "fail"})
				r.open(8, "agent/login-again")
				o := r.push("agent/login-again")
				wantPush := map[bool]string{true: "OPEN", false: "CLOSED"}[tc.open]
				if o.state() != wantPush {
					t.Fatalf("#8's failing push %d: %q; want %s\n%s", i+1, o.state(), wantPush, o.stdout)
				}
				if tc.open && (o.Decision.TripReason != "agent_open" || r.checkRun(r.git("rev-parse", "HEAD")).Conclusion != "failure") {
					t.Errorf("#8's push %d: reason %q; want agent_open and a failed check", i+1, o.Decision.TripReason)
				}
			}
		})
	}
}

// The inherited OPEN lasts while the tripped line is OPEN: a maintainer
// closing #7 ends it (the agent closing its own does not), and so does a
// maintainer's verified reset of #8.
func TestFollow_EndsWithTheTrippedLine(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"the agent closes #7", "a maintainer closes #7", "a maintainer resets #8"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.authors = map[int]string{7: "Copilot[bot]", 8: "Copilot[bot]"} // a bot: an agent by GitHub's word
			r.git("checkout", "-q", "-b", "agent/fix-login")
			r.tripOn(7, "agent/fix-login")
			r.copyTripped("agent/fix-login", "agent/login-again", "squash")
			r.results(map[string]string{"TestLogin": "fail"})
			r.open(8, "agent/login-again")
			if o := r.push("agent/login-again"); o.state() != "OPEN" {
				t.Fatalf("#8's first push: %q; want OPEN\n%s", o.state(), o.stdout)
			}
			want := "CLOSED"
			switch end {
			case "the agent closes #7":
				r.srv.ClosePullRequest(7, "github-actions[bot]")
				want = "OPEN"
			case "a maintainer closes #7":
				r.srv.ClosePullRequest(7, "alice")
			case "a maintainer resets #8":
				if o := r.comment(8, "alice", "/breaker reset agent-login-again"); o.Err != nil || o.state() != "CLOSED" {
					t.Fatalf("the reset of #8: %v, %q\n%s", o.Err, o.state(), o.stdout)
				}
			}
			r.commit("Fix the login once more")
			r.open(8, "agent/login-again")
			if o := r.push("agent/login-again"); o.state() != want {
				t.Fatalf("after %s, #8's next failing push: %q; want %s\n%s", end, o.state(), want, o.stdout)
			}
		})
	}
}
