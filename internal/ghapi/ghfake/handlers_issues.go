package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/forge"
)

const docsURL = "https://docs.github.com/rest"

func (s *Server) getUser(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	login := s.user
	s.mu.Unlock()
	if login == "" {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration", docsURL+"/users/users#get-the-authenticated-user")
		return
	}
	// GET /user answers a public-user (or private-user) object, told apart
	// by user_view_type.
	m := template("public-user")
	for k, v := range userJSON(login) {
		m[k] = v
	}
	m["user_view_type"] = "public"
	writeJSON(w, http.StatusOK, m)
}

// addLabels answers POST issues/{n}/labels: the issue's labels after
// (GitHub's "Add labels to an issue"; the body is {"labels": [...]}).
func (s *Server) addLabels(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var body struct {
		Labels []string `json:"labels"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil || len(body.Labels) == 0 {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.", docsURL+"/issues/labels#add-labels-to-an-issue")
		return
	}
	s.mu.Lock()
	pr, ok := s.prs[n]
	if ok {
		for _, l := range body.Labels {
			if !slices.Contains(pr.Labels, l) {
				pr.Labels = append(pr.Labels, l)
			}
		}
		s.prs[n] = pr
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/labels#add-labels-to-an-issue")
		return
	}
	s.writeLabels(w, pr.Labels)
}

// removeLabel answers DELETE issues/{n}/labels/{name}: the labels left,
// or 404 "Label does not exist" when the issue does not carry it.
func (s *Server) removeLabel(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	name := r.PathValue("name")
	s.mu.Lock()
	pr, ok := s.prs[n]
	i := slices.Index(pr.Labels, name)
	if ok && i >= 0 {
		pr.Labels = slices.Delete(slices.Clone(pr.Labels), i, i+1)
		s.prs[n] = pr
	}
	s.mu.Unlock()
	if !ok || i < 0 {
		writeError(w, http.StatusNotFound, "Label does not exist", docsURL+"/issues/labels#remove-a-label-from-an-issue")
		return
	}
	s.writeLabels(w, pr.Labels)
}

// reviewers answers POST and DELETE pulls/{n}/requested_reviewers
// ({"reviewers": [...], "team_reviewers": [...]}): the pull request
// (pull-request-simple), 201 for a POST, 200 for a DELETE.
func (s *Server) reviewers(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var body struct {
		Reviewers     []string `json:"reviewers"`
		TeamReviewers []string `json:"team_reviewers"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.", docsURL+"/pulls/review-requests")
		return
	}
	names := slices.Clone(body.Reviewers)
	for _, t := range body.TeamReviewers {
		names = append(names, "team:"+t)
	}
	s.mu.Lock()
	pr, ok := s.prs[n]
	if ok {
		cur := s.reviewRequests[n]
		for _, x := range names {
			i := slices.Index(cur, x)
			switch {
			case r.Method == "POST" && i < 0:
				cur = append(slices.Clone(cur), x)
			case r.Method == "DELETE" && i >= 0:
				cur = slices.Delete(slices.Clone(cur), i, i+1)
			}
		}
		s.reviewRequests[n] = cur
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/pulls/review-requests")
		return
	}
	status := http.StatusOK
	if r.Method == "POST" {
		status = http.StatusCreated
	}
	writeJSON(w, status, s.pullJSON(pr, true))
}

// deleteIssuesPath routes DELETE issues/comments/{id} and DELETE
// issues/{number}/assignees, which ServeMux cannot tell apart.
func (s *Server) deleteIssuesPath(w http.ResponseWriter, r *http.Request) {
	a, b := r.PathValue("a"), r.PathValue("b")
	switch {
	case a == "comments":
		r.SetPathValue("id", b)
		s.deleteComment(w, r)
	case b == "assignees":
		r.SetPathValue("number", a)
		s.assign(w, r)
	default:
		s.unknown(w, r)
	}
}

