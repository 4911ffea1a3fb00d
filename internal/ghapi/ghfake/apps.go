package ghfake

import (
	"crypto/rsa"
	"encoding/base64"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// GitHub's side of a GitHub App (breaker serve): the installation access
// token an App's JWT is traded for, and a repository's files.

// WithAppKey makes the server GitHub for the App id whose public key is
// pub, installed once as installation: POST
// /app/installations/{installation_id}/access_tokens answers a JWT the
// App's key signed (RS256, iss the App's id, exp at most ten minutes
// after iat: docs.github.com, "Generating a JSON Web Token (JWT) for a
// GitHub App") with the server's token (WithToken), as the App (WithApp
// id, slug). A JWT that does not verify is 401 "A JSON web token could
// not be decoded", another installation 404, as GitHub answers
// (docs.github.com, "Create an installation access token for an app").
// The installation's GraphQL budget is InstallationGraphQLLimit points an
// hour.
func WithAppKey(id int64, slug string, pub *rsa.PublicKey, installation int64) Option {
	return func(s *Server) {
		WithApp(id, slug)(s)
		s.appKey, s.installation = pub, installation
		s.gqlLimit = InstallationGraphQLLimit
	}
}

// InstallationGraphQLLimit is a GitHub App installation's GraphQL points
// an hour: 5,000 at least, growing with its repositories and users up to
// 12,500 (docs.github.com, "Rate limits and query limits for the GraphQL
// API": "GitHub App installations").
const InstallationGraphQLLimit = 5000

// Installations counts the installation tokens minted.
func (s *Server) Installations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.minted
}

// SetFile puts a file in the repository at ref (a branch name) for the
// contents API.
func (s *Server) SetFile(ref, name, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]string{}
	}
	s.files[ref+"\x00"+name] = body
}

func (s *Server) createInstallationToken(w http.ResponseWriter, r *http.Request) {
	raw, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return s.appKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
	if err == nil && (claims.Issuer != strconv.FormatInt(s.appID, 10) || claims.IssuedAt == nil ||
		claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute) {
		err = fmt.Errorf("claims %+v", claims)
	}
	if s.appKey == nil || err != nil {
		writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded", "https://docs.github.com/rest")
		return
	}
	if r.PathValue("installation_id") != strconv.FormatInt(s.installation, 10) {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app")
		return
	}
	s.mu.Lock()
	s.minted++
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"token": s.token, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions": map[string]any{"checks": "write", "contents": "write"}, "repository_selection": "all",
	})
}

// getContents answers GET contents/{path} with a file's content-file
// object, base64 as GitHub sends it, or 404.
func (s *Server) getContents(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("path")
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = s.defaultBranch
	}
	s.mu.Lock()
	body, ok := s.files[ref+"\x00"+name]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/repos/contents#get-repository-content")
		return
	}
	api := "https://api.github.com/repos/" + s.owner + "/" + s.repo
	html := "https://github.com/" + s.owner + "/" + s.repo + "/blob/" + ref + "/" + name
	sha := fmt.Sprintf("%040x", len(body))
	writeJSON(w, http.StatusOK, map[string]any{
		"type": "file", "encoding": "base64", "size": len(body), "name": path.Base(name), "path": name,
		"content": base64.StdEncoding.EncodeToString([]byte(body)), "sha": sha,
		"url": api + "/contents/" + name + "?ref=" + ref, "git_url": api + "/git/blobs/" + sha, "html_url": html,
		"download_url": "https://raw.githubusercontent.com/" + s.owner + "/" + s.repo + "/" + ref + "/" + name,
		"_links":       map[string]any{"self": api + "/contents/" + name + "?ref=" + ref, "git": api + "/git/blobs/" + sha, "html": html},
	})
}
