package action

import (
	"context"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// dryRunForge reads from GitHub and writes only the ledger (the check
// run, which writeCheckRun concludes neutral): every other write is logged
// and reported as done, so the run goes on as it would, and the counts
// survive turning dry-run off.
type dryRunForge struct {
	Forge
	log func(string)
}

func (f *dryRunForge) CreateComment(_ context.Context, pr int, body string) (forge.Comment, error) {
	f.log("would create a comment on #" + strconv.Itoa(pr) + " (" + strconv.Itoa(len(body)) + " bytes)")
	return forge.Comment{Body: body}, nil
}

func (f *dryRunForge) EditComment(_ context.Context, id int64, body string) error {
	f.log("would edit comment " + strconv.FormatInt(id, 10) + " (" + strconv.Itoa(len(body)) + " bytes)")
	return nil
}

func (f *dryRunForge) DeleteComment(_ context.Context, id int64) error {
	f.log("would delete duplicate comment " + strconv.FormatInt(id, 10))
	return nil
}

func (f *dryRunForge) AddLabels(_ context.Context, issue int, labels []string) error {
	f.log("would label #" + strconv.Itoa(issue) + " " + strings.Join(labels, ", "))
	return nil
}

func (f *dryRunForge) RemoveLabel(_ context.Context, issue int, label string) error {
	f.log("would take label " + label + " off #" + strconv.Itoa(issue))
	return nil
}

func (f *dryRunForge) RemoveAssignees(_ context.Context, issue int, who []string) error {
	f.log("would unassign " + strings.Join(who, ", ") + " from #" + strconv.Itoa(issue))
	return nil
}

func (f *dryRunForge) AddAssignees(_ context.Context, issue int, who []string) error {
	f.log("would assign " + strings.Join(who, ", ") + " to #" + strconv.Itoa(issue))
	return nil
}

func (f *dryRunForge) RequestReview(_ context.Context, pr int, people, teams []string) error {
	f.log("would ask " + strings.Join(append(append([]string(nil), people...), teams...), ", ") + " to review #" + strconv.Itoa(pr))
	return nil
}

func (f *dryRunForge) RemoveReviewRequest(_ context.Context, pr int, people, teams []string) error {
	f.log("would take back the review request of #" + strconv.Itoa(pr))
	return nil
}

func (f *dryRunForge) ConvertToDraft(_ context.Context, _ string) error {
	f.log("would convert the pull request to a draft")
	return nil
}

func (f *dryRunForge) MarkReadyForReview(_ context.Context, _ string) error {
	f.log("would mark the pull request ready for review")
	return nil
}

func (f *dryRunForge) CancelRun(_ context.Context, id int64) error {
	f.log("would cancel workflow run " + strconv.FormatInt(id, 10))
	return nil
}

func (f *dryRunForge) CreateRef(_ context.Context, ref, sha string) error {
	f.log("would create " + ref + " at " + breaker.ShortSHA(sha))
	return nil
}

func (f *dryRunForge) UpdateRef(_ context.Context, ref, sha string, _ bool) error {
	f.log("would move " + ref + " to " + breaker.ShortSHA(sha))
	return nil
}

func (f *dryRunForge) DeleteRef(_ context.Context, ref string) error {
	f.log("would delete " + ref)
	return nil
}

func (f *dryRunForge) CreateCommit(_ context.Context, _, tree string, parents []string) (string, error) {
	f.log("would create a commit with tree " + breaker.ShortSHA(tree))
	if len(parents) > 0 {
		return parents[0], nil
	}
	return "", nil
}

func (f *dryRunForge) CreateCheckRun(ctx context.Context, run CheckRun) (int64, error) {
	f.log("wrote the ledger entry, check run " + run.Name + " (" + run.Conclusion + ") on " + breaker.ShortSHA(run.HeadSHA) + ": the one write of a dry run")
	return f.Forge.CreateCheckRun(ctx, run)
}
