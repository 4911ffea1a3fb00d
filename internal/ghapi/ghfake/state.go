package ghfake

import (
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// AddPullRequest adds or replaces a pull request of the hosted
// repository. An empty State means "open"; Fork makes the head
// repository Author's fork.
func (s *Server) AddPullRequest(pr forge.PullRequest) {
	if pr.State == "" {
		pr.State = "open"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr.Labels == nil {
		pr.Labels = s.prs[pr.Number].Labels // labels stay, as on GitHub
	}
	if pr.Assignees == nil {
		pr.Assignees = s.prs[pr.Number].Assignees
	}
	pr.Draft = pr.Draft || s.prs[pr.Number].Draft // a draft stays one until marked ready
	s.prs[pr.Number] = pr
	s.touches++
	s.touched[pr.Number] = s.touches
}

// EditPullRequest changes pull request number as another token does
// between two runs: what the agent's own token may do with
// pull-requests: write (labels: DELETE and POST /issues/{n}/labels,
// assignees: POST /issues/{n}/assignees, the markPullRequestReadyForReview
// mutation), the way GitHub's REST and GraphQL references describe them.
func (s *Server) EditPullRequest(number int, edit func(pr *forge.PullRequest)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.prs[number]
	pr.Labels, pr.Assignees = append([]string(nil), pr.Labels...), append([]string(nil), pr.Assignees...)
	edit(&pr)
	s.prs[number] = pr
}

// Assignees returns the logins assigned to pull request number.
func (s *Server) Assignees(number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prs[number].Assignees...)
}

// ReviewRequests returns the people and teams ("team:SLUG") asked to
// review pull request number.
func (s *Server) ReviewRequests(number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reviewRequests[number]...)
}

// Draft says whether pull request number is a draft.
func (s *Server) Draft(number int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prs[number].Draft
}

// AddIssue adds issue number (not a pull request) with its assignees, and
// says the pull requests in closedBy close it ("Fixes #N").
func (s *Server) AddIssue(number int, assignees []string, closedBy ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issues[number] = append([]string(nil), assignees...)
	for _, pr := range closedBy {
		s.closing[pr] = append(s.closing[pr], number)
		s.crossRefs[number] = append(s.crossRefs[number], pr)
	}
}

// IssueAssignees returns the assignees of issue number (AddIssue).
func (s *Server) IssueAssignees(number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issues[number]...)
}

// Labels returns the labels of pull request number.
func (s *Server) Labels(number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prs[number].Labels...)
}

// AddComment adds a comment by author on pull request pr and returns
// its ID. The pull request need not have been added.
func (s *Server) AddComment(pr int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addComment(pr, author, body)
}

func (s *Server) addComment(pr int, author, body string) int64 {
	s.nextCommentID++
	s.comments = append(s.comments, comment{ID: s.nextCommentID, Issue: pr, Author: author, Body: body})
	return s.nextCommentID
}

// SetCommentTime sets when comment id was posted (its created_at, and
// updated_at with it).
func (s *Server) SetCommentTime(id int64, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments {
		if s.comments[i].ID == id {
			s.comments[i].Created = at
		}
	}
}

// MinimizeComment hides comment id, as a human's "Hide" does.
func (s *Server) MinimizeComment(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments {
		if s.comments[i].ID == id {
			s.comments[i].Minimized = true
		}
	}
}

// Comments returns the comments on pull request pr, oldest first.
func (s *Server) Comments(pr int) []forge.Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []forge.Comment
	for _, c := range s.comments {
		if c.Issue == pr {
			out = append(out, forge.Comment{ID: c.ID, Author: c.Author, Body: c.Body})
		}
	}
	return out
}

// SetPermission sets login's permission on the repository: "admin",
// "maintain", "write", "triage", "read" or "none". As on GitHub, the
// response's "permission" field says "write" for maintain and "read"
// for triage, and "role_name" gives the role. Logins never set answer
// "none".
func (s *Server) SetPermission(login, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perms[strings.ToLower(login)] = perm
}