// assign answers POST and DELETE issues/{n}/assignees ({"assignees":
// [...]}, GitHub's "Add assignees to an issue" and "Remove assignees from
// an issue"): the issue after, 201 for a POST, 200 for a DELETE.
func (s *Server) assign(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var body struct {
		Assignees []string `json:"assignees"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.", docsURL+"/issues/assignees")
		return
	}
	s.mu.Lock()
	pr, ok := s.prs[n]
	issue, isIssue := s.issues[n]
	if isIssue && !ok {
		pr, ok = forge.PullRequest{Number: n, State: "open", Assignees: issue}, true
	}
	if ok {
		for _, a := range body.Assignees {
			i := slices.Index(pr.Assignees, a)
			switch {
			case r.Method == "POST" && i < 0:
				pr.Assignees = append(slices.Clone(pr.Assignees), a)
			case r.Method == "DELETE" && i >= 0:
				pr.Assignees = slices.Delete(slices.Clone(pr.Assignees), i, i+1)
			}
		}
		if isIssue {
			s.issues[n] = pr.Assignees
		} else {
			s.prs[n] = pr
		}
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/assignees")
		return
	}
	status := http.StatusOK
	if r.Method == "POST" {
		status = http.StatusCreated
	}
	m := s.issueJSON(pr)
	if isIssue {
		delete(m, "pull_request") // an issue, not a pull request
		m["html_url"] = fmt.Sprintf("https://github.com/%s/%s/issues/%d", s.owner, s.repo, n)
	}
	writeJSON(w, status, m)
}

func (s *Server) writeLabels(w http.ResponseWriter, names []string) {
	out := make([]any, 0, len(names))
	for _, l := range names {
		out = append(out, s.labelJSON(l))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	pr, ok := s.prs[n]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/pulls/pulls#get-a-pull-request")
		return
	}
	writeJSON(w, http.StatusOK, s.pullJSON(pr, false))
}

// pullsForCommit lists the pull requests whose head is sha. As on GitHub,
// a fork's pull request is not among them: the endpoint lists the pull
// requests of the base repository's branches (actions/runner#3444 and
// users' reports: it answers [] for a fork's head).
func (s *Server) pullsForCommit(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	s.mu.Lock()
	var prs []forge.PullRequest
	for _, pr := range s.prs {
		if pr.HeadSHA == sha && !pr.Fork {
			prs = append(prs, pr)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(prs, func(a, b forge.PullRequest) int { return a.Number - b.Number })
	s.writePulls(w, prs)
}

// listPulls answers GET pulls: state (open by default, closed, all) and
// head ("owner:branch", the head repository's owner) filter, as GitHub's
// "List pull requests" does.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	head := r.URL.Query().Get("head")
	s.mu.Lock()
	var prs []forge.PullRequest
	for _, pr := range s.prs {
		owner := s.owner
		if pr.Fork {
			owner = pr.Author
		}
		if (state != "all" && pr.State != state) || (head != "" && !strings.EqualFold(head, owner+":"+pr.HeadRef)) {
			continue
		}
		prs = append(prs, pr)
	}
	s.sortPulls(r, prs)
	s.mu.Unlock()
	// per_page (default 30, max 100) and page, with the Link header, as
	// GitHub's "List pull requests" pages.
	perPage := min(max(queryInt(r, "per_page", 30), 1), s.maxPerPage)
	page := max(queryInt(r, "page", 1), 1)
	last := max((len(prs)+perPage-1)/perPage, 1)
	lo, hi := min((page-1)*perPage, len(prs)), min(page*perPage, len(prs))
	if link := s.linkHeader(r, perPage, page, last); link != "" {
		w.Header().Set("Link", link)
	}
	s.writePulls(w, prs[lo:hi])
}

func (s *Server) writePulls(w http.ResponseWriter, prs []forge.PullRequest) {
	out := make([]map[string]any, 0, len(prs))
	for _, pr := range prs {
		m := s.pullJSON(pr, true)
		s.mu.Lock()
		s.withTimes(m, pr.Number)
		s.mu.Unlock()
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

// issue returns the pull request number in the path, answering 404 when
// no such pull request was added.
func (s *Server) issue(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	_, ok := s.prs[n]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/comments")
	}
	return n, ok
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	n, ok := s.issue(w, r)
	if !ok {
		return
	}
	perPage := queryInt(r, "per_page", 30)
	perPage = min(max(perPage, 1), s.maxPerPage)
	page := max(queryInt(r, "page", 1), 1)
	var all []comment
	s.mu.Lock()
	for _, c := range s.comments {
		if c.Issue == n {
			all = append(all, c)
		}
	}
	s.mu.Unlock()
	last := max((len(all)+perPage-1)/perPage, 1)
	out := []map[string]any{}
	for i := (page - 1) * perPage; i < min(page*perPage, len(all)); i++ {
		out = append(out, s.commentJSON(all[i]))
	}
	if link := s.linkHeader(r, perPage, page, last); link != "" {
		w.Header().Set("Link", link)
	}
	writeJSON(w, http.StatusOK, out)
}

// linkHeader renders GitHub's pagination Link header.
func (s *Server) linkHeader(r *http.Request, perPage, page, last int) string {
	// GitHub's links keep the request's other parameters (a filter such
	// as name= or state=).
	at := func(p int, rel string) string {
		q := r.URL.Query()
		q.Set("per_page", strconv.Itoa(perPage))
		q.Set("page", strconv.Itoa(p))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.srv.URL, r.URL.EscapedPath(), q.Encode(), rel)
	}
	var parts []string
	if page > 1 {
		parts = append(parts, at(min(page-1, last), "prev"))
	}
	if page < last {
		parts = append(parts, at(page+1, "next"), at(last, "last"))
	}
	if page > 1 {
		parts = append(parts, at(1, "first"))
	}
	return strings.Join(parts, ", ")
}

func queryInt(r *http.Request, key string, def int) int {
	n, err := strconv.Atoi(r.URL.Query().Get(key))
	if err != nil {
		return def
	}
	return n
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	n, ok := s.issue(w, r)
	if !ok {
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.", docsURL+"/issues/comments#create-an-issue-comment")
		return
	}
	if tooLong(w, *in.Body) {
		return
	}
	s.mu.Lock()
	author := s.user
	if author == "" {
		author = s.botLogin
	}
	id := s.addComment(n, author, *in.Body)
	c := s.comments[len(s.comments)-1]
	s.mu.Unlock()
	w.Header().Set("Location", s.apiURL("/repos/%s/%s/issues/comments/%d", s.owner, s.repo, id))
	writeJSON(w, http.StatusCreated, s.commentJSON(c))
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Body *string `json:"body"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.", docsURL+"/issues/comments#update-an-issue-comment")
		return
	}
	if tooLong(w, *in.Body) {
		return
	}
	c, ok := s.changeComment(id, func(c *comment) { c.Body = *in.Body; c.Edits++ })
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/comments#update-an-issue-comment")
		return
	}
	writeJSON(w, http.StatusOK, s.commentJSON(c))
}

