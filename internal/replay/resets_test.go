package replay_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/replay"
)

func states(pr replay.PullRequest) string {
	var out []string
	for _, p := range pr.Pushes {
		out = append(out, p.State)
	}
	return strings.Join(out, " ")
}

// A maintainer's /breaker reset restarts the counts where the Action's
// reset would have: three failing pushes trip, the reset, and three more
// trip again at the third. A reset the Action would not honour changes
// nothing: one by the agent, one edited after it was posted.
func TestRun_AMaintainersResetRestartsTheCounts(t *testing.T) {
	t.Parallel()
	w := newWindow(t)
	fail := pushOf{stuck, byArtifact, false}
	w.pullRequest(201, "Fix session expiry", fail, fail, fail, fail, fail, fail)
	// The comments, between the third and the fourth push (each push ten
	// minutes after the one before, from the window's start).
	third := epoch.Add(35 * time.Minute)
	w.srv.SetPermission("alice", "write")
	w.srv.SetCommentTime(w.srv.AddComment(201, "agent-bot", "/breaker reset S-9 trust me"), third)
	edited := w.srv.AddComment(201, "alice", "/breaker reset")
	w.srv.SetCommentTime(edited, third)
	w.srv.EditCommentAs(edited, "/breaker reset (edited)")
	w.srv.SetCommentTime(w.srv.AddComment(201, "alice", "/breaker reset mock the session store"), third.Add(time.Minute))
	rep := w.replay(replay.Options{})
	pr := rep.PullRequests[0]
	if got := states(pr); got != "CLOSED CLOSED OPEN CLOSED CLOSED OPEN" {
		t.Errorf("states %q; want the counts to restart after alice's reset", got)
	}
	if len(pr.Resets) != 1 || pr.Resets[0].Author != "alice" || pr.Resets[0].Note != "" || pr.Resets[0].Head == "" {
		t.Errorf("resets %+v; want alice's, honoured at the third push's head", pr.Resets)
	}
}

// A head force-pushed away, which the clone lacks, is fetched from origin
// by its id and judged; when origin does not serve it, its run's failures
// still count for the pushes after it, and the push says why it has no
// verdict.
func TestRun_AHeadForcePushedAway(t *testing.T) {
	t.Parallel()
	w := newWindow(t)
	fail := pushOf{stuck, byArtifact, false}
	w.pullRequest(301, "Fix session expiry", fail, pushOf{stuck, byArtifact, true}, fail)
	clone := func(serve bool) string {
		w.repo.Git("config", "uploadpack.allowAnySHA1InWant", map[bool]string{true: "true", false: "false"}[serve])
		dir := t.TempDir()
		if out, err := exec.Command("git", "clone", "-q", "--no-local", w.repo.Dir, dir).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		return dir
	}
	refused := clone(false)
	served := clone(true)
	w.repo.Git("config", "uploadpack.allowAnySHA1InWant", "false")
	rep := w.replayFrom(refused, replay.Options{})
	pr := rep.PullRequests[0]
	if got := states(pr); got != "CLOSED  OPEN" || !strings.Contains(pr.Pushes[1].Note, "fetching it failed") {
		t.Errorf("origin does not serve it: states %q, note %q; want no verdict at the second push, OPEN at the third", got, pr.Pushes[1].Note)
	}
	w.repo.Git("config", "uploadpack.allowAnySHA1InWant", "true")
	rep = w.replayFrom(served, replay.Options{})
	pr = rep.PullRequests[0]
	if got := states(pr); got != "CLOSED CLOSED OPEN" || !strings.Contains(pr.Pushes[1].Note, "fetched from origin") {
		t.Errorf("origin serves it: states %q, note %q; want it fetched and judged", got, pr.Pushes[1].Note)
	}
}
