package ghfake

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// WorkflowRun is a workflow run of the repository, as far as the fake
// keeps one: the on-trip cancel-workflows input lists and cancels them,
// and `breaker replay` reads past runs, their jobs and logs.
type WorkflowRun struct {
	ID     int64
	Branch string
	SHA    string
	Event  string
	Status string // queued, in_progress, completed
	// Cancelled is set when a request cancelled it.
	Cancelled bool
	// Workflow is the workflow's file name (ci.yml), Name its name.
	Workflow, Name string
	Conclusion     string // "" = null, as GitHub answers for a run not completed
	Attempt        int    // run_attempt; 0 = 1
	// CreatedAt, StartedAt (run_started_at) and UpdatedAt; zero = the
	// fake's epoch.
	CreatedAt, StartedAt, UpdatedAt time.Time
	// PullRequests are the open pull requests GitHub names in the run's
	// pull_requests (empty once they closed: GitHub's schema says "Pull
	// requests that are open with a head_sha or head_branch that matches").
	PullRequests []forge.RunPullRequest
	// Jobs are the run's jobs, each with its log.
	Jobs []Job
	// Actor is the login whose push made the run ("" = none said).
	Actor string
}

// Job is a job of a workflow run and its plain-text log, as the logs
// endpoint serves it (each line prefixed with its timestamp).
type Job struct {
	ID         int64
	Name       string
	Conclusion string
	Log        string
}

// AddWorkflowRun adds a workflow run.
func (s *Server) AddWorkflowRun(run WorkflowRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = append(s.runs, run)
}

// WorkflowRuns returns the workflow runs.
func (s *Server) WorkflowRuns() []WorkflowRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]WorkflowRun(nil), s.runs...)
}

// listRuns answers GET actions/runs (GitHub's "List workflow runs for a
// repository") and GET actions/workflows/{workflow}/runs ("List workflow
// runs for a workflow", by file name or id): filtered by branch, status,
// event and head_sha as GitHub does, newest first, per_page (default 30,
// max 100) and page with the Link header.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	workflow := r.PathValue("workflow")
	s.mu.Lock()
	var runs []WorkflowRun
	for _, run := range s.runs {
		if (q.Get("branch") == "" || run.Branch == q.Get("branch")) && (q.Get("status") == "" || run.Status == q.Get("status") || run.Conclusion == q.Get("status")) &&
			(q.Get("event") == "" || run.Event == q.Get("event")) && (q.Get("head_sha") == "" || strings.EqualFold(run.SHA, q.Get("head_sha"))) &&
			(q.Get("actor") == "" || strings.EqualFold(run.Actor, q.Get("actor"))) &&
			(workflow == "" || run.Workflow == workflow || strconv.FormatInt(workflowID(run.Workflow), 10) == workflow) {
			runs = append(runs, run)
		}
	}
	s.mu.Unlock()
	slices.SortStableFunc(runs, func(a, b WorkflowRun) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	perPage := min(max(queryInt(r, "per_page", 30), 1), s.maxPerPage)
	page := max(queryInt(r, "page", 1), 1)
	last := max((len(runs)+perPage-1)/perPage, 1)
	lo, hi := min((page-1)*perPage, len(runs)), min(page*perPage, len(runs))
	if link := s.linkHeader(r, perPage, page, last); link != "" {
		w.Header().Set("Link", link)
	}
	out := []any{}
	for _, run := range runs[lo:hi] {
		out = append(out, s.runJSON(run))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "workflow_runs": out})
}

// getRun answers GET actions/runs/{run} (GitHub's "Get a workflow run"):
// the run (schema workflow-run), or 404 "Not Found".
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("run"), 10, 64)
	s.mu.Lock()
	i := slices.IndexFunc(s.runs, func(run WorkflowRun) bool { return run.ID == id })
	var run WorkflowRun
	if i >= 0 {
		run = s.runs[i]
	}
	s.mu.Unlock()
	if i < 0 {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/actions/workflow-runs#get-a-workflow-run")
		return
	}
	writeJSON(w, http.StatusOK, s.runJSON(run))
}

// workflowID is the id the fake gives a workflow file.
func workflowID(file string) int64 {
	var h int64 = 7
	for _, c := range file {
		h = (h*31 + int64(c)) % 1_000_000_007
	}
	return h
}

