package replay_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/replay"
)

// Replay's own tests: past pull requests as GitHub serves them (the
// project's fake GitHub, validated against GitHub's published
// descriptions) and a real clone, judged by the engine. The verdicts below
// are worked out by hand from the default policy (3 failed pushes of one
// test trip); internal/action holds replay to the Action's verdicts push
// by push.

const token = "replay-read-token-0815"

var epoch = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// evidence is what a push's run left: an artifact, a log, or nothing.
type evidence int

const (
	byArtifact evidence = iota
	byLog
	byConclusion
)

// pushOf is one push: the tests' statuses and what its run left;
// forcedAway: the next push force-pushes over it.
type pushOf struct {
	statuses   map[string]string
	left       evidence
	forcedAway bool
}

// window is a repository with pull requests pushed and run.
type window struct {
	t      *testing.T
	repo   *gitrepo.Repo
	srv    *ghfake.Server
	runID  int64
	minute int
}

func newWindow(t *testing.T) *window {
	t.Helper()
	w := &window{t: t, repo: gitrepo.New(t), srv: ghfake.New(t, ghfake.WithToken(token)), runID: 60_000}
	w.srv.SetDefaultBranch("main", w.repo.Git("rev-parse", "main"))
	return w
}

func (w *window) at() time.Time { return epoch.Add(time.Duration(w.minute) * time.Minute) }

// pullRequest pushes the pushes to a branch of pull request number, a run
// each, and closes it.
func (w *window) pullRequest(number int, title string, pushes ...pushOf) {
	w.t.Helper()
	branch := fmt.Sprintf("agent/task-%d", number)
	main := w.repo.Git("rev-parse", "main")
	w.repo.Git("checkout", "-q", "-b", branch, "main")
	created := w.at()
	for k, p := range pushes {
		w.minute += 10
		if k > 0 && pushes[k-1].forcedAway {
			w.repo.Git("reset", "-q", "--hard", "HEAD~1")
		}
		head := w.repo.Commit(fmt.Sprintf("Try %d of %s", k+1, title))
		conclusion := "success"
		if p.statuses == nil || strings.Contains(fmt.Sprint(p.statuses), "fail") {
			conclusion = "failure"
		}
		w.runID++
		run := ghfake.WorkflowRun{ID: w.runID, Branch: branch, SHA: head, Event: "pull_request", Status: "completed", Conclusion: conclusion,
			Workflow: "ci.yml", Name: "CI", CreatedAt: w.at(), StartedAt: w.at(), UpdatedAt: w.at().Add(4 * time.Minute),
			PullRequests: []forge.RunPullRequest{{Number: number, BaseSHA: main, BaseRef: "main"}}}
		switch {
		case p.left == byArtifact && p.statuses != nil:
			w.artifact(w.runID, p.statuses)
		case p.left == byLog && conclusion == "failure":
			run.Jobs = []ghfake.Job{{ID: w.runID * 10, Name: "test", Conclusion: "failure", Log: goTestLog(p.statuses)}}
		}
		w.srv.AddWorkflowRun(run)
	}
	head := w.repo.Git("rev-parse", branch)
	w.srv.AddPullRequest(forge.PullRequest{Number: number, HeadSHA: head, HeadRef: branch, BaseRef: "main", BaseSHA: main, Author: "agent-bot", State: "closed"})
	w.srv.SetPullRequestTimes(number, ghfake.PullRequestTimes{Title: title, Created: created, Updated: w.at(), Closed: w.at()})
	w.repo.Git("checkout", "-q", "main")
	w.minute += 60
}

