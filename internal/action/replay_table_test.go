package action_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/replay"
)

// One push of a replayed pull request: what CI's run found (test →
// status; nil when the tests did not run), what it left (replayLeft*),
// and what happened around it.
type replayStep struct {
	statuses map[string]string
	left     string
	// forcedAway: the next push force-pushes over this one, which the
	// clone replay reads then lacks (GitHub still serves it by its id).
	forcedAway bool
	// resetAfter: a maintainer comments /breaker reset after this push.
	resetAfter bool
}

// What a push's run left for replay to read.
const (
	replayLeftArtifact   = "artifact"   // its result file, as an artifact
	replayLeftConclusion = "conclusion" // nothing: the Action read results, replay reads the conclusion alone
	replayLeftNothing    = "nothing"    // no result file at all: the tests did not run (the Action read none either)
)

var (
	loginFails = map[string]string{"TestLogin": "fail", "TestSignup": "pass"}
	loginPass  = map[string]string{"TestLogin": "pass", "TestSignup": "pass"}
)

func fails(left string) replayStep { return replayStep{statuses: loginFails, left: left} }

// Replay's verdict is the Action's at every push, pull request by pull
// request (issue 50): the Action judges each push as it comes, then
// replay reads the same pull requests back from GitHub's runs and a clone
// of the repository, and the two agree push by push — a push whose run
// left no result file before any push had one, one after, pull requests
// known only by their runs' conclusions, a head force-pushed away (the
// clone lacks it; origin serves it by its id), and a maintainer's reset.
func TestReplayTable_ReplayDecidesAsTheAction(t *testing.T) {
	t.Parallel()
	table := []struct {
		name  string
		steps []replayStep
	}{
		{"a build broke before any push had results", []replayStep{
			{statuses: nil, left: replayLeftNothing}, fails(replayLeftArtifact), fails(replayLeftArtifact), fails(replayLeftArtifact), fails(replayLeftArtifact)}},
		{"results missing after pushes that had them", []replayStep{
			fails(replayLeftArtifact), {statuses: nil, left: replayLeftNothing}, fails(replayLeftArtifact), fails(replayLeftArtifact)}},
		{"known only by the conclusions", []replayStep{
			fails(replayLeftConclusion), fails(replayLeftConclusion), fails(replayLeftConclusion), {statuses: loginPass, left: replayLeftConclusion}}},
		{"a head force-pushed away", []replayStep{
			fails(replayLeftArtifact), {statuses: loginFails, left: replayLeftArtifact, forcedAway: true}, fails(replayLeftArtifact), fails(replayLeftArtifact)}},
		{"a maintainer's reset", []replayStep{
			fails(replayLeftArtifact), fails(replayLeftArtifact), {statuses: loginFails, left: replayLeftArtifact, resetAfter: true},
			fails(replayLeftArtifact), fails(replayLeftArtifact), fails(replayLeftArtifact)}},
		{"fixed after a broken build", []replayStep{
			{statuses: nil, left: replayLeftNothing}, fails(replayLeftArtifact), {statuses: loginPass, left: replayLeftArtifact}}},
	}
	r := newRig(t)
	r.commit("Start the shop")
	r.results(loginPass)
	r.push("main")
	mainSHA := r.git("rev-parse", "main")
	at := func() time.Time { return rigEpoch.Add(time.Duration(r.runs) * time.Minute) }
	actions := map[int][]string{} // pull request → the Action's state at each push
	runID := int64(70_000)
	for i, row := range table {
		number, branch := 300+i, fmt.Sprintf("agent/row-%d", i)
		r.git("checkout", "-q", "-b", branch, "main")
		created := at().Add(30 * time.Second)
		var away string
		for k, st := range row.steps {
			if away != "" {
				r.git("reset", "-q", "--hard", "HEAD~1") // the agent force-pushes over it
				r.srv.AddForcePush(number, away)
				away = ""
			}
			r.commit(fmt.Sprintf("Try %d of %s", k+1, row.name))
			r.resultsOrNone(st.statuses)
			pr := r.open(number, branch)
			o := r.pullRequest(map[bool]string{true: "opened", false: "synchronize"}[k == 0], pr)
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("%s, push %d: the Action decided nothing: %v\n%s", row.name, k+1, o.Err, o.stdout)
			}
			actions[number] = append(actions[number], string(o.Decision.State))
			conclusion := "success"
			if st.statuses == nil || st.statuses["TestLogin"] == "fail" {
				conclusion = "failure"
			}
			runID++
			r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: branch, SHA: pr.HeadSHA, Event: "pull_request", Status: "completed", Conclusion: conclusion,
				Workflow: "ci.yml", Name: "CI", CreatedAt: at(), StartedAt: at(), UpdatedAt: at().Add(4 * time.Minute),
				PullRequests: []forge.RunPullRequest{{Number: number, BaseSHA: mainSHA, BaseRef: "main"}}})
			if st.left == replayLeftArtifact {
				r.artifact(runID, junitOf(st.statuses))
			}
			if st.forcedAway {
				away = pr.HeadSHA
			}
			if st.resetAfter {
				ev := r.commented(number, "alice", "/breaker reset")
				if o := r.run("issue_comment", ev); o.Err != nil || o.state() != "CLOSED" {
					t.Fatalf("%s: the reset: %v, %s\n%s", row.name, o.Err, o.state(), o.stdout)
				}
				r.srv.SetCommentTime(ev["comment"].(map[string]any)["id"].(int64), at())
			}
		}
		r.srv.SetPullRequestTimes(number, ghfake.PullRequestTimes{Title: row.name, Created: created, Updated: at(), Closed: at()})
		r.close(number, branch)
		r.git("checkout", "-q", "main")
		r.runs += 60
	}
	// Replay reads a clone that holds the branches only; origin (the
	// repository the pushes went to) serves a commit by its id, as GitHub
	// does for a head force-pushed away (NixOS/nixpkgs#112645).
	r.git("config", "uploadpack.allowAnySHA1InWant", "true")
	clone := t.TempDir()
	if out, err := exec.Command("git", "clone", "-q", "--no-local", r.dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	w := seededWindow{r: r, since: rigEpoch.Add(-time.Hour)}
	rep := w.replayIn(t, clone, replay.Options{})
	if len(rep.PullRequests) != len(table) {
		t.Fatalf("replayed %d pull requests, want %d", len(rep.PullRequests), len(table))
	}
	for i, pr := range rep.PullRequests {
		row := table[i]
		var got []string
		for _, p := range pr.Pushes {
			got = append(got, p.State)
		}
		if want := actions[pr.Number]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: replay %v, the Action %v", row.name, got, want)
			for _, p := range pr.Pushes {
				t.Logf("  %s %s %s %s", p.Head[:8], p.State, p.Reason, p.Note)
			}
		}
		switch row.name {
		case "a head force-pushed away":
			if p := pr.Pushes[1]; !strings.Contains(p.Note, "fetched from origin") {
				t.Errorf("%s: the head force-pushed away: %+v; want it fetched from origin and judged", row.name, p)
			}
		case "a maintainer's reset":
			if len(pr.Resets) != 1 || pr.Resets[0].Author != "alice" || pr.Resets[0].Note != "" {
				t.Errorf("%s: resets %+v; want alice's, honoured", row.name, pr.Resets)
			}
		}
	}
}
