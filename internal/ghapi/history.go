package ghapi

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/google/go-github/v60/github"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// The read of a repository's past (`breaker replay`) through the REST API:
// every call here needs only read access (pull requests, actions).

var _ forge.History = (*Client)(nil)

// PullRequestsPage lists one page of the pull requests (GET
// pulls?state=all&sort=created&direction=desc&per_page=100).
func (c *Client) PullRequestsPage(ctx context.Context, page int) ([]forge.PastPullRequest, bool, error) {
	var prs []*github.PullRequest
	resp, err := c.call("list the pull requests", func() (r *github.Response, err error) {
		prs, r, err = c.gh.PullRequests.List(ctx, c.owner, c.repo, &github.PullRequestListOptions{
			State: "all", Sort: "created", Direction: "desc", ListOptions: github.ListOptions{PerPage: 100, Page: page}})
		return r, err
	})
	if err != nil {
		return nil, false, err
	}
	out := make([]forge.PastPullRequest, 0, len(prs))
	for _, pr := range prs {
		out = append(out, forge.PastPullRequest{PullRequest: toPullRequest(pr), Title: pr.GetTitle(),
			CreatedAt: pr.GetCreatedAt().Time, UpdatedAt: pr.GetUpdatedAt().Time, ClosedAt: pr.GetClosedAt().Time, MergedAt: pr.GetMergedAt().Time})
	}
	return out, resp.NextPage != 0, nil
}

// WorkflowRunsPage lists one page of the runs f selects, newest first (GET
// actions/workflows/{file}/runs, or actions/runs without a workflow).
func (c *Client) WorkflowRunsPage(ctx context.Context, f forge.RunFilter, page int) ([]forge.WorkflowRun, bool, error) {
	opts := &github.ListWorkflowRunsOptions{Branch: f.Branch, HeadSHA: f.HeadSHA, Event: f.Event, Actor: f.Actor, ListOptions: github.ListOptions{PerPage: 100, Page: page}}
	var runs *github.WorkflowRuns
	resp, err := c.call("list the workflow runs", func() (r *github.Response, err error) {
		switch id, perr := strconv.ParseInt(f.Workflow, 10, 64); {
		case f.Workflow == "":
			runs, r, err = c.gh.Actions.ListRepositoryWorkflowRuns(ctx, c.owner, c.repo, opts)
		case perr == nil:
			runs, r, err = c.gh.Actions.ListWorkflowRunsByID(ctx, c.owner, c.repo, id, opts)
		default:
			runs, r, err = c.gh.Actions.ListWorkflowRunsByFileName(ctx, c.owner, c.repo, f.Workflow, opts)
		}
		return r, err
	})
	if err != nil {
		return nil, false, err
	}
	out := make([]forge.WorkflowRun, 0, len(runs.WorkflowRuns))
	for _, run := range runs.WorkflowRuns {
		out = append(out, toWorkflowRun(run))
	}
	return out, resp.NextPage != 0, nil
}

func toWorkflowRun(run *github.WorkflowRun) forge.WorkflowRun {
	w := forge.WorkflowRun{ID: run.GetID(), Name: run.GetName(), Event: run.GetEvent(),
		HeadSHA: run.GetHeadSHA(), HeadBranch: run.GetHeadBranch(), Status: run.GetStatus(), Conclusion: run.GetConclusion(),
		Attempt: run.GetRunAttempt(), CreatedAt: run.GetCreatedAt().Time, StartedAt: run.GetRunStartedAt().Time, UpdatedAt: run.GetUpdatedAt().Time}
	for _, pr := range run.PullRequests {
		w.PullRequests = append(w.PullRequests, forge.RunPullRequest{Number: pr.GetNumber(), BaseSHA: pr.GetBase().GetSHA(), BaseRef: pr.GetBase().GetRef()})
	}
	return w
}

// ArtifactNames lists run runID's unexpired artifacts (one page of 100:
// a run keeps at most a few).
func (c *Client) ArtifactNames(ctx context.Context, runID int64) ([]string, error) {
	var list *github.ArtifactList
	_, err := c.call(fmt.Sprintf("list the artifacts of run %d", runID), func() (r *github.Response, err error) {
		list, r, err = c.gh.Actions.ListWorkflowRunArtifacts(ctx, c.owner, c.repo, runID, &github.ListOptions{PerPage: 100})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, a := range list.Artifacts {
		if !a.GetExpired() {
			names = append(names, a.GetName())
		}
	}
	return names, nil
}

// FailedJobs lists the failed jobs of run runID's latest attempt (GET
// actions/runs/{id}/jobs?filter=latest, one page of 100).
func (c *Client) FailedJobs(ctx context.Context, runID int64) ([]forge.Job, error) {
	var jobs *github.Jobs
	_, err := c.call(fmt.Sprintf("list the jobs of run %d", runID), func() (r *github.Response, err error) {
		jobs, r, err = c.gh.Actions.ListWorkflowJobs(ctx, c.owner, c.repo, runID,
			&github.ListWorkflowJobsOptions{Filter: "latest", ListOptions: github.ListOptions{PerPage: 100}})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	var out []forge.Job
	for _, j := range jobs.Jobs {
		if j.GetConclusion() == "failure" {
			out = append(out, forge.Job{ID: j.GetID(), Name: j.GetName(), Conclusion: j.GetConclusion()})
		}
	}
	return out, nil
}

// JobLog downloads job jobID's log from the URL GitHub redirects to (the
// token is never sent there), keeping its last max bytes.
func (c *Client) JobLog(ctx context.Context, jobID int64, max int64) ([]byte, error) {
	op := fmt.Sprintf("download the log of job %d", jobID)
	var loc string
	if _, err := c.call(op, func() (*github.Response, error) {
		u, r, err := c.gh.Actions.GetWorkflowJobLogs(ctx, c.owner, c.repo, jobID, 0)
		if u != nil {
			loc = u.String()
		}
		return r, err
	}); err != nil {
		return nil, err
	}
	resp, err := c.redirected(ctx, op, "log", loc)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	t := &tail{max: int(max)}
	if _, err := io.Copy(t, resp.Body); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return t.bytes(), nil
}

// tail keeps the last max bytes written to it, in at most twice max of
// memory.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if len(t.buf)+len(p) > 2*t.max {
		keep := t.buf[len(t.buf)-(t.max-len(p)):]
		t.buf = append(t.buf[:0], keep...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) bytes() []byte {
	if len(t.buf) > t.max {
		return t.buf[len(t.buf)-t.max:]
	}
	return t.buf
}
