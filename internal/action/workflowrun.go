package action

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/rx"
	"github.com/greenlight-ci/breaker/internal/testresult"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// maxArtifactZip caps the results artifact's archive.
const maxArtifactZip = 256 << 20

// onWorkflowRun is the hardened mode (DESIGN §7): the tested run has
// completed; the breaker, in a workflow of the default branch the agent
// cannot edit, judges its head from the results artifact that run
// uploaded. It checks nothing out and runs nothing of the branch: it reads
// the repository the workflow checked out at head_sha, and publishes as
// on pull_request (check run on head_sha, sticky comment, tag).
func onWorkflowRun(ctx context.Context, r *run, action string, wr actionenv.WorkflowRun) Outcome {
	if action != "completed" {
		r.ax.Logf("breaker: nothing to do for workflow_run %q; the breaker judges a run once it has completed", action)
		return Outcome{}
	}
	if r.in.ResultsArtifact == "" {
		return r.fail("the action is misconfigured", errors.New("input results-artifact is empty; on workflow_run the results come from the tested run's artifact: "+
			"name it (the name given to actions/upload-artifact in the tested workflow)"))
	}
	pr, err := runPullRequest(ctx, r, wr)
	if err != nil {
		return r.fail("cannot find the tested run's pull request", err)
	}
	if pr == nil && isPullRequestEvent(wr.Event) {
		// Judging head_branch as a branch of this repository would read
		// another branch's ledger (a fork's "main" is not ours): say so on
		// the head, where a required check waits for the verdict.
		err := fmt.Errorf("the tested run was a %s run of %s (%s:%s), but GitHub lists no open pull request of this repository with that head; "+
			"the breaker judges a pull request's pushes together and will not judge this one alone. Re-run this workflow once the pull request is open",
			wr.Event, breaker.ShortSHA(wr.HeadSHA), wr.HeadOwner, wr.HeadBranch)
		writeFailedCheck(ctx, r, wr.HeadSHA, "no pull request found for this run", err)
		return r.fail("no pull request found for the tested run", err)
	}
	switch wr.Conclusion {
	case "cancelled", "skipped":
		// The tested run is the agent's workflow: it may cancel itself after
		// uploading failing results. What it uploaded is judged; nothing
		// uploaded is results missing, counted like any other.
		r.in.TestsOutcome = wr.Conclusion
	}
	dir, cleanup, err := unpackResults(ctx, r, wr.ID)
	if errors.Is(err, forge.ErrNoArtifact) && failedRun(wr.Conclusion) {
		// No results artifact: the failed jobs' logs name the tests.
		if ldir, lcleanup, n, lerr := resultsFromLogs(ctx, r, wr.ID); lerr == nil && n > 0 {
			dir, cleanup, err = ldir, lcleanup, nil
			r.in.Results = []string{jobLogResults}
		} else if lerr != nil {
			r.note("the tested run uploaded no %s artifact, and its jobs' logs could not be read: %v", r.in.ResultsArtifact, lerr)
		}
	}
	switch {
	case err != nil && r.in.TestsOutcome != "":
		r.note("the tested run was %s and left no readable results (%v): counted as a push without results", wr.Conclusion, err)
		r.in.Results = nil // never the workspace's files: the tested run's artifact is the only source
	case err != nil:
		return r.fail("cannot read the tested run's results", err)
	default:
		defer cleanup()
		r.resultsDir = dir
	}
	return judge(ctx, r, wr.HeadSHA, wr.HeadBranch, pr, breaker.BaseFromEvent)
}

// isPullRequestEvent reports whether a run was triggered by a pull request.
func isPullRequestEvent(event string) bool {
	return event == "pull_request" || event == "pull_request_target"
}

// runPullRequest is the pull request a workflow_run tested: the one its
// payload lists, else the open one whose head is the run's head — of this
// repository's branches (commits/{sha}/pulls), else from the head
// repository's branch (a fork's: pulls?head=OWNER:BRANCH), which GitHub
// leaves out of both the payload and commits/{sha}/pulls. nil when none.
func runPullRequest(ctx context.Context, r *run, wr actionenv.WorkflowRun) (*forge.PullRequest, error) {
	if wr.PullRequest != nil {
		return wr.PullRequest, nil
	}
	found, ok, err := r.api.pulls.FindPullRequest(ctx, wr.HeadSHA)
	if err != nil {
		return nil, fmt.Errorf("look up the pull request of %s: %w", breaker.ShortSHA(wr.HeadSHA), err)
	}
	if !ok && wr.HeadOwner != "" && wr.HeadBranch != "" {
		found, ok, err = r.api.pulls.FindPullRequestByHead(ctx, wr.HeadOwner, wr.HeadBranch, wr.HeadSHA)
		if err != nil {
			return nil, fmt.Errorf("look up the pull request from %s:%s: %w", wr.HeadOwner, wr.HeadBranch, err)
		}
	}
	if !ok {
		return nil, nil
	}
	return &found, nil
}

