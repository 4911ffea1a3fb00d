package forge

import (
	"context"
	"errors"
	"time"
)

// ErrBudget: the request would pass the request budget the caller set
// (`breaker replay --budget`); it was not sent.
var ErrBudget = errors.New("the request budget is spent")

// PastPullRequest is a pull request as `breaker replay` reads it: what it
// was, when, and how it ended.
type PastPullRequest struct {
	PullRequest
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	ClosedAt  time.Time // zero while open
	MergedAt  time.Time // zero unless merged
}

// WorkflowRun is one run of a workflow, as GitHub lists it.
type WorkflowRun struct {
	ID         int64
	Name       string // the workflow's name
	Event      string
	HeadSHA    string
	HeadBranch string
	Status     string // queued, in_progress, completed
	Conclusion string // success, failure, cancelled, skipped, timed_out, ...; "" while running
	Attempt    int
	CreatedAt  time.Time
	StartedAt  time.Time // run_started_at: when this attempt started
	UpdatedAt  time.Time // when it last changed: its end, once completed
	// PullRequests are the open pull requests GitHub associated with the
	// run when it was listed (empty once they closed, as GitHub says).
	PullRequests []RunPullRequest
}

// RunPullRequest is a pull request a workflow run names, with the base it
// had then.
type RunPullRequest struct {
	Number  int
	BaseSHA string
	BaseRef string
}

// Job is one job of a workflow run.
type Job struct {
	ID         int64
	Name       string
	Conclusion string
}

// RunFilter narrows a listing of workflow runs; empty fields do not.
type RunFilter struct {
	Workflow string // the workflow file name (ci.yml) or id; "" = every workflow
	Branch   string
	HeadSHA  string
	Event    string
	// Actor is the login whose push made the runs (GitHub's actor: "the
	// user who created the push associated with the workflow run").
	Actor string
}

// JobLogs reads a workflow run's failed jobs' logs: the results of a run
// that uploaded none.
type JobLogs interface {
	// FailedJobs lists the jobs of run runID's latest attempt that failed.
	FailedJobs(ctx context.Context, runID int64) ([]Job, error)
	// JobLog returns job jobID's log, at most max bytes (its end is kept
	// when it is longer: a runner's summary is at the end).
	JobLog(ctx context.Context, jobID int64, max int64) ([]byte, error)
}

// History reads a repository's past: its pull requests, their workflow
// runs, and what those runs left (artifacts, job logs). `breaker replay`
// needs only a read token for it.
// Each method is one API request (DownloadArtifact is two: the artifact's
// listing by name and the redirect; JobLog one, and each also reads the
// file from the host GitHub redirects to), so a caller can keep a budget.
type History interface {
	// PullRequestsPage lists one page (100) of the pull requests, newest
	// created first; more says another page follows.
	PullRequestsPage(ctx context.Context, page int) (prs []PastPullRequest, more bool, err error)
	// WorkflowRunsPage lists one page (100) of the runs the filter
	// selects, newest first.
	WorkflowRunsPage(ctx context.Context, f RunFilter, page int) (runs []WorkflowRun, more bool, err error)
	// ArtifactNames lists run runID's unexpired artifacts.
	ArtifactNames(ctx context.Context, runID int64) ([]string, error)
	Artifacts
	JobLogs
	// ListComments lists pull request pr's comments, oldest first (a
	// maintainer's /breaker reset among them).
	ListComments(ctx context.Context, pr int) ([]Comment, error)
	// Permission is login's permission on the repository now ("admin",
	// "maintain", "write", "triage", "read" or "none").
	Permission(ctx context.Context, login string) (string, error)
}
