package action_test

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/replay"
)

// `breaker replay` judges past pull requests with the engine the Action
// uses: here the Action runs on every push of thirty pull requests (real
// git, the project's fake GitHub), and the same pushes are then given to
// the fake as the workflow runs GitHub would list for them — some with
// their result files as an artifact, some with only a job log, some with
// only a conclusion. Replay's verdict, push by push, is the Action's.

// replayShape is one pull request's pushes: at each push, test → status.
type replayShape struct {
	name, title string
	pushes      []map[string]string
}

var (
	shapeStuck = replayShape{"stuck test", "Fix session expiry in login", []map[string]string{
		{"TestLogin": "fail", "TestSignup": "pass"}, {"TestLogin": "fail", "TestSignup": "pass"},
		{"TestLogin": "fail", "TestSignup": "pass"}, {"TestLogin": "fail", "TestSignup": "pass"}}}
	shapeOscillation = replayShape{"oscillation", "Make logout idempotent", []map[string]string{
		{"TestLogin": "fail", "TestLogout": "pass"}, {"TestLogin": "pass", "TestLogout": "fail"},
		{"TestLogin": "fail", "TestLogout": "pass"}, {"TestLogin": "pass", "TestLogout": "fail"}, {"TestLogin": "fail", "TestLogout": "pass"}}}
	shapeRecovers = replayShape{"trips, then recovers", "Handle expired refresh tokens", []map[string]string{
		{"TestLogin": "fail"}, {"TestLogin": "fail"}, {"TestLogin": "fail"}, {"TestLogin": "pass"}}}
	shapeFixed = replayShape{"fixed at the second push", "Validate the signup email", []map[string]string{
		{"TestLogin": "fail", "TestSignup": "pass"}, {"TestLogin": "pass", "TestSignup": "pass"}}}
	shapeProgress = replayShape{"one fix a push", "Port cart totals to decimals", []map[string]string{
		{"TestA": "fail", "TestB": "fail", "TestC": "fail"}, {"TestA": "pass", "TestB": "fail", "TestC": "fail"},
		{"TestA": "pass", "TestB": "pass", "TestC": "fail"}, {"TestA": "pass", "TestB": "pass", "TestC": "pass"}}}
	shapeFlakyBeside = replayShape{"stuck beside a flipping test", "Fix login under cache pressure", []map[string]string{
		{"TestLogin": "fail", "TestCache": "fail"}, {"TestLogin": "fail", "TestCache": "pass"},
		{"TestLogin": "fail", "TestCache": "fail"}, {"TestLogin": "fail", "TestCache": "pass"}}}
	shapeGreen = replayShape{"green", "Bump the lint configuration", []map[string]string{{"TestLogin": "pass"}, {"TestLogin": "pass"}}}
	// shapeRedBase fails only the base's failing test: never the push's.
	shapeRedBase = replayShape{"red base", "Tidy the login handler", []map[string]string{
		{"TestFlakyBase": "fail", "TestLogin": "pass"}, {"TestFlakyBase": "fail", "TestLogin": "pass"},
		{"TestFlakyBase": "fail", "TestLogin": "pass"}, {"TestFlakyBase": "fail", "TestLogin": "pass"}}}
)

// replayCase is one pull request of the seeded window and the evidence its
// runs leave.
type replayCase struct {
	shape    replayShape
	evidence string
}

func replayCases() []replayCase {
	var out []replayCase
	artifacts := []replayShape{shapeStuck, shapeOscillation, shapeRecovers, shapeFixed, shapeProgress, shapeFlakyBeside, shapeGreen, shapeRedBase, shapeStuck, shapeRecovers}
	logs := []replayShape{shapeStuck, shapeOscillation, shapeRecovers, shapeFixed, shapeProgress, shapeFlakyBeside, shapeGreen, shapeStuck, shapeOscillation, shapeFixed}
	// A conclusion names no test: only shapes whose verdicts the pushes'
	// outcomes alone decide (the evidence floor) are seeded so.
	conclusions := []replayShape{shapeStuck, shapeRecovers, shapeFixed, shapeGreen, shapeStuck, shapeRecovers, shapeFixed, shapeGreen, shapeStuck, shapeFixed}
	for _, s := range artifacts {
		out = append(out, replayCase{s, replay.EvidenceArtifact})
	}
	for _, s := range logs {
		out = append(out, replayCase{s, replay.EvidenceLog})
	}
	for _, s := range conclusions {
		out = append(out, replayCase{s, replay.EvidenceConclusion})
	}
	return out
}

