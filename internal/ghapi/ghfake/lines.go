package ghfake

import (
	"slices"
	"sort"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// What the breaker reads to find an agent's other lines of work: the
// repository's pull requests (newest updated first, merged ones as
// GitHub lists them under MERGED), who closed one (ClosedEvent), and an
// issue's references, which its timeline keeps (CrossReferencedEvent)
// when the text that made them is edited away (GitHub Support in
// isaacs/github#1081: "It's not possible to remove issue references from
// the issue timeline"; github-tools/github#459).

// ClosePullRequest closes pull request number, unmerged, as login did
// (a person, or a bot: "github-actions[bot]").
func (s *Server) ClosePullRequest(number int, login string) {
	s.close(number, login, false)
}

// MergePullRequest marks pull request number merged (its commits landed
// on its base): GraphQL lists it under MERGED, never OPEN or CLOSED.
func (s *Server) MergePullRequest(number int) {
	s.close(number, "", true)
}

// close closes pull request number, by login when not "", merged or not.
func (s *Server) close(number int, login string, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.prs[number]
	pr.Number, pr.State = number, "closed"
	s.prs[number] = pr
	if login != "" {
		s.closedBy[number] = login
	}
	s.merged[number] = merged
	s.touches++
	s.touched[number] = s.touches
}

// UnlinkIssue edits pull request pr's body so that it no longer closes
// issue: closingIssuesReferences and closedByPullRequestsReferences drop
// it; the issue's timeline keeps the cross reference.
func (s *Server) UnlinkIssue(pr, issue int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing[pr] = slices.DeleteFunc(s.closing[pr], func(n int) bool { return n == issue })
}

// pullState is a pull request's state as GraphQL's PullRequestState says
// it.
func (s *Server) pullState(pr forge.PullRequest) string {
	if s.merged[pr.Number] {
		return "MERGED"
	}
	if pr.State == "closed" {
		return "CLOSED"
	}
	return "OPEN"
}

// recentPulls are the pull requests in the states asked for, newest
// updated first. Called with the lock held.
func (s *Server) recentPulls(args map[string]any) []any {
	states, _ := args["states"].([]any)
	var ns []int
	for n, pr := range s.prs {
		if len(states) == 0 || slices.Contains(states, any(s.pullState(pr))) {
			ns = append(ns, n)
		}
	}
	sort.Slice(ns, func(i, j int) bool { return s.touched[ns[i]] > s.touched[ns[j]] })
	out := make([]any, 0, len(ns))
	for _, n := range ns {
		out = append(out, s.pullRequestNode(n))
	}
	return out
}

// timelineOf are the items of pull request pr's timeline of the types
// asked for (all when none): its force pushes and its closing.
func (s *Server) timelineOf(pr int, args map[string]any) []any {
	types, _ := args["itemTypes"].([]any)
	want := func(t string) bool { return len(types) == 0 || slices.Contains(types, any(t)) }
	var out []any
	if want("HEAD_REF_FORCE_PUSHED_EVENT") {
		for _, before := range s.forcePushes[pr] {
			out = append(out, map[string]any{"__typename": "HeadRefForcePushedEvent", "beforeCommit": s.commitNode(before)})
		}
	}
	if by, ok := s.closedBy[pr]; ok && want("CLOSED_EVENT") {
		out = append(out, map[string]any{"__typename": "ClosedEvent", "actor": actorNode(by)})
	}
	return out
}

// issueTimeline are issue n's cross references from pull requests.
func (s *Server) issueTimeline(n int, args map[string]any) []any {
	types, _ := args["itemTypes"].([]any)
	if len(types) > 0 && !slices.Contains(types, any("CROSS_REFERENCED_EVENT")) {
		return nil // the fake records references only (no Development links)
	}
	var out []any
	for _, pr := range s.crossRefs[n] {
		out = append(out, map[string]any{"__typename": "CrossReferencedEvent", "willCloseTarget": slices.Contains(s.closing[pr], n),
			"source": map[string]any{"__typename": "PullRequest", "number": pr, "merged": s.merged[pr],
				"repository": map[string]any{"__typename": "Repository", "nameWithOwner": s.owner + "/" + s.repo}}})
	}
	return out
}