// cancelRun answers POST actions/runs/{id}/cancel: 202 and {} for a run
// still going, 409 "Cannot cancel a workflow run that is completed." for
// one that is done (GitHub's answer).
func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("run"), 10, 64)
	s.mu.Lock()
	found, done := false, false
	for i := range s.runs {
		if s.runs[i].ID == id {
			found = true
			if s.runs[i].Status == "completed" {
				done = true
				break
			}
			s.runs[i].Status, s.runs[i].Cancelled = "completed", true
		}
	}
	s.mu.Unlock()
	switch {
	case !found:
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/actions/workflow-runs#cancel-a-workflow-run")
	case done:
		writeError(w, http.StatusConflict, "Cannot cancel a workflow run that is completed.", docsURL+"/actions/workflow-runs#cancel-a-workflow-run")
	default:
		writeJSON(w, http.StatusAccepted, map[string]any{})
	}
}

func orEpoch(t time.Time) string {
	if t.IsZero() {
		t = epoch
	}
	return t.UTC().Format(time.RFC3339)
}

// runJSON is a workflow run (schema workflow-run).
func (s *Server) runJSON(run WorkflowRun) map[string]any {
	m := template("workflow-run")
	m["id"], m["run_number"] = run.ID, run.ID
	m["head_branch"], m["head_sha"], m["event"], m["status"] = run.Branch, run.SHA, run.Event, run.Status
	m["url"] = s.apiURL("/repos/%s/%s/actions/runs/%d", s.owner, s.repo, run.ID)
	if run.Workflow != "" {
		m["path"], m["workflow_id"] = ".github/workflows/"+run.Workflow, workflowID(run.Workflow)
	}
	if run.Name != "" {
		m["name"] = run.Name
	}
	if run.Conclusion != "" {
		m["conclusion"] = run.Conclusion
	}
	m["run_attempt"] = max(run.Attempt, 1)
	if run.Actor != "" {
		m["actor"], m["triggering_actor"] = userJSON(run.Actor), userJSON(run.Actor)
	}
	m["created_at"], m["updated_at"] = orEpoch(run.CreatedAt), orEpoch(run.UpdatedAt)
	m["run_started_at"] = orEpoch(run.StartedAt)
	prs := []any{}
	for _, pr := range run.PullRequests {
		repo := map[string]any{"id": 1296269, "url": s.apiURL("/repos/%s/%s", s.owner, s.repo), "name": s.repo}
		prs = append(prs, map[string]any{"id": 100000 + pr.Number, "number": pr.Number,
			"url":  s.apiURL("/repos/%s/%s/pulls/%d", s.owner, s.repo, pr.Number),
			"head": map[string]any{"ref": run.Branch, "sha": run.SHA, "repo": repo},
			"base": map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA, "repo": repo}})
	}
	m["pull_requests"] = prs
	return m
}

// listJobs answers GET actions/runs/{run}/jobs ("List jobs for a workflow
// run"): the jobs of the run's latest attempt (filter=latest, the default).
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("run"), 10, 64)
	s.mu.Lock()
	var run *WorkflowRun
	for i := range s.runs {
		if s.runs[i].ID == id {
			run = &s.runs[i]
		}
	}
	var jobs []any
	if run != nil {
		for _, j := range run.Jobs {
			m := template("job")
			m["id"], m["node_id"], m["run_id"], m["name"] = j.ID, "CR_"+strconv.FormatInt(j.ID, 36), run.ID, j.Name
			m["head_sha"], m["head_branch"], m["status"] = run.SHA, run.Branch, "completed"
			m["conclusion"], m["workflow_name"] = j.Conclusion, run.Name
			m["run_url"] = s.apiURL("/repos/%s/%s/actions/runs/%d", s.owner, s.repo, run.ID)
			m["url"] = s.apiURL("/repos/%s/%s/actions/jobs/%d", s.owner, s.repo, j.ID)
			m["created_at"], m["started_at"], m["completed_at"] = orEpoch(run.StartedAt), orEpoch(run.StartedAt), orEpoch(run.UpdatedAt)
			jobs = append(jobs, m)
		}
	}
	s.mu.Unlock()
	if run == nil {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/actions/workflow-jobs#list-jobs-for-a-workflow-run")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(jobs), "jobs": orEmpty(jobs)})
}

// jobLogs answers GET actions/jobs/{job}/logs: 302 to a short-lived URL on
// another host (GitHub's "Download job logs for a workflow run").
func (s *Server) jobLogs(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("job"), 10, 64)
	if _, ok := s.jobLog(id); !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/actions/workflow-jobs#download-job-logs-for-a-workflow-run")
		return
	}
	w.Header().Set("Location", fmt.Sprintf("%s/_blobs/logs/%d", s.srv.URL, id))
	w.WriteHeader(http.StatusFound)
}

func (s *Server) logBlob(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("job"), 10, 64)
	s.mu.Lock()
	s.blobAuth = append(s.blobAuth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	log, ok := s.jobLog(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte(log))
}

func (s *Server) jobLog(id int64) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, run := range s.runs {
		for _, j := range run.Jobs {
			if j.ID == id {
				return j.Log, true
			}
		}
	}
	return "", false
}