// goTestLog is a job log as `go test -v` prints it for statuses, with
// GitHub's timestamps.
func goTestLog(statuses map[string]string) string {
	names := make([]string, 0, len(statuses))
	for n := range statuses {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("2026-03-02T10:00:00.0000000Z ##[group]Run go test -v ./...\n")
	for _, n := range names {
		fmt.Fprintf(&b, "2026-03-02T10:00:01.0000000Z === RUN   %s\n", n)
		if statuses[n] == "fail" {
			fmt.Fprintf(&b, "2026-03-02T10:00:01.0000000Z     service_test.go:42: expected 409, got 500\n")
		}
		fmt.Fprintf(&b, "2026-03-02T10:00:01.0000000Z --- %s: %s (0.00s)\n", strings.ToUpper(statuses[n]), n)
	}
	b.WriteString("2026-03-02T10:00:02.0000000Z FAIL\n2026-03-02T10:00:02.0000000Z FAIL\texample.com/users\t0.012s\n")
	b.WriteString("2026-03-02T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n")
	return b.String()
}

// seededWindow is the rig after the thirty pull requests, with what the
// Action concluded at every push.
type seededWindow struct {
	r      *rig
	cases  []replayCase
	states map[int][]string // pull request → the Action's state at each push
	reason map[int][]string
	since  time.Time
}

func seedReplayWindow(t *testing.T) seededWindow {
	r := newRig(t)
	// The base: main's tests fail TestFlakyBase, which the breaker saw on
	// the push to main (the red base).
	r.commit("Add the flaky base test")
	base := map[string]string{"TestFlakyBase": "fail", "TestLogin": "pass"}
	r.results(base)
	r.push("main")
	mainSHA := r.git("rev-parse", "main")
	runID := int64(90_000)
	at := func() time.Time { return rigEpoch.Add(time.Duration(r.runs) * time.Minute) }
	runID++
	r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: "main", SHA: mainSHA, Event: "push", Status: "completed", Conclusion: "failure",
		Workflow: "ci.yml", Name: "CI", CreatedAt: at(), StartedAt: at(), UpdatedAt: at().Add(3 * time.Minute)})
	r.artifact(runID, junitOf(base))

	w := seededWindow{r: r, cases: replayCases(), states: map[int][]string{}, reason: map[int][]string{}, since: rigEpoch.Add(-time.Hour)}
	for i, c := range w.cases {
		number := 100 + i
		branch := fmt.Sprintf("agent/task-%d", number)
		r.git("checkout", "-q", "-b", branch, "main")
		created := at().Add(30 * time.Second)
		for k, statuses := range c.shape.pushes {
			r.commit(fmt.Sprintf("Try fix %d of %s", k+1, c.shape.name))
			r.results(statuses)
			pr := r.open(number, branch)
			action := "synchronize"
			if k == 0 {
				action = "opened"
			}
			out := r.pullRequest(action, pr)
			if out.Decision == nil {
				t.Fatalf("#%d push %d: the Action decided nothing: %v\n%s", number, k+1, out.Err, out.stdout)
			}
			w.states[number] = append(w.states[number], string(out.Decision.State))
			w.reason[number] = append(w.reason[number], string(out.Decision.TripReason))
			// The run GitHub lists for this push: when it ran (the
			// Action's clock), its conclusion, and what it left.
			conclusion := "success"
			for _, s := range statuses {
				if s == "fail" {
					conclusion = "failure"
				}
			}
			runID++
			run := ghfake.WorkflowRun{ID: runID, Branch: branch, SHA: pr.HeadSHA, Event: "pull_request", Status: "completed", Conclusion: conclusion,
				Workflow: "ci.yml", Name: "CI", CreatedAt: at(), StartedAt: at(), UpdatedAt: at().Add(time.Duration(4+k) * time.Minute),
				PullRequests: []forge.RunPullRequest{{Number: number, BaseSHA: mainSHA, BaseRef: "main"}}}
			switch {
			case c.evidence == replay.EvidenceArtifact:
				r.artifact(runID, junitOf(statuses))
			case c.evidence == replay.EvidenceLog && conclusion == "failure":
				run.Jobs = []ghfake.Job{{ID: runID * 10, Name: "test", Conclusion: "failure", Log: goTestLog(statuses)}}
			}
			r.srv.AddWorkflowRun(run)
		}
		r.srv.SetPullRequestTimes(number, ghfake.PullRequestTimes{Title: c.shape.title, Created: created, Updated: at(), Closed: at(), Merged: time.Time{}})
		r.close(number, branch)
		r.git("checkout", "-q", "main")
		r.runs += 23 * 60 // the next pull request, most of a day later
	}
	return w
}

