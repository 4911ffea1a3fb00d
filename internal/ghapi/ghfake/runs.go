package ghfake

import (
	"net/http"
	"strconv"
)

// WorkflowRun is a workflow run of the repository, as far as the fake
// keeps one: the on-trip cancel-workflows input lists and cancels them.
type WorkflowRun struct {
	ID     int64
	Branch string
	SHA    string
	Event  string
	Status string // queued, in_progress, completed
	// Cancelled is set when a request cancelled it.
	Cancelled bool
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
// repository"), filtered by branch and status as GitHub does.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	branch, status := r.URL.Query().Get("branch"), r.URL.Query().Get("status")
	s.mu.Lock()
	var out []any
	for _, run := range s.runs {
		if (branch == "" || run.Branch == branch) && (status == "" || run.Status == status) {
			out = append(out, s.runJSON(run))
		}
	}
	s.mu.Unlock()
	if out == nil {
		out = []any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": out})
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

// runJSON is a workflow run (schema workflow-run).
func (s *Server) runJSON(run WorkflowRun) map[string]any {
	m := template("workflow-run")
	m["id"], m["run_number"] = run.ID, run.ID
	m["head_branch"], m["head_sha"], m["event"], m["status"] = run.Branch, run.SHA, run.Event, run.Status
	m["url"] = s.apiURL("/repos/%s/%s/actions/runs/%d", s.owner, s.repo, run.ID)
	return m
}