// artifact uploads the run's JUnit results, as actions/upload-artifact
// does: a zip of the file.
func (w *window) artifact(runID int64, statuses map[string]string) {
	w.t.Helper()
	var junit strings.Builder
	junit.WriteString(`<testsuite name="users">`)
	for _, test := range sorted(statuses) {
		fmt.Fprintf(&junit, `<testcase classname="users" name=%q>`, test)
		if statuses[test] == "fail" {
			junit.WriteString(`<failure message="expected 409, got 500">service_test.go:42</failure>`)
		}
		junit.WriteString(`</testcase>`)
	}
	junit.WriteString(`</testsuite>`)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, err := zw.Create("reports/junit.xml")
	if err != nil {
		w.t.Fatal(err)
	}
	_, _ = f.Write([]byte(junit.String()))
	if err := zw.Close(); err != nil {
		w.t.Fatal(err)
	}
	w.srv.AddArtifact(runID, "test-results", buf.Bytes())
}

// goTestLog is a job log as `go test -v` prints it, with GitHub's
// timestamps.
func goTestLog(statuses map[string]string) string {
	var b strings.Builder
	b.WriteString("2026-03-02T10:00:00.0000000Z ##[group]Run go test -v ./...\n")
	for _, n := range sorted(statuses) {
		fmt.Fprintf(&b, "2026-03-02T10:00:01.0000000Z === RUN   %s\n", n)
		fmt.Fprintf(&b, "2026-03-02T10:00:01.0000000Z --- %s: %s (0.00s)\n", strings.ToUpper(statuses[n]), n)
	}
	b.WriteString("2026-03-02T10:00:02.0000000Z FAIL\texample.com/users\t0.012s\n")
	return b.String()
}

func sorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// replay replays the window with o, counting its requests.
func (w *window) replay(o replay.Options) replay.Report {
	w.t.Helper()
	return w.replayFrom(w.repo.Dir, o)
}

// replayFrom replays the window from the clone at dir.
func (w *window) replayFrom(dir string, o replay.Options) replay.Report {
	w.t.Helper()
	budget := &ghapi.Budget{Limit: o.Budget}
	client, err := ghapi.New(ghapi.Config{Token: token, APIURL: w.srv.URL(), Owner: w.srv.Owner(), Repo: w.srv.Repo(),
		Sleep: func(context.Context, time.Duration) error { return nil }, Budget: budget})
	if err != nil {
		w.t.Fatal(err)
	}
	o.Requests = budget.Used
	o.Repo, o.Since, o.Until = w.srv.Owner()+"/"+w.srv.Repo(), epoch.Add(-time.Hour), epoch.Add(30*24*time.Hour)
	o.RepoDir, o.Agents, o.Policy, o.Workflow = dir, []string{"agent-bot"}, breaker.DefaultPolicy(), "ci.yml"
	rep, err := replay.Run(context.Background(), client, o)
	if err != nil {
		w.t.Fatal(err)
	}
	return rep
}

var (
	stuck = map[string]string{"TestLogin": "fail", "TestSignup": "pass"}
	fixed = map[string]string{"TestLogin": "pass", "TestSignup": "pass"}
)

// seeded is a window of five pull requests, one per kind of evidence and
// outcome.
func seeded(t *testing.T) *window {
	w := newWindow(t)
	w.pullRequest(101, "Fix session expiry", pushOf{statuses: stuck, left: byArtifact}, pushOf{statuses: stuck, left: byArtifact}, pushOf{statuses: stuck, left: byArtifact}, pushOf{statuses: fixed, left: byArtifact})
	w.pullRequest(102, "Validate the signup email", pushOf{statuses: stuck, left: byArtifact}, pushOf{statuses: fixed, left: byArtifact})
	w.pullRequest(103, "Port the cart to decimals", pushOf{statuses: stuck, left: byLog}, pushOf{statuses: stuck, left: byLog}, pushOf{statuses: stuck, left: byLog})
	w.pullRequest(104, "Bump the lint configuration", pushOf{statuses: fixed, left: byConclusion}, pushOf{statuses: fixed, left: byConclusion})
	w.pullRequest(105, "Handle refresh tokens", pushOf{statuses: stuck, left: byConclusion}, pushOf{statuses: stuck, left: byConclusion}, pushOf{statuses: stuck, left: byConclusion})
	return w
}

