package action_test

import (
	"archive/zip"
	"bytes"
	"strconv"

	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"

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
				h.repo.Git("update-ref", ref, head)
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
			if res.code != cli.ExitTripped {
				t.Fatalf("exit %d, want 42: the moved refs changed the verdict\n%s", res.code, res.stdout)
			}
			var rep struct {
				Base struct{ Ref, SHA, Source string } `json:"base"`
			}
			data, err := os.ReadFile(filepath.Join(h.repo.Dir, action.ReportFile))
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
	if res.code != cli.ExitError || !strings.Contains(res.stdout, "input base") {
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
			if res.code != cli.ExitClosed {
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
			for _, c := range h.comments(7) {
				if strings.Contains(c.Body, "Refused") {
					reply = c.Body
				}
			}
			if !strings.Contains(reply, tt.reason) {
				t.Errorf("no reply saying %q; comments: %+v", tt.reason, h.comments(7))
			}
		})
	}
}

// workflowRunEvent is a completed workflow_run of the tests of pull
// request 7 at head.
func workflowRunEvent(t *testing.T, runID int64, pr forge.PullRequest) map[string]any {
	p := webhook(t, "workflow_run.json")
	setPath(p, "action", "completed")
	setPath(p, "workflow_run.id", runID)
	setPath(p, "workflow_run.event", "pull_request")
	setPath(p, "workflow_run.head_sha", pr.HeadSHA)
	setPath(p, "workflow_run.head_branch", pr.HeadRef)
	repo := map[string]any{"id": 731002, "name": ghfake.DefaultRepo, "url": "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo}
	setPath(p, "workflow_run.pull_requests", []any{map[string]any{
		"url":    "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo + "/pulls/" + strconv.Itoa(pr.Number),
		"id":     1881000 + pr.Number,
		"number": pr.Number,
		"head":   map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA, "repo": repo},
		"base":   map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA, "repo": repo},
	}})
	return p
}

// zipOf is the fake GitHub's artifact maker.
var zipOf = ghfake.ZipOf

// The hardened mode end to end: three tested runs of the agent's pull
// request each upload their results; the breaker, on workflow_run, reads
// each artifact, writes the check run on head_sha, comments on the pull
// request, and the third trips. The archive URL never sees the token.
func TestAction_WorkflowRunJudgesTheTestedRunsArtifact(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.inputs["results-artifact"] = "test-results"
	h.inputs["results"] = "reports/*.xml"
	h.env["RUNNER_TEMP"] = t.TempDir()
	h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	junit := `<testsuite name="users"><testcase classname="users" name="` + testDup + `"><failure message="expected 409, got 500">service_test.go:42</failure></testcase></testsuite>`
	var res actionResult
	var head string
	for i := range 3 {
		head = h.repo.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
		pr := h.openPR(head)
		runID := int64(5000 + i)
		h.srv.AddArtifact(runID, "test-results", zipOf(t, map[string]string{"reports/junit.xml": junit}))
		res = h.run("workflow_run", workflowRunEvent(t, runID, pr))
	}
	if res.code != cli.ExitTripped {
		t.Fatalf("third run: exit %d, want 42\n%s", res.code, res.stdout)
	}
	runs := h.srv.CheckRuns()
	if len(runs) != 3 || runs[2].HeadSHA != head || runs[2].Conclusion != "failure" {
		t.Errorf("check runs %+v; want 3, the last a failure on %s", runs, head)
	}
	if got := h.comments(7); len(got) != 1 {
		t.Errorf("%d comments on #7, want 1", len(got))
	}
	for _, a := range h.srv.BlobAuthorization() {
		if a != "" {
			t.Errorf("the archive URL received an Authorization header: the token left GitHub's API")
		}
	}
	if left, _ := os.ReadDir(h.env["RUNNER_TEMP"]); len(left) != 0 {
		t.Errorf("the scratch directory was not removed: %v", left)
	}
}

