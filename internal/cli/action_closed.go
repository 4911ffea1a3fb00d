package cli

import (
	"sort"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

// onClosed deletes the checkpoint and reset tags of the closed pull
// request's slices: the slices its commits name when the workspace has
// them, and the slice its branch name carries. A missing tag is success.
func (r *actionRun) onClosed(pr breaker.PullRequest) int {
	slices := r.closedSlices(pr)
	if len(slices) == 0 {
		r.ax.Logf("breaker: pull request #%d closed: it names no slice, so no tags to delete", pr.Number)
		return ExitClosed
	}
	err := r.deleteSliceTags(slices)
	r.writeNotesSummary("pull request closed")
	if err != nil {
		return r.fail("cannot delete the tags of the closed pull request", err)
	}
	return ExitClosed
}

// closedSlices lists the valid slice ids of a closed pull request, sorted.
func (r *actionRun) closedSlices(pr breaker.PullRequest) []string {
	set := map[string]bool{}
	if s := breaker.BranchSlice(pr.HeadRef); s != "" {
		set[s] = true
	}
	if r.in.Slice != "" {
		set[r.in.Slice] = true
	}
	// After a merge the base branch contains the head, so base..head is
	// empty: the base's tip as the pull request last saw it keeps its commits.
	opts := r.evalOptions(target{head: pr.HeadSHA, branch: pr.HeadRef})
	if pr.BaseSHA != "" {
		opts.Base = pr.BaseSHA
	}
	ev, err := r.deps.evaluate(r.ctx, opts)
	if err != nil {
		r.note("the commits of #%d could not be read (%v); deleting the tags of the slice its branch names", pr.Number, err)
	}
	key := policyFor(r.evalOptions(target{})).Key(breaker.TrailerSlice)
	for _, c := range ev.Commits {
		for _, s := range breaker.TrailerValues(c.Trailers, key) {
			set[s] = true
		}
	}
	var out []string
	for s := range set {
		if actionenv.ValidSlice(s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// writeNotesSummary writes a step summary made of the run's notes.
func (r *actionRun) writeNotesSummary(title string) {
	md := "## Circuit breaker: " + title + "\n" + r.notesMarkdown()
	if err := r.ax.WriteSummary(md); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	r.ax.Untrusted("breaker: " + title + "\n" + r.notesText())
}
