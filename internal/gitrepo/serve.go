package gitrepo

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Serve serves the repository over git's smart HTTP protocol with git's
// own server (git http-backend, run as CGI) and returns its clone URL.
// Like GitHub it lets a client fetch a commit by its id when a ref reaches
// it (uploadpack.allowReachableSHA1InWant; GitHub advertises
// allow-reachable-sha1-in-want and allow-tip-sha1-in-want), so a fork
// pull request's head, held only at refs/pull/N/head, is fetched as
// actions/checkout fetches it. It skips the test when git has no
// http-backend.
func (r *Repo) Serve() string {
	r.t.Helper()
	backend := filepath.Join(r.Git("--exec-path"), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		r.t.Skip("git http-backend is not installed: " + err.Error())
	}
	r.Git("config", "uploadpack.allowReachableSHA1InWant", "true")
	r.Git("config", "http.receivepack", "false")
	git, _ := exec.LookPath("git")
	h := &cgi.Handler{Path: backend, Dir: r.Dir, Env: []string{
		"GIT_PROJECT_ROOT=" + filepath.Dir(r.Dir), "GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=" + r.Dir,
		"PATH=" + filepath.Dir(git) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !strings.HasPrefix(req.URL.Path, "/"+filepath.Base(r.Dir)+"/") {
			http.NotFound(w, req)
			return
		}
		h.ServeHTTP(w, req)
	}))
	r.t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(r.Dir)
}