// SetUser makes GET /user answer login and makes comments written
// through the API authored by login. Until it is called, GET /user
// answers 403 and API comments are authored by BotLogin, as with a
// workflow's GITHUB_TOKEN. SetUser("") restores that.
func (s *Server) SetUser(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = login
}

// SetRef sets a ref, named without "refs/" (e.g. "tags/v1"), to sha.
func (s *Server) SetRef(ref, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs[strings.TrimPrefix(ref, "refs/")] = sha
}

// Ref returns the SHA a ref (named without "refs/") points at.
func (s *Server) Ref(ref string) (sha string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok = s.refs[strings.TrimPrefix(ref, "refs/")]
	return sha, ok
}

// Refs returns a copy of every ref, keyed by name without "refs/".
func (s *Server) Refs() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.refs))
	for k, v := range s.refs {
		out[k] = v
	}
	return out
}

// AddCommit records a commit object so that GET git/commits/{sha}
// answers it and fast-forward checks on ref updates can walk it.
func (s *Server) AddCommit(sha, tree, message string, parents ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits[sha] = commit{Tree: tree, Message: message, Parents: parents}
}

// Commit returns a commit object known to the server, including those
// created through the API.
func (s *Server) Commit(sha string) (tree, message string, parents []string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.commits[sha]
	return c.Tree, c.Message, append([]string(nil), c.Parents...), ok
}

// descends reports whether sha has ancestor among its ancestors (or is
// it). Unknown commits end the walk. The caller holds s.mu.
func (s *Server) descends(sha, ancestor string) bool {
	seen := map[string]bool{}
	queue := []string{sha}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == ancestor {
			return true
		}
		if seen[cur] {
			continue
		}
		seen[cur] = true
		queue = append(queue, s.commits[cur].Parents...)
	}
	return false
}

// Tags returns a copy of the tags, keyed by name without "refs/" (e.g.
// "tags/greenlight/checkpoint/S-3"): the refs the breaker writes, without
// the branches pushes made.
func (s *Server) Tags() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.refs {
		if strings.HasPrefix(k, "tags/") {
			out[k] = v
		}
	}
	return out
}

// BodyRuleViolation is GitHub's message when a repository ruleset refuses
// a ref (HTTP 422), as users' reports quote it.
const BodyRuleViolation = "Repository rule violations found\n\nCannot create ref due to creations being restricted.\n\n"

// SetRuleset makes a ruleset restrict creating refs under prefix (named
// without "refs/", e.g. "tags/"): POST git/refs there answers 422.
func (s *Server) SetRuleset(prefix string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ruleset = prefix
}

// DeleteRef deletes a ref, named without "refs/", as a person deleting a
// tag by hand would.
func (s *Server) DeleteRef(ref string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refs, strings.TrimPrefix(ref, "refs/"))
}

// EditCommentAs changes comment id's body as its author editing it on
// GitHub would: updated_at moves past created_at.
func (s *Server) EditCommentAs(id int64, body string) {
	s.changeComment(id, func(c *comment) { c.Body = body; c.Edits++ })
}

// changeComment applies change to comment id under the lock and returns
// the comment as it is then; ok is false when there is no such comment.
func (s *Server) changeComment(id int64, change func(*comment)) (c comment, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.comments, func(c comment) bool { return c.ID == id })
	if i < 0 {
		return comment{}, false
	}
	change(&s.comments[i])
	return s.comments[i], true
}

// RemoveComment deletes comment id, as its author deleting it would.
func (s *Server) RemoveComment(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.comments = slices.DeleteFunc(s.comments, func(c comment) bool { return c.ID == id })
}

// Comment returns comment id as the server holds it.
func (s *Server) Comment(id int64) (forge.Comment, bool) {
	c, ok := s.changeComment(id, func(*comment) {})
	return forge.Comment{ID: c.ID, Author: c.Author, Body: c.Body, Edited: c.Edits > 0}, ok
}

// CommentsByAuthor returns the comments on pull request pr by login,
// oldest first.
func (s *Server) CommentsByAuthor(pr int, login string) []forge.Comment {
	var out []forge.Comment
	for _, c := range s.Comments(pr) {
		if c.Author == login {
			out = append(out, c)
		}
	}
	return out
}
