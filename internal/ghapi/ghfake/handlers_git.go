package ghfake

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
)

const refsDoc = docsURL + "/git/refs"

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	sha, ok := s.Ref(ref)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", refsDoc+"#get-a-reference")
		return
	}
	writeJSON(w, http.StatusOK, s.refJSON(ref, sha))
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request) {
	var in struct{ Ref, SHA string }
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", refsDoc+"#create-a-reference")
		return
	}
	ref, hasPrefix := strings.CutPrefix(in.Ref, "refs/")
	switch {
	case !hasPrefix || strings.Count(in.Ref, "/") < 2:
		writeError(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.", refsDoc+"#create-a-reference")
		return
	case !isSHA(in.SHA):
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist", refsDoc+"#create-a-reference")
		return
	}
	s.mu.Lock()
	ruled := s.ruleset != "" && strings.HasPrefix(ref, s.ruleset)
	_, exists := s.refs[ref]
	if !exists && !ruled {
		s.refs[ref] = in.SHA
	}
	s.mu.Unlock()
	if ruled {
		writeError(w, http.StatusUnprocessableEntity, BodyRuleViolation, refsDoc+"#create-a-reference")
		return
	}
	if exists {
		writeError(w, http.StatusUnprocessableEntity, "Reference already exists", refsDoc+"#create-a-reference")
		return
	}
	w.Header().Set("Location", s.apiURL("/repos/%s/%s/git/refs/%s", s.owner, s.repo, ref))
	writeJSON(w, http.StatusCreated, s.refJSON(ref, in.SHA))
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	var in struct {
		SHA   string
		Force bool
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || !isSHA(in.SHA) {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.", refsDoc+"#update-a-reference")
		return
	}
	s.mu.Lock()
	old, exists := s.refs[ref]
	_, known := s.commits[in.SHA]
	ff := !known || s.descends(in.SHA, old)
	if exists && (in.Force || ff) {
		s.refs[ref] = in.SHA
	}
	s.mu.Unlock()
	switch {
	case !exists:
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist", refsDoc+"#update-a-reference")
	case !in.Force && !ff:
		writeError(w, http.StatusUnprocessableEntity, "Update is not a fast forward", refsDoc+"#update-a-reference")
	default:
		writeJSON(w, http.StatusOK, s.refJSON(ref, in.SHA))
	}
}

func (s *Server) deleteRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	s.mu.Lock()
	_, exists := s.refs[ref]
	delete(s.refs, ref)
	s.mu.Unlock()
	if !exists {
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist", refsDoc+"#delete-a-reference")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	s.mu.Lock()
	c, ok := s.commits[sha]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docsURL+"/git/commits#get-a-commit-object")
		return
	}
	writeJSON(w, http.StatusOK, s.commitJSON(sha, c))
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message string
		Tree    string
		Parents []string
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || !isSHA(in.Tree) {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.", docsURL+"/git/commits#create-a-commit")
		return
	}
	c := commit{Tree: in.Tree, Message: in.Message, Parents: in.Parents}
	sum := sha1.Sum([]byte("tree " + in.Tree + "\nparents " + strings.Join(in.Parents, " ") + "\n\n" + in.Message))
	sha := hex.EncodeToString(sum[:])
	s.mu.Lock()
	s.commits[sha] = c
	s.mu.Unlock()
	w.Header().Set("Location", s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, sha))
	writeJSON(w, http.StatusCreated, s.commitJSON(sha, c))
}
