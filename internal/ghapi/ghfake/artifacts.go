package ghfake

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

type artifact struct {
	ID    int64
	RunID int64
	Name  string
	Zip   []byte
	Size  int64 // when Zip is nil: an archive of Size bytes made as it is served
}

// AddLargeArtifact stores an artifact of size bytes that are made as they
// are served (not kept in memory): for tests of size bounds.
func (s *Server) AddLargeArtifact(runID int64, name string, size int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.artifacts = append(s.artifacts, artifact{ID: s.nextID, RunID: runID, Name: name, Size: size})
	return s.nextID
}

func (a artifact) size() int64 {
	if a.Zip != nil {
		return int64(len(a.Zip))
	}
	return a.Size
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

// listArtifacts answers GET actions/runs/{run}/artifacts: the name filter,
// per_page (default 30, max 100) and page, with the Link header, as
// GitHub's "List workflow run artifacts" does.
func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request) {
	run, _ := strconv.ParseInt(r.PathValue("run"), 10, 64)
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	var all []any
	for _, a := range s.artifacts {
		if a.RunID == run && (name == "" || a.Name == name) {
			m := template("artifact")
			m["id"], m["node_id"], m["name"], m["size_in_bytes"], m["expired"] = a.ID, "A_"+strconv.FormatInt(a.ID, 36), a.Name, a.size(), false
			m["url"] = s.apiURL("/repos/%s/%s/actions/artifacts/%d", s.owner, s.repo, a.ID)
			m["archive_download_url"] = s.apiURL("/repos/%s/%s/actions/artifacts/%d/zip", s.owner, s.repo, a.ID)
			m["created_at"], m["updated_at"] = epoch.Format(time.RFC3339), epoch.Format(time.RFC3339)
			m["expires_at"] = epoch.Add(90 * 24 * time.Hour).Format(time.RFC3339)
			all = append(all, m)
		}
	}
	s.mu.Unlock()
	perPage := min(max(queryInt(r, "per_page", 30), 1), s.maxPerPage)
	page := max(queryInt(r, "page", 1), 1)
	last := max((len(all)+perPage-1)/perPage, 1)
	lo, hi := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	if link := s.linkHeader(r, perPage, page, last); link != "" {
		w.Header().Set("Link", link)
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "artifacts": orEmpty(all[lo:hi])})
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
	if a.Zip == nil {
		w.Header().Set("Content-Length", strconv.FormatInt(a.Size, 10))
		_, _ = io.Copy(w, io.LimitReader(zeros{}, a.Size))
		return
	}
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

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
