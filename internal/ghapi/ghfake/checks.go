package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The app GITHUB_TOKEN writes as: check runs created through the API belong
// to it unless WithApp says otherwise.
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
	// Suite tells apart the check suites of one app on one commit (GitHub
	// Actions makes one per workflow run); the zero value is the app's one
	// suite there.
	Suite int64
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
	s.nextCheckRunID++
	run.ID = s.nextCheckRunID
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
	s.nextCheckRunID++
	run := CheckRun{ID: s.nextCheckRunID, Name: in.Name, HeadSHA: in.HeadSHA, Conclusion: in.Conclusion,
		Title: in.Output.Title, Summary: in.Output.Summary, Text: in.Output.Text,
		Annotations: len(in.Output.Annotations), AppID: s.appID, AppSlug: s.appSlug}
	s.checkRuns = append(s.checkRuns, run)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.checkRunJSON(run))
}

// checkRunJSON is a check run as the REST API answers it.
func (s *Server) checkRunJSON(run CheckRun) map[string]any {
	m := template("check-run")
	stamp := epoch.Format(time.RFC3339)
	m["id"], m["node_id"], m["name"], m["head_sha"] = run.ID, "CR_"+strconv.FormatInt(run.ID, 36), run.Name, run.HeadSHA
	m["status"], m["conclusion"], m["started_at"], m["completed_at"] = "completed", run.Conclusion, stamp, stamp
	m["url"] = s.apiURL("/repos/%s/%s/check-runs/%d", s.owner, s.repo, run.ID)
	m["html_url"] = fmt.Sprintf("https://github.com/%s/%s/runs/%d", s.owner, s.repo, run.ID)
	m["details_url"], m["external_id"] = nil, ""
	m["check_suite"] = map[string]any{"id": 1_000_000_000 + run.AppID}
	SetPath(m, "output.title", run.Title)
	SetPath(m, "output.summary", run.Summary)
	SetPath(m, "output.text", run.Text)
	SetPath(m, "output.annotations_count", run.Annotations)
	SetPath(m, "output.annotations_url", s.apiURL("/repos/%s/%s/check-runs/%d/annotations", s.owner, s.repo, run.ID))
	SetPath(m, "app.id", run.AppID)
	SetPath(m, "app.slug", run.AppSlug)
	SetPath(m, "app.name", run.AppSlug)
	return m
}

// updateCheckRun is PATCH check-runs/{id}: a new name, conclusion or
// output, only from a token of the app that created the run.
func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name       *string `json:"name"`
		Conclusion *string `json:"conclusion"`
		Output     *struct {
			Title   string  `json:"title"`
			Summary string  `json:"summary"`
			Text    *string `json:"text"`
		} `json:"output"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", docsURL+"/checks/runs#update-a-check-run")
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	caller := s.appID
	if s.agentToken != "" && authorized(r.Header.Get("Authorization"), s.agentToken) {
		caller = ActionsAppID
	}
	s.mu.Lock()
	i := slices.IndexFunc(s.checkRuns, func(c CheckRun) bool { return c.ID == id })
	if i < 0 {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/checks/runs#update-a-check-run")
		return
	}
	if s.checkRuns[i].AppID != caller {
		s.mu.Unlock()
		writeError(w, http.StatusForbidden, fmt.Sprintf("Invalid app_id `%d` - check run can only be modified by the GitHub App that created it.", caller),
			docsURL+"/checks/runs#update-a-check-run")
		return
	}
	run := &s.checkRuns[i]
	if in.Name != nil {
		run.Name = *in.Name
	}
	if in.Conclusion != nil {
		run.Conclusion = *in.Conclusion
	}
	if in.Output != nil {
		run.Title, run.Summary = in.Output.Title, in.Output.Summary
		if in.Output.Text != nil {
			run.Text = *in.Output.Text
		}
	}
	out := *run
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.checkRunJSON(out))
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
		nodes = append(nodes, map[string]any{"__typename": "Ref", "name": strings.TrimPrefix("refs/"+ref, prefix),
			"target": map[string]any{"__typename": "Commit", "oid": s.refs[ref]}})
	}
	return nodes
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// DropCheckRunsAfter forgets every check run but the first n, as if the
// runs that wrote them never happened: a benchmark repeats one run on the
// same ledger.
func (s *Server) DropCheckRunsAfter(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < len(s.checkRuns) {
		s.checkRuns = s.checkRuns[:n]
	}
}