// unpackResults downloads the results artifact of run runID — or, for a
// name ending in "*", every artifact it names (a matrix's legs) — and
// unpacks it into a fresh scratch directory, each artifact of a pattern
// in a folder of its name, removed by cleanup.
func unpackResults(ctx context.Context, r *run, runID int64) (dir string, cleanup func(), err error) {
	zips, err := r.api.artifacts.DownloadArtifacts(ctx, runID, r.in.ResultsArtifact, maxArtifactZip)
	if err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp(r.gh.RunnerTemp, "breaker-results-")
	if err != nil {
		return "", nil, fmt.Errorf("make a scratch directory: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	read := 0
	pattern := strings.HasSuffix(r.in.ResultsArtifact, "*")
	for _, z := range zips {
		into := dir
		if pattern {
			// upload-artifact refuses / and \ in a name, and .. is not a
			// name it gives: a folder of the name, checked all the same.
			if !artifactFolderRE().MatchString(z.Name) {
				cleanup()
				return "", nil, fmt.Errorf("artifact %q of run %d: not a name a folder can have", z.Name, runID)
			}
			into = filepath.Join(dir, z.Name)
			if err := os.Mkdir(into, 0o700); err != nil {
				cleanup()
				return "", nil, fmt.Errorf("make a scratch directory: %w", err)
			}
		}
		files, err := workspace.Unzip(z.Zip, into, workspace.DefaultArtifactLimits)
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("artifact %q of run %d: %w", z.Name, runID, err)
		}
		read += len(files)
	}
	r.note("read %d files from %d artifact(s) %s of run %d", read, len(zips), r.in.ResultsArtifact, runID)
	return dir, cleanup, nil
}

// artifactFolderRE is an artifact name that is safe as one folder's name.
var artifactFolderRE = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9._ -]{0,99}$`)

// The logs read when a tested run failed and uploaded no results
// artifact, bounded as breaker replay bounds them: at most maxJobLogs
// failed jobs, each log at most maxJobLogBytes (its end kept).
const (
	maxJobLogs     = 4
	maxJobLogBytes = 16 << 20
	jobLogResults  = "job-logs.xml" // the results file the logs become
)

// failedRun reports whether a run's conclusion is a failure whose jobs'
// logs may name failing tests.
func failedRun(conclusion string) bool {
	return conclusion == "failure" || conclusion == "timed_out"
}

// resultsFromLogs reads the tests the failed jobs' logs of run runID name
// (testresult.ReadJobLog: go test, jest, vitest, mocha, node:test,
// pytest, TAP, Maven, Gradle, dotnet) into one JUnit file, jobLogResults,
// in a fresh scratch directory removed by cleanup. n is how many tests it
// holds: 0 when the logs name none, and nothing is written.
func resultsFromLogs(ctx context.Context, r *run, runID int64) (dir string, cleanup func(), n int, err error) {
	jobs, err := r.api.logs.FailedJobs(ctx, runID)
	if err != nil {
		return "", nil, 0, err
	}
	var tests []testresult.Test
	seen := map[string]int{}
	var runners []string
	for i, j := range jobs {
		if i == maxJobLogs {
			r.note("run %d has %d failed jobs: the logs of the first %d were read", runID, len(jobs), maxJobLogs)
			break
		}
		data, err := r.api.logs.JobLog(ctx, j.ID, maxJobLogBytes)
		if err != nil {
			return "", nil, 0, fmt.Errorf("log of job %d: %w", j.ID, err)
		}
		l := testresult.ReadJobLog(data)
		for _, rn := range l.Runners {
			if !slices.Contains(runners, rn) {
				runners = append(runners, rn)
			}
		}
		for _, t := range l.Tests {
			key := t.Suite + "\x00" + t.Name
			if k, ok := seen[key]; ok {
				if t.Status.Failed() {
					tests[k].Status = t.Status
				}
				continue
			}
			seen[key] = len(tests)
			tests = append(tests, t)
		}
	}
	if len(tests) == 0 {
		return "", nil, 0, nil
	}
	body, err := junitOf(tests)
	if err != nil {
		return "", nil, 0, err
	}
	dir, err = os.MkdirTemp(r.gh.RunnerTemp, "breaker-results-")
	if err != nil {
		return "", nil, 0, fmt.Errorf("make a scratch directory: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	if err := os.WriteFile(filepath.Join(dir, jobLogResults), body, 0o600); err != nil {
		cleanup()
		return "", nil, 0, err
	}
	r.note("the tested run uploaded no %s artifact: read %d tests from the logs of %d failed jobs of run %d (%s)",
		r.in.ResultsArtifact, len(tests), min(len(jobs), maxJobLogs), runID, strings.Join(runners, ", "))
	return dir, cleanup, len(tests), nil
}

// junitOf writes tests as one JUnit suite, the form the results reader
// reads (encoding/xml escapes every name a log gave).
func junitOf(tests []testresult.Test) ([]byte, error) {
	type outcome struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Class   string   `xml:"classname,attr,omitempty"`
		Name    string   `xml:"name,attr"`
		Failure *outcome `xml:"failure"`
		Error   *outcome `xml:"error"`
		Skipped *outcome `xml:"skipped"`
	}
	suite := struct {
		XMLName xml.Name   `xml:"testsuite"`
		Name    string     `xml:"name,attr"`
		Cases   []testcase `xml:"testcase"`
	}{Name: "job logs"}
	for _, t := range tests {
		c := testcase{Class: t.Suite, Name: t.Name}
		switch t.Status {
		case breaker.StatusFail:
			c.Failure = &outcome{Message: "failed in the job log"}
		case breaker.StatusError:
			c.Error = &outcome{Message: "errored in the job log"}
		case breaker.StatusSkip:
			c.Skipped = &outcome{}
		}
		suite.Cases = append(suite.Cases, c)
	}
	body, err := xml.Marshal(suite)
	return append([]byte(xml.Header), body...), err
}
