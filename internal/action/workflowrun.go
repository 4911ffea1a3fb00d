package action

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
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
	pr := wr.PullRequest
	if pr == nil {
		found, ok, err := r.forge.FindPullRequest(ctx, wr.HeadSHA)
		switch {
		case err != nil:
			r.note("could not look up the pull request of %s, so no comment: %v", breaker.ShortSHA(wr.HeadSHA), err)
		case ok:
			pr = &found
		}
	}
	dir, cleanup, err := unpackResults(ctx, r, wr.ID)
	if err != nil {
		return r.fail("cannot read the tested run's results", err)
	}
	defer cleanup()
	r.resultsDir = dir
	return judge(ctx, r, wr.HeadSHA, wr.HeadBranch, pr, breaker.BaseFromEvent)
}

// unpackResults downloads the results artifact of run runID and unpacks
// it into a fresh scratch directory, removed by cleanup.
func unpackResults(ctx context.Context, r *run, runID int64) (dir string, cleanup func(), err error) {
	data, err := r.forge.DownloadArtifact(ctx, runID, r.in.ResultsArtifact, maxArtifactZip)
	if err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp(r.gh.RunnerTemp, "breaker-results-")
	if err != nil {
		return "", nil, fmt.Errorf("make a scratch directory: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	files, err := workspace.Unzip(data, dir, workspace.DefaultArtifactLimits)
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("artifact %q of run %d: %w", r.in.ResultsArtifact, runID, err)
	}
	r.note("read %d files from artifact %s of run %d", len(files), r.in.ResultsArtifact, runID)
	return dir, cleanup, nil
}