func TestRun_EveryPushJudgedOnItsBestEvidence(t *testing.T) {
	t.Parallel()
	w := seeded(t)
	rep := w.replay(replay.Options{})
	want := map[int]struct {
		states   string
		evidence string
	}{
		101: {"CLOSED CLOSED OPEN OPEN", "artifact artifact artifact conclusion"},
		102: {"CLOSED CLOSED", "artifact conclusion"},
		103: {"CLOSED CLOSED OPEN", "log log log"},
		104: {"CLOSED CLOSED", "conclusion conclusion"},
		105: {"CLOSED CLOSED OPEN", "conclusion conclusion conclusion"},
	}
	if len(rep.PullRequests) != len(want) {
		t.Fatalf("replayed %d pull requests, want %d", len(rep.PullRequests), len(want))
	}
	for _, pr := range rep.PullRequests {
		var states, ev []string
		for _, p := range pr.Pushes {
			states, ev = append(states, p.State), append(ev, p.Evidence)
		}
		w := want[pr.Number]
		if strings.Join(states, " ") != w.states || strings.Join(ev, " ") != w.evidence {
			t.Errorf("#%d: states %v on %v; want %s on %s", pr.Number, states, ev, w.states, w.evidence)
		}
	}
	if rep.Summary.Tripped != 3 || rep.Summary.Pushes != 14 {
		t.Errorf("summary: %d tripped of %d pushes; want 3 of 14", rep.Summary.Tripped, rep.Summary.Pushes)
	}
	if len(rep.Summary.Recovered) != 1 || rep.Summary.Recovered[0] != 101 {
		t.Errorf("recovered %v; want #101, which tripped and went green", rep.Summary.Recovered)
	}
	if rep.Requests == 0 || rep.Estimate < rep.Requests {
		t.Errorf("%d requests, estimate %d: the estimate said before the reads is the most it costs", rep.Requests, rep.Estimate)
	}
	md := replay.Markdown(rep)
	for _, s := range []string{"## Circuit breaker replay", "What stopping would have saved", "#101", "xychart-beta"} {
		if !strings.Contains(md, s) {
			t.Errorf("the markdown lacks %q:\n%s", s, md)
		}
	}
}

// A second run from the cache asks nothing about the pull requests it
// holds; a budget cuts the window where it runs out, and says where.
func TestRun_TheCacheAndTheBudget(t *testing.T) {
	t.Parallel()
	w := seeded(t)
	dir := t.TempDir()
	first := w.replay(replay.Options{CacheDir: dir})
	again := w.replay(replay.Options{CacheDir: dir})
	if again.Cached != len(first.PullRequests) || again.Requests >= first.Requests {
		t.Errorf("from the cache: %d cached, %d requests (first run %d); want every pull request cached and fewer requests", again.Cached, again.Requests, first.Requests)
	}
	for i := range first.PullRequests {
		if a, b := fmt.Sprint(first.PullRequests[i].Pushes), fmt.Sprint(again.PullRequests[i].Pushes); a != b {
			t.Errorf("#%d from the cache judged otherwise:\n%s\n%s", first.PullRequests[i].Number, a, b)
		}
	}
	cut := w.replay(replay.Options{Budget: first.Requests / 2})
	if cut.Cut == "" || cut.Requests > first.Requests/2 || len(cut.PullRequests) >= len(first.PullRequests) {
		t.Errorf("budget %d: cut %q after %d requests, %d pull requests", first.Requests/2, cut.Cut, cut.Requests, len(cut.PullRequests))
	}
}

// The progress a terminal or a log shows: every phase, in order.
func TestRun_SaysWhatItReads(t *testing.T) {
	t.Parallel()
	w := seeded(t)
	var phases []string
	w.replay(replay.Options{Progress: func(p replay.Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}})
	if got := strings.Join(phases, " "); got != "list runs evidence judge" {
		t.Errorf("phases %q; want list, runs, evidence, judge", got)
	}
}