func (w seededWindow) replay(t *testing.T, o replay.Options) replay.Report {
	t.Helper()
	return w.replayIn(t, w.r.dir, o)
}

// replayIn replays the window from the clone at dir.
func (w seededWindow) replayIn(t *testing.T, dir string, o replay.Options) replay.Report {
	t.Helper()
	client := historyClient(t, w.r, &o)
	o.Repo, o.Since, o.Until = w.r.srv.Owner()+"/"+w.r.srv.Repo(), w.since, rigEpoch.Add(30*24*time.Hour)
	o.RepoDir, o.Agents, o.Policy = dir, []string{"agent-bot"}, breaker.DefaultPolicy()
	if o.Workflow == "" {
		o.Workflow = "ci.yml"
	}
	rep, err := replay.Run(context.Background(), client, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestReplay_VerdictPerPushIsTheActions(t *testing.T) {
	t.Parallel()
	w := seedReplayWindow(t)
	w.r.srv.ResetCalls() // the Action's requests: replay's are counted from here
	rep := w.replay(t, replay.Options{})
	if len(rep.PullRequests) != len(w.cases) {
		t.Fatalf("replayed %d pull requests, want %d", len(rep.PullRequests), len(w.cases))
	}
	trips := 0
	for i, pr := range rep.PullRequests {
		c := w.cases[i]
		want := w.states[pr.Number]
		if len(pr.Pushes) != len(want) {
			t.Errorf("#%d (%s, %s): %d pushes replayed, the Action judged %d", pr.Number, c.shape.name, c.evidence, len(pr.Pushes), len(want))
			continue
		}
		for k, p := range pr.Pushes {
			if p.State != want[k] {
				t.Errorf("#%d (%s, %s) push %d: replay says %s (%s), the Action said %s (%s)", pr.Number, c.shape.name, c.evidence, k+1,
					p.State, p.Reason, want[k], w.reason[pr.Number][k])
			}
			if c.evidence == replay.EvidenceArtifact && p.Reason != w.reason[pr.Number][k] {
				t.Errorf("#%d (%s) push %d: replay's reason %q, the Action's %q", pr.Number, c.shape.name, k+1, p.Reason, w.reason[pr.Number][k])
			}
			// Each push says what it was judged on: a push CI passed needs
			// no evidence beyond its conclusion.
			wantEvidence := c.evidence
			if p.Conclusion == "success" {
				wantEvidence = replay.EvidenceConclusion
			}
			if p.Evidence != wantEvidence {
				t.Errorf("#%d push %d: judged on %q, want %q (%s)", pr.Number, k+1, p.Evidence, wantEvidence, p.EvidenceDetail)
			}
		}
		if pr.Trip != nil {
			trips++
		}
	}
	// The shapes that must trip do, and the ones that must not do not.
	byShape := map[string]bool{}
	for i, pr := range rep.PullRequests {
		byShape[w.cases[i].shape.name] = byShape[w.cases[i].shape.name] || pr.Trip != nil
	}
	for shape, tripped := range map[string]bool{"stuck test": true, "oscillation": true, "trips, then recovers": true, "stuck beside a flipping test": true,
		"fixed at the second push": false, "one fix a push": false, "green": false, "red base": false} {
		if byShape[shape] != tripped {
			t.Errorf("shape %q: tripped %v, want %v", shape, byShape[shape], tripped)
		}
	}
	if rep.Summary.Tripped != trips || trips == 0 {
		t.Errorf("summary: %d tripped, the pull requests say %d", rep.Summary.Tripped, trips)
	}
	if len(rep.Summary.Recovered) == 0 {
		t.Errorf("no pull request tripped and went green: the recovering ones should be listed for a person to judge")
	}
	md := replay.Markdown(rep)
	for _, want := range []string{"xychart-beta", "What stopping would have saved", "Tripped, then green"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown lacks %q", want)
		}
	}
	// The example the README links: this window's report, as GitHub
	// renders it in a job summary (-update rewrites it).
	matchGolden(t, "../../../docs/replay-example.md", md)
	// Read only: every request replay sent is one the weekly recipe of
	// docs/replay.md grants.
	perms := docRecipe(t, "replay.md", "breaker-replay.yml")
	for _, c := range apiCalls(w.r.srv) {
		known := false
		for _, rp := range requestPermissions {
			if c.Method == rp.method && rp.path.MatchString(c.Path) {
				known = true
				for _, need := range rp.needs {
					if !grants(perms, need) || strings.HasSuffix(need, "write") {
						t.Errorf("%s %s needs %s: the replay recipe does not grant it, or it writes", c.Method, c.Path, need)
					}
				}
			}
		}
		if !known {
			t.Errorf("%s %s: no permission is known for this request", c.Method, c.Path)
		}
	}
	t.Logf("the window: %d pull requests, %d pushes, %d requests (estimate %d)", len(rep.PullRequests), rep.Summary.Pushes, rep.Requests, rep.Estimate)
	w.budgetAndCache(t, rep)
}

// historyClient is the read token's client of replay and stats, keeping
// o's budget and counting its requests into o.
func historyClient(t *testing.T, r *rig, o *replay.Options) *ghapi.Client {
	t.Helper()
	budget := &ghapi.Budget{Limit: o.Budget}
	client, err := ghapi.New(ghapi.Config{Token: rigToken, APIURL: r.srv.URL(), Owner: r.srv.Owner(), Repo: r.srv.Repo(),
		Sleep: func(context.Context, time.Duration) error { return nil }, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	o.Requests = budget.Used
	return client
}

// apiCalls are the requests the fake received, the archive and log hosts
// GitHub redirects to aside (they are not the API).
func apiCalls(srv *ghfake.Server) []ghfake.Call {
	var out []ghfake.Call
	for _, c := range srv.Calls() {
		if !strings.HasPrefix(c.Path, "/_blobs/") {
			out = append(out, c)
		}
	}
	return out
}

// budgetAndCache: the requests replay counts are the requests GitHub
// receives; a budget is never passed and the report says where it cut the
// window; a second run from the cache asks nothing about the pull requests
// it holds, and a cut window goes on from the cache.
func (w seededWindow) budgetAndCache(t *testing.T, full replay.Report) {
	srv := w.r.srv
	srv.ResetCalls()
	again := w.replay(t, replay.Options{})
	if n := len(apiCalls(srv)); n != again.Requests || n != full.Requests {
		t.Errorf("replay counted %d requests (first run %d), GitHub received %d", again.Requests, full.Requests, n)
	}
	if again.Estimate < again.Requests {
		t.Errorf("the estimate said before the reads (%d) is below the requests made (%d)", again.Estimate, again.Requests)
	}
	budget := full.Requests / 2
	srv.ResetCalls()
	cut := w.replay(t, replay.Options{Budget: budget})
	if n := len(apiCalls(srv)); n > budget || cut.Requests > budget {
		t.Errorf("budget %d: GitHub received %d requests, replay counted %d", budget, n, cut.Requests)
	}
	if cut.Cut == "" || !strings.Contains(cut.Cut, "pull request #") || len(cut.PullRequests) >= len(full.PullRequests) {
		t.Errorf("budget %d: cut %q, %d of %d pull requests", budget, cut.Cut, len(cut.PullRequests), len(full.PullRequests))
	}
	t.Logf("budget %d: %s", budget, cut.Cut)
	if md := replay.Markdown(cut); !strings.Contains(md, "The window is cut") {
		t.Errorf("the markdown of a cut window does not say so")
	}

	dir := t.TempDir()
	srv.ResetCalls()
	first := w.replay(t, replay.Options{Budget: budget, CacheDir: dir})
	if first.Cut == "" {
		t.Fatalf("budget %d did not cut the window", budget)
	}
	read := map[string]bool{}
	for _, pr := range first.PullRequests {
		read[pr.Branch] = true
	}
	srv.ResetCalls()
	second := w.replay(t, replay.Options{CacheDir: dir})
	if second.Cut != "" || len(second.PullRequests) != len(full.PullRequests) || second.Cached != len(first.PullRequests) {
		t.Errorf("the run after the cut: cut %q, %d pull requests, %d from the cache (want %d)", second.Cut, len(second.PullRequests), second.Cached, len(first.PullRequests))
	}
	for _, c := range apiCalls(srv) {
		if strings.HasSuffix(c.Path, "/runs") && read[queryValue(c.Query, "branch")] {
			t.Errorf("the second run asked GitHub about %s, which the cache holds: %s?%s", queryValue(c.Query, "branch"), c.Path, c.Query)
		}
	}
	srv.ResetCalls()
	third := w.replay(t, replay.Options{CacheDir: dir})
	for _, c := range apiCalls(srv) {
		// The listing: the pull requests, and the runs the agents' pushes
		// made (which branches they pushed to); nothing about one of them.
		if !strings.HasSuffix(c.Path, "/pulls") && !(strings.HasSuffix(c.Path, "/runs") && queryValue(c.Query, "actor") != "") {
			t.Errorf("a run with every pull request in the cache asked %s?%s", c, c.Query)
		}
	}
	for i, pr := range third.PullRequests {
		if fmt.Sprint(pr.Pushes) != fmt.Sprint(full.PullRequests[i].Pushes) {
			t.Errorf("#%d from the cache differs from the first read", pr.Number)
		}
	}
	// A cache written for another workflow's runs is not this one's.
	other := w.replay(t, replay.Options{CacheDir: dir, Workflow: "lint.yml"})
	if other.Cached != 0 || other.Summary.Pushes != 0 {
		t.Errorf("another workflow read %d pull requests from ci.yml's cache, %d pushes", other.Cached, other.Summary.Pushes)
	}
}

func queryValue(raw, key string) string {
	v, _ := url.ParseQuery(raw)
	return v.Get(key)
}

// A head the clone no longer holds (force-pushed away, and gone from the
// clone) is not judged, but what its run left still counts for the pushes
// after it, as it does for the Action: three failing pushes trip at the
// third, the second of them gone.
func TestReplay_AHeadGoneFromTheCloneStillCounts(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "agent/gone")
	failing := map[string]string{"TestLogin": "fail", "TestSignup": "pass"}
	var states []string
	var heads []string
	runID := int64(80_000)
	for k := range 3 {
		if k == 2 {
			r.git("reset", "-q", "--hard", "HEAD~1") // the agent force-pushes over its second push
			r.srv.AddForcePush(9, heads[1])          // its timeline says so
		}
		r.commit(fmt.Sprintf("Try %d", k+1))
		r.results(failing)
		pr := r.open(9, "agent/gone")
		action := map[bool]string{true: "opened", false: "synchronize"}[k == 0]
		out := r.pullRequest(action, pr)
		states = append(states, string(out.Decision.State))
		heads = append(heads, pr.HeadSHA)
		at := rigEpoch.Add(time.Duration(r.runs) * time.Minute)
		runID++
		r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: "agent/gone", SHA: pr.HeadSHA, Event: "pull_request", Status: "completed",
			Conclusion: "failure", Workflow: "ci.yml", CreatedAt: at, StartedAt: at, UpdatedAt: at.Add(4 * time.Minute)})
		r.artifact(runID, junitOf(failing))
	}
	r.srv.SetPullRequestTimes(9, ghfake.PullRequestTimes{Title: "Fix login", Created: rigEpoch, Updated: rigEpoch.Add(time.Hour)})
	r.git("reflog", "expire", "--expire=now", "--all")
	r.git("gc", "-q", "--prune=now")
	if _, err := exec.Command("git", "-C", r.dir, "cat-file", "-e", heads[1]).CombinedOutput(); err == nil {
		t.Fatalf("the second head is still in the clone")
	}
	if states[2] != "OPEN" {
		t.Fatalf("the Action: %v, want OPEN at the third push", states)
	}
	w := seededWindow{r: r, since: rigEpoch.Add(-time.Hour)}
	rep := w.replay(t, replay.Options{})
	if len(rep.PullRequests) != 1 || len(rep.PullRequests[0].Pushes) != 3 {
		t.Fatalf("replayed %+v", rep.PullRequests)
	}
	p := rep.PullRequests[0].Pushes
	if p[0].State != states[0] || p[2].State != states[2] {
		t.Errorf("replay: %s, %s, %s; the Action: %v", p[0].State, p[1].State, p[2].State, states)
	}
	if p[1].State != "" || !strings.Contains(p[1].Note, "not in the clone") || len(p[1].Failing) != 1 || rep.PullRequests[0].Incomplete {
		t.Errorf("the gone head: %+v", p[1])
	}
}

