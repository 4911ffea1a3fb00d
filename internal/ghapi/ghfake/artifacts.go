package ghfake

import (
	"fmt"
	"net/http"
	"strconv"
)

type artifact struct {
	ID    int64
	RunID int64
	Name  string
	Zip   []byte
}

// AddArtifact stores an artifact of workflow run runID and returns its id.
func (s *Server) AddArtifact(runID int64, name string, zip []byte) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.artifacts = append(s.artifacts, artifact{ID: s.nextID, RunID: runID, Name: name, Zip: zip})
	return s.nextID
}

// BlobAuthorization returns the Authorization headers the archive URL
// received: the token must never reach it.
func (s *Server) BlobAuthorization() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.blobAuth...)
}

func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request) {
	run, _ := strconv.ParseInt(r.PathValue("run"), 10, 64)
	s.mu.Lock()
	var list []any
	for _, a := range s.artifacts {
		if a.RunID == run {
			list = append(list, map[string]any{"id": a.ID, "name": a.Name, "size_in_bytes": len(a.Zip), "expired": false,
				"archive_download_url": s.apiURL("/repos/%s/%s/actions/artifacts/%d/zip", s.owner, s.repo, a.ID)})
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(list), "artifacts": orEmpty(list)})
}

// artifactZip redirects to the archive, as GitHub does to a signed URL on
// another host.
func (s *Server) artifactZip(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if _, ok := s.artifact(id); !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/actions/artifacts")
		return
	}
	w.Header().Set("Location", fmt.Sprintf("%s/_blobs/%d", s.srv.URL, id))
	w.WriteHeader(http.StatusFound)
}

func (s *Server) blob(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	s.blobAuth = append(s.blobAuth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	a, ok := s.artifact(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Write(a.Zip)
}

func (s *Server) artifact(id int64) (artifact, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.artifacts {
		if a.ID == id {
			return a, true
		}
	}
	return artifact{}, false
}
