package action

import (
	"context"
	"sort"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// onClosed deletes the checkpoint and reset tags of the closed pull
// request's slices: the slices its commits name when the workspace has
// them, and the slice its branch name carries. A missing tag is success.
func onClosed(ctx context.Context, r *run, pr breaker.PullRequest) Outcome {
	slices := closedSlices(ctx, r, pr)
	if len(slices) == 0 {
		r.ax.Logf("breaker: pull request #%d closed: it names no slice, so no tags to delete", pr.Number)
		return Outcome{}
	}
	err := deleteSliceTags(ctx, r, slices)
	writeNotesSummary(r, "pull request closed")
	if err != nil {
		return r.fail("cannot delete the tags of the closed pull request", err)
	}
	return Outcome{}
}

// closedSlices lists the valid slice ids of a closed pull request, sorted.
func closedSlices(ctx context.Context, r *run, pr breaker.PullRequest) []string {
	set := map[string]bool{}
	if s := breaker.BranchSlice(pr.HeadRef); s != "" {
		set[s] = true
	}
	if r.in.Slice != "" {
		set[r.in.Slice] = true
	}
	// After a merge the base branch contains the head, so base..head is
	// empty: the base's tip as the pull request last saw it keeps its commits.
	snap, err := r.load(ctx, loadSpec{head: pr.HeadSHA, branch: pr.HeadRef, base: pr.BaseSHA, baseRef: pr.BaseRef, baseSource: breaker.BaseFromEvent, noResults: true})
	if err != nil {
		r.note("the commits of #%d could not be read (%v); deleting the tags of the slice its branch names", pr.Number, err)
	}
	for _, s := range snap.NamedSlices() {
		set[s] = true
	}
	var out []string
	for s := range set {
		if breaker.ValidSlice(s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