// A tested run that failed and uploaded no results artifact is judged
// from its failed jobs' logs (here go test -v's, as GitHub serves a job's
// log: each line timestamped): the third such push trips, and the check
// run says where the results came from.
func TestAction_WorkflowRunWithoutArtifactReadsTheJobLogs(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.inputs["results-artifact"] = "test-results"
	h.inputs["results"] = "reports/*.xml"
	h.env["RUNNER_TEMP"] = t.TempDir()
	h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	// The agent's test code names its tests: one whose name would close
	// the JUnit file the logs become, and open one of its own.
	const hostile = `TestRegister/"/><testcase_name="TestX"><skipped/></testcase><!--&`
	var res actionResult
	for i := range 3 {
		head := h.repo.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
		pr := h.openPR(head)
		runID := int64(5000 + i)
		h.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: pr.HeadRef, SHA: head, Event: "pull_request", Status: "completed", Conclusion: "failure",
			Jobs: []ghfake.Job{{ID: runID * 10, Name: "test", Conclusion: "failure", Log: goTestLog(map[string]string{testDup: "fail", "TestRegister_OK": "pass", hostile: "fail"})}}})
		res = h.run("workflow_run", workflowRunEvent(t, runID, pr))
		if want := []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped}[i]; res.code != want {
			t.Fatalf("run %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
	}
	if !strings.Contains(res.stdout, "read 3 tests from the logs of 1 failed jobs of run 5002") {
		t.Errorf("the run does not say it read the job logs:\n%s", res.stdout)
	}
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "TestX") {
			t.Errorf("a test name broke out of the results file the logs became: %q", line)
		}
	}
	if left, _ := os.ReadDir(h.env["RUNNER_TEMP"]); len(left) != 0 {
		t.Errorf("the scratch directory was not removed: %v", left)
	}
}

// Hostile artifacts are refused with a clear error (exit 1) and nothing is
// written outside the scratch directory.
func TestAction_WorkflowRunRefusesHostileArtifacts(t *testing.T) {
	t.Parallel()
	raw := func(build func(zw *zip.Writer)) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			build(zw)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
	}
	tests := map[string]func(t *testing.T) []byte{
		"climbs out": func(t *testing.T) []byte { return zipOf(t, map[string]string{"../escaped.xml": "<testsuite/>"}) },
		"absolute":   func(t *testing.T) []byte { return zipOf(t, map[string]string{"/tmp/escaped.xml": "<testsuite/>"}) },
		"symlink": raw(func(zw *zip.Writer) {
			h := &zip.FileHeader{Name: "junit.xml"}
			h.SetMode(os.ModeSymlink | 0o777)
			w, _ := zw.CreateHeader(h)
			w.Write([]byte("/proc/self/environ"))
		}),
		"100,000 entries": raw(func(zw *zip.Writer) {
			for i := range 100_000 {
				zw.Create("r/" + strconv.Itoa(i))
			}
		}),
		"10 GiB claimed": raw(func(zw *zip.Writer) {
			w, _ := zw.CreateRaw(&zip.FileHeader{Name: "bomb.xml", Method: zip.Store, CompressedSize64: 4, UncompressedSize64: 10 << 30})
			w.Write([]byte("boom"))
		}),
	}
	for name, archive := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			h.inputs["results-artifact"] = "test-results"
			temp := t.TempDir()
			h.env["RUNNER_TEMP"] = temp
			_, head := h.spiral(1)
			pr := h.openPR(head)
			h.srv.AddArtifact(77, "test-results", archive(t))
			res := h.run("workflow_run", workflowRunEvent(t, 77, pr))
			if res.code != cli.ExitError || !strings.Contains(res.stdout, "not unpacked") {
				t.Fatalf("exit %d; want 1 and a clear error\n%s", res.code, res.stdout)
			}
			if left, _ := os.ReadDir(temp); len(left) != 0 {
				t.Errorf("files left in RUNNER_TEMP: %v", left)
			}
			if n := len(h.srv.CheckRuns()); n != 0 {
				t.Errorf("%d check runs written from a refused artifact", n)
			}
		})
	}
}

// Without the input, or without the artifact, the run fails naming the fix.
func TestAction_WorkflowRunNeedsItsArtifact(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(1)
	pr := h.openPR(head)
	res := h.run("workflow_run", workflowRunEvent(t, 78, pr))
	if res.code != cli.ExitError || !strings.Contains(res.stdout, "input results-artifact is empty") {
		t.Errorf("no input: exit %d\n%s", res.code, res.stdout)
	}
	h.inputs["results-artifact"] = "test-results"
	res = h.run("workflow_run", workflowRunEvent(t, 78, pr))
	if res.code != cli.ExitError || !strings.Contains(res.stdout, "no such artifact") {
		t.Errorf("no artifact: exit %d\n%s", res.code, res.stdout)
	}
}