// getIssuesPath routes GET issues/{number}/comments ("List issue
// comments") and GET issues/comments/{comment_id} ("Get an issue
// comment").
func (s *Server) getIssuesPath(w http.ResponseWriter, r *http.Request) {
	a, b := r.PathValue("a"), r.PathValue("b")
	switch {
	case a == "comments":
		r.SetPathValue("id", b)
		s.getComment(w, r)
	case b == "comments":
		r.SetPathValue("number", a)
		s.listComments(w, r)
	default:
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/comments")
	}
}

// getComment answers GET issues/comments/{comment_id} ("Get an issue
// comment"): the comment, or 404 once it was deleted.
func (s *Server) getComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	c, ok := s.changeComment(id, func(*comment) {})
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/comments#get-an-issue-comment")
		return
	}
	writeJSON(w, http.StatusOK, s.commentJSON(c))
}

func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	i := slices.IndexFunc(s.comments, func(c comment) bool { return c.ID == id })
	if i >= 0 {
		s.comments = slices.Delete(s.comments, i, i+1)
	}
	s.mu.Unlock()
	if i < 0 {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/issues/comments#delete-an-issue-comment")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getPermission(w http.ResponseWriter, r *http.Request) {
	login := r.PathValue("login")
	s.mu.Lock()
	role, ok := s.perms[strings.ToLower(login)]
	s.mu.Unlock()
	if !ok {
		role = "none"
	}
	perm := role
	switch role {
	case "maintain":
		perm = "write"
	case "triage":
		perm = "read"
	}
	m := template("repository-collaborator-permission")
	m["permission"], m["role_name"] = perm, role
	u := userJSON(login)
	u["permissions"] = map[string]any{"admin": role == "admin", "maintain": role == "maintain" || role == "admin",
		"push": perm == "write" || perm == "admin", "triage": role != "read" && role != "none", "pull": role != "none"}
	u["role_name"] = role
	m["user"] = u
	writeJSON(w, http.StatusOK, m)
}

// maxCommentChars is GitHub's limit on a comment's body, in characters.
const maxCommentChars = 65536

// tooLong answers GitHub's 422 for a comment body over the limit.
func tooLong(w http.ResponseWriter, body string) bool {
	if utf8.RuneCountInString(body) <= maxCommentChars {
		return false
	}
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed",
		"errors": []any{map[string]any{"resource": "IssueComment", "code": "custom", "field": "body",
			"message": "body is too long (maximum is 65536 characters)"}},
		"documentation_url": docsURL + "/issues/comments#create-an-issue-comment",
	})
	return true
}
