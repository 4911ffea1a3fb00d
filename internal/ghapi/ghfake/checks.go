package ghfake

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// The app GITHUB_TOKEN writes as: check runs created through the API belong
// to it unless SetCheckApp says otherwise.
const (
	ActionsAppID   = 15368
	ActionsAppSlug = "github-actions"
)

// CheckRun is a check run the server holds.
type CheckRun struct {
	ID          int64
	Name        string
	HeadSHA     string
	Conclusion  string
	Title       string
	Summary     string
	Text        string
	Annotations int
	AppID       int64
	AppSlug     string
}

// CheckRuns returns the check runs, oldest first.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CheckRun(nil), s.checkRuns...)
}

// AddCheckRun stores a check run as another app or person would write it
// (AppID and AppSlug as given) and returns its id.
func (s *Server) AddCheckRun(run CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	run.ID = s.nextID
	s.checkRuns = append(s.checkRuns, run)
	return run.ID
}

// SetCheckRunText rewrites a check run's output text, as an edit through
// the API by whoever holds a token of its app would.
func (s *Server) SetCheckRunText(id int64, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.checkRuns {
		if s.checkRuns[i].ID == id {
			s.checkRuns[i].Text = text
		}
	}
}

// SetPullRequestCommits sets the commits GraphQL lists for pull request
// pr, oldest first. Without it, every commit that has a check run is
// listed.
func (s *Server) SetPullRequestCommits(pr int, shas []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prCommits[pr] = append([]string(nil), shas...)
}

// AddForcePush records a HeadRefForcePushedEvent on pull request pr whose
// before-commit was before.
func (s *Server) AddForcePush(pr int, before string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forcePushes[pr] = append(s.forcePushes[pr], before)
}

// SetDefaultBranch sets the repository's default branch and its tip, as
// GraphQL's defaultBranchRef gives them; until called there is none.
func (s *Server) SetDefaultBranch(name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defaultBranch, s.defaultSHA = name, sha
}

// SetCommitLogin makes GraphQL tie commit sha's author to the GitHub user
// login (the committer stays unknown).
func (s *Server) SetCommitLogin(sha, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commitLogins[sha] = login
}