// An agent's pull request is one it opened, or one it pushed to: a person
// opens the pull request, the agent pushes the fixes (GitHub's actor of
// the runs its pushes made). A person's own pull request is left out.
func TestReplay_APullRequestAnAgentPushedToIsTheAgents(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for i, who := range []struct{ author, pusher string }{{"alice", "agent-bot"}, {"bob", "bob"}} {
		number, branch := 20+i, fmt.Sprintf("feature-%d", i)
		r.git("checkout", "-q", "-b", branch, "main")
		r.commit("Work")
		pr := r.open(number, branch)
		pr.Author = who.author
		r.srv.AddPullRequest(pr)
		at := rigEpoch.Add(time.Duration(i) * time.Hour)
		r.srv.SetPullRequestTimes(number, ghfake.PullRequestTimes{Title: "Feature", Created: at, Updated: at})
		r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: int64(60_000 + i), Branch: branch, SHA: pr.HeadSHA, Event: "pull_request", Status: "completed",
			Conclusion: "success", Workflow: "ci.yml", Actor: who.pusher, CreatedAt: at, StartedAt: at, UpdatedAt: at.Add(time.Minute)})
		r.git("checkout", "-q", "main")
	}
	w := seededWindow{r: r, since: rigEpoch.Add(-time.Hour)}
	rep := w.replay(t, replay.Options{})
	if len(rep.PullRequests) != 1 || rep.PullRequests[0].Number != 20 || rep.Listed != 2 {
		t.Errorf("replayed %d of %d: %+v; want #20 only, alice's pull request agent-bot pushed to", len(rep.PullRequests), rep.Listed, rep.PullRequests)
	}
}