// GraphQLQueries returns the text of every GraphQL query received.
func (s *Server) GraphQLQueries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name       string `json:"name"`
		HeadSHA    string `json:"head_sha"`
		Status     string `json:"status"`
		Conclusion string `json:"conclusion"`
		Output     struct {
			Title       string            `json:"title"`
			Summary     string            `json:"summary"`
			Text        string            `json:"text"`
			Annotations []json.RawMessage `json:"annotations"`
		} `json:"output"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", docsURL+"/checks/runs#create-a-check-run")
		return
	}
	switch {
	case in.Name == "" || !isSHA(in.HeadSHA):
		writeError(w, http.StatusUnprocessableEntity, "Invalid request: name and head_sha are required", docsURL+"/checks/runs#create-a-check-run")
		return
	case len(in.Output.Text) > 65535 || len(in.Output.Summary) > 65535:
		writeError(w, http.StatusUnprocessableEntity, "Invalid request: output is too long", docsURL+"/checks/runs#create-a-check-run")
		return
	case len(in.Output.Annotations) > 50:
		writeError(w, http.StatusUnprocessableEntity, "Invalid request: at most 50 annotations", docsURL+"/checks/runs#create-a-check-run")
		return
	}
	s.mu.Lock()
	s.nextID++
	run := CheckRun{ID: s.nextID, Name: in.Name, HeadSHA: in.HeadSHA, Conclusion: in.Conclusion,
		Title: in.Output.Title, Summary: in.Output.Summary, Text: in.Output.Text,
		Annotations: len(in.Output.Annotations), AppID: ActionsAppID, AppSlug: ActionsAppSlug}
	s.checkRuns = append(s.checkRuns, run)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"id": run.ID, "name": run.Name, "head_sha": run.HeadSHA, "status": "completed", "conclusion": run.Conclusion,
		"app": map[string]any{"id": run.AppID, "slug": run.AppSlug},
	})
}

// graphql answers the breaker's two ledger queries from the server's
// state. It does not parse the query: the queries are checked against
// GitHub's schema in a test of their own; here the variables say which.
func (s *Server) graphql(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Query     string
		Variables map[string]any
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", docsURL+"/graphql")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, in.Query)
	str := func(k string) string { v, _ := in.Variables[k].(string); return v }
	if !strings.EqualFold(str("owner"), s.owner) || !strings.EqualFold(str("name"), s.repo) {
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": nil},
			"errors": []any{map[string]any{"type": "NOT_FOUND", "message": "Could not resolve to a Repository"}}})
		return
	}
	check, tagPrefix := str("checkName"), str("tagPrefix")
	repo := map[string]any{"refs": map[string]any{"nodes": s.tagNodes(tagPrefix)}, "defaultBranchRef": nil}
	if s.defaultSHA != "" {
		repo["defaultBranchRef"] = map[string]any{"name": s.defaultBranch, "target": map[string]any{"oid": s.defaultSHA}}
	}
	if n, ok := in.Variables["number"].(float64); ok {
		repo["pullRequest"] = s.pullRequestNode(int(n), check, str("after"))
	} else {
		var nodes []any
		for _, sha := range s.runHeads() {
			nodes = append(nodes, s.commitNode(sha, check))
		}
		repo["ref"] = map[string]any{"target": map[string]any{"history": map[string]any{"nodes": orEmpty(nodes)}}}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": repo}})
}

func (s *Server) pullRequestNode(pr int, check, after string) map[string]any {
	shas, ok := s.prCommits[pr]
	if !ok {
		shas = s.runHeads()
	}
	start, _ := strconv.Atoi(after)
	end := min(start+100, len(shas))
	var commits []any
	for _, sha := range shas[min(start, end):end] {
		node := s.commitNode(sha, check)
		node["author"], node["committer"] = nil, nil
		if login, ok := s.commitLogins[sha]; ok {
			node["author"] = map[string]any{"user": map[string]any{"login": login}}
			node["committer"] = map[string]any{"user": nil}
		}
		commits = append(commits, map[string]any{"commit": node})
	}
	var timeline []any
	for _, before := range s.forcePushes[pr] {
		timeline = append(timeline, map[string]any{"beforeCommit": s.commitNode(before, check)})
	}
	var comments []any
	total := 0
	for _, c := range s.comments {
		if c.Issue != pr {
			continue
		}
		total++
		comments = append(comments, map[string]any{"databaseId": c.ID, "body": c.Body, "isMinimized": c.Minimized,
			"author": map[string]any{"login": c.Author}})
	}
	if len(comments) > 100 {
		comments = comments[len(comments)-100:]
	}
	return map[string]any{
		"commits": map[string]any{
			"pageInfo": map[string]any{"hasNextPage": end < len(shas), "endCursor": strconv.Itoa(end)},
			"nodes":    orEmpty(commits),
		},
		"timelineItems": map[string]any{"nodes": orEmpty(timeline)},
		"comments":      map[string]any{"totalCount": total, "nodes": orEmpty(comments)},
	}
}

// commitNode is a commit with the check suites of its check runs named
// check, one suite per app.
func (s *Server) commitNode(sha, check string) map[string]any {
	type suite struct {
		id   int64
		slug string
		runs []any
	}
	var suites []*suite
	for _, run := range s.checkRuns {
		if run.HeadSHA != sha || (check != "" && run.Name != check) {
			continue
		}
		var su *suite
		for _, x := range suites {
			if x.id == run.AppID {
				su = x
			}
		}
		if su == nil {
			su = &suite{id: run.AppID, slug: run.AppSlug}
			suites = append(suites, su)
		}
		su.runs = append(su.runs, map[string]any{"databaseId": run.ID, "text": run.Text})
	}
	var nodes []any
	for _, su := range suites {
		nodes = append(nodes, map[string]any{"app": map[string]any{"databaseId": su.id, "slug": su.slug},
			"checkRuns": map[string]any{"nodes": su.runs}})
	}
	return map[string]any{"oid": sha, "checkSuites": map[string]any{"nodes": orEmpty(nodes)}}
}

// runHeads are the heads of every check run, in the order first written.
func (s *Server) runHeads() []string {
	seen := map[string]bool{}
	var out []string
	for _, run := range s.checkRuns {
		if !seen[run.HeadSHA] {
			seen[run.HeadSHA] = true
			out = append(out, run.HeadSHA)
		}
	}
	return out
}

// tagNodes lists the tags under prefix ("refs/tags/greenlight/"), named
// relative to it as GitHub's refs connection does.
func (s *Server) tagNodes(prefix string) []any {
	var names []string
	for ref := range s.refs {
		if strings.HasPrefix("refs/"+ref, prefix) {
			names = append(names, ref)
		}
	}
	sort.Strings(names)
	nodes := []any{}
	for _, ref := range names {
		nodes = append(nodes, map[string]any{"name": strings.TrimPrefix("refs/"+ref, prefix),
			"target": map[string]any{"oid": s.refs[ref]}})
	}
	return nodes
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}
