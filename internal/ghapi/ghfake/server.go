package ghfake

import (
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// DefaultOwner and DefaultRepo name the repository the server hosts
// unless WithRepo says otherwise; they match the webhook fixtures.
const (
	DefaultOwner = "Codertocat"
	DefaultRepo  = "Hello-World"
)

// BotLogin is the author of comments written through the API while no
// user is set with SetUser, as for a workflow's GITHUB_TOKEN.
const BotLogin = "github-actions[bot]"

// Call is one request the server received.
type Call struct {
	Method string
	Path   string // unescaped, without the API prefix, e.g. "/repos/o/r/git/refs"
	Query  string // raw query string
	Body   string
	// UserAgent is the request's User-Agent header.
	UserAgent string
}

// String renders the call as "METHOD /path".
func (c Call) String() string { return c.Method + " " + c.Path }

// Option configures a Server.
type Option func(*Server)

// WithRepo sets the owner and name of the hosted repository.
func WithRepo(owner, repo string) Option {
	return func(s *Server) { s.owner, s.repo = owner, repo }
}

// WithPrefix serves the API under a path prefix, as GitHub Enterprise
// Server does with "/api/v3".
func WithPrefix(prefix string) Option {
	return func(s *Server) { s.prefix = "/" + strings.Trim(prefix, "/") }
}

// WithToken makes the server answer 401 to requests that do not carry
// the token in their Authorization header.
func WithToken(token string) Option {
	return func(s *Server) { s.token = token }
}

// WithAgentToken makes the server take a second token too: the agent's
// workflow's GITHUB_TOKEN, an installation token of the GitHub Actions
// app (ActionsAppID), whatever app the first token is. Check runs are
// updated only by a token of the app that created them (PATCH
// check-runs/{id}: 403 "Invalid app_id `15368` - check run can only be
// modified by the GitHub App that created it", as reported in
// OP5dev/TF-via-PR#538, databricks/cli#4563, int128/argocd-commenter#631).
func WithAgentToken(token string) Option {
	return func(s *Server) { s.agentToken = token }
}

// WithMaxPerPage caps the page size of list endpoints (GitHub's cap is
// 100) so that pagination can be exercised with few items.
func WithMaxPerPage(n int) Option {
	return func(s *Server) {
		if n > 0 {
			s.maxPerPage = n
		}
	}
}

// WithApp makes the token a GitHub App's installation token (as
// actions/create-github-app-token makes): check runs created through the
// API belong to App id, comments are written by "<slug>[bot]", and
// GraphQL's viewer answers that login. GET /user still answers 403, as it
// does for any installation token.
func WithApp(id int64, slug string) Option {
	return func(s *Server) { s.appID, s.appSlug, s.botLogin = id, slug, slug+"[bot]" }
}

// WithoutHistory keeps no record of the requests (Calls is empty, and
// the answers are not checked against GitHub's descriptions when the
// test ends): a load benchmark's thousands of deliveries would otherwise
// keep every answer in memory.
func WithoutHistory() Option {
	return func(s *Server) { s.noHistory = true }
}

// Server is a stateful fake of the GitHub REST API subset the breaker
// uses. It is safe for concurrent use.
type Server struct {
	t          testing.TB
	srv        *httptest.Server
	owner      string
	repo       string
	prefix     string
	token      string
	agentToken string // a second token, of the GitHub Actions app (WithAgentToken)
	maxPerPage int

	mu   sync.Mutex
	user string
	prs  map[int]forge.PullRequest
	// reviewRequests are the people and teams ("team:SLUG") asked to review
	// each pull request.
	reviewRequests map[int][]string
	// runs are the repository's workflow runs (AddWorkflowRun).
	runs []WorkflowRun
	// issues are issues that are not pull requests, with their assignees
	// (AddIssue); closing are the issues each pull request closes.
	issues  map[int][]string
	closing map[int][]int
	// crossRefs are the pull requests each issue's timeline says
	// referenced it (CrossReferencedEvent): kept when the reference is
	// edited away. closedBy is who closed each closed pull request;
	// touched orders pull requests by their last update.
	crossRefs map[int][]int
	closedBy  map[int]string
	merged    map[int]bool
	touched   map[int]int
	touches   int
	comments  []comment
	nextID    int64
	refs      map[string]string
	perms     map[string]string
	commits   map[string]commit
	failures  []Failure
	holds     []*hold
	noHistory bool
	calls     []Call

	checkRuns     []CheckRun
	defaultBranch string
	defaultSHA    string
	commitLogins  map[string]string
	artifacts     []artifact
	blobAuth      []string
	prCommits     map[int][]string
	forcePushes   map[int][]string
	prTimes       map[int]PullRequestTimes
	queries       []string
	exchanges     []exchange

	nextCheckRunID, nextCommentID int64
	appID                         int64  // the token's app: check runs are its
	appSlug                       string // its slug
	botLogin                      string // the login it comments as
	ruleset                       string // refs under it may not be created
	gqlLimit, gqlUsed             int
	gqlCosts                      []int

	appKey       *rsa.PublicKey    // WithAppKey: the App's key
	installation int64             // its one installation
	minted       int               // installation tokens minted
	files        map[string]string // ref NUL path → content (SetFile)
}

// The first ids the server hands out are GitHub-sized: github.com's check
// run ids passed 2^31 in 2021 and its comment ids in 2024, so a client that
// decodes them into 32 bits fails here as it would there.
const (
	firstCheckRunID = 40_000_000_001
	firstCommentID  = 2_500_000_001
)

// New starts a fake GitHub API server that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		t: t, owner: DefaultOwner, repo: DefaultRepo, maxPerPage: 100,
		prs: map[int]forge.PullRequest{}, reviewRequests: map[int][]string{}, issues: map[int][]string{}, closing: map[int][]int{}, nextID: 1000,
		crossRefs: map[int][]int{}, closedBy: map[int]string{}, merged: map[int]bool{}, touched: map[int]int{},
		nextCheckRunID: firstCheckRunID - 1, nextCommentID: firstCommentID - 1, gqlLimit: DefaultGraphQLLimit,
		appID: ActionsAppID, appSlug: ActionsAppSlug, botLogin: BotLogin,
		refs: map[string]string{}, perms: map[string]string{}, commits: map[string]commit{},
		prCommits: map[int][]string{}, forcePushes: map[int][]string{}, commitLogins: map[string]string{},
	}
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewServer(s.routes())
	t.Cleanup(func() {
		s.srv.Close()
		s.checkContract()
	})
	return s
}

// URL returns the API base URL with a trailing slash, the value to give
// as GITHUB_API_URL.
func (s *Server) URL() string { return s.srv.URL + s.prefix + "/" }

// Owner returns the owner of the hosted repository.
func (s *Server) Owner() string { return s.owner }

// Repo returns the name of the hosted repository.
func (s *Server) Repo() string { return s.repo }

// Calls returns the requests received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallCount returns how many requests the server received.
func (s *Server) CallCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// ResetCalls forgets the recorded requests.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// serve records each request, applies injected failures and the token
// check, then routes it.
func (s *Server) serve(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		p := strings.TrimPrefix(r.URL.Path, s.prefix)
		call := Call{Method: r.Method, Path: p, Query: r.URL.RawQuery, Body: string(body), UserAgent: r.Header.Get("User-Agent")}
		s.mu.Lock()
		if !s.noHistory {
			s.calls = append(s.calls, call)
		}
		f, failed := s.takeFailure(r.Method, p)
		held := s.takeHold(r.Method, p)
		s.mu.Unlock()
		if held != nil {
			held.wait()
		}
		rec := &recorder{ResponseWriter: w}
		w = rec
		defer func() {
			if contractChecked(p) && !s.noHistory {
				s.mu.Lock()
				s.exchanges = append(s.exchanges, exchange{Call: call, status: rec.status, header: rec.Header().Clone(),
					response: rec.body.Bytes(), injected: failed})
				s.mu.Unlock()
			}
		}()
		if failed && !f.After {
			f.write(w)
			return
		}
		// The archive URL is signed, on another host in real life: no token.
		// The /app endpoints take the App's JWT (apps.go), not a token.
		if s.token != "" && !strings.HasPrefix(r.URL.Path, "/_blobs/") && !strings.HasPrefix(p, "/app/") && !authorized(r.Header.Get("Authorization"), s.token) &&
			(s.agentToken == "" || !authorized(r.Header.Get("Authorization"), s.agentToken)) {
			writeError(w, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if failed { // After: do it, then lose the answer
			mux.ServeHTTP(httptest.NewRecorder(), r)
			f.write(w)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func authorized(header, token string) bool {
	return header == "Bearer "+token || header == "token "+token
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	repo := s.prefix + "/repos/{owner}/{repo}"
	handle := func(pattern string, h http.HandlerFunc) {
		method, p, _ := strings.Cut(pattern, " ")
		mux.HandleFunc(method+" "+repo+p, s.inRepo(h))
	}
	mux.HandleFunc("GET "+s.prefix+"/user", s.getUser)
	handle("GET /pulls/{number}", s.getPull)
	handle("GET /commits/{sha}/pulls", s.pullsForCommit)
	handle("GET /pulls", s.listPulls)
	// GET issues/{number}/comments and GET issues/comments/{id} share a
	// shape ServeMux cannot tell apart: one handler routes both.
	handle("GET /issues/{a}/{b}", s.getIssuesPath)
	handle("POST /issues/{number}/comments", s.createComment)
	handle("POST /issues/{number}/labels", s.addLabels)
	handle("DELETE /issues/{number}/labels/{name}", s.removeLabel)
	handle("POST /issues/{number}/assignees", s.assign)
	handle("POST /pulls/{number}/requested_reviewers", s.reviewers)
	handle("GET /actions/runs", s.listRuns)
	handle("GET /actions/workflows/{workflow}/runs", s.listRuns)
	handle("GET /actions/runs/{run}", s.getRun)
	handle("GET /actions/runs/{run}/jobs", s.listJobs)
	handle("GET /actions/jobs/{job}/logs", s.jobLogs)
	handle("POST /actions/runs/{run}/cancel", s.cancelRun)
	handle("DELETE /pulls/{number}/requested_reviewers", s.reviewers)
	handle("PATCH /issues/comments/{id}", s.editComment)
	// DELETE issues/comments/{id} and DELETE issues/{number}/assignees
	// share a shape too.
	handle("DELETE /issues/{a}/{b}", s.deleteIssuesPath)
	handle("GET /git/ref/{ref...}", s.getRef)
	handle("POST /git/refs", s.createRef)
	handle("PATCH /git/refs/{ref...}", s.updateRef)
	handle("DELETE /git/refs/{ref...}", s.deleteRef)
	handle("GET /collaborators/{login}/permission", s.getPermission)
	handle("GET /git/commits/{sha}", s.getCommit)
	handle("POST /git/commits", s.createCommit)
	handle("POST /check-runs", s.createCheckRun)
	handle("PATCH /check-runs/{id}", s.updateCheckRun)
	handle("GET /actions/runs/{run}/artifacts", s.listArtifacts)
	handle("GET /contents/{path...}", s.getContents)
	mux.HandleFunc("POST "+s.prefix+"/app/installations/{installation_id}/access_tokens", s.createInstallationToken)
	handle("GET /actions/artifacts/{id}/zip", s.artifactZip)
	mux.HandleFunc("GET /_blobs/{id}", s.blob)
	mux.HandleFunc("GET /_blobs/logs/{job}", s.logBlob)
	// github.com serves GraphQL at /graphql, GitHub Enterprise Server at
	// /api/graphql beside its /api/v3.
	mux.HandleFunc("POST /graphql", s.graphql)
	mux.HandleFunc("POST /api/graphql", s.graphql)
	mux.HandleFunc("/", s.unknown)
	return s.serve(mux)
}

// inRepo answers for the hosted repository only; another repository is
// a test bug, reported like an unknown route.
func (s *Server) inRepo(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.PathValue("owner"), s.owner) || !strings.EqualFold(r.PathValue("repo"), s.repo) {
			s.unknown(w, r)
			return
		}
		h(w, r)
	}
}

func (s *Server) unknown(w http.ResponseWriter, r *http.Request) {
	s.t.Errorf("ghfake: unexpected request %s %s", r.Method, r.URL.Path)
	writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, message, doc string) {
	writeJSON(w, status, map[string]any{"message": message, "documentation_url": doc})
}

// checkContract validates every REST exchange against GitHub's OpenAPI
// descriptions (contract.go); the first few refusals fail the test.
func (s *Server) checkContract() {
	s.mu.Lock()
	xs := append([]exchange(nil), s.exchanges...)
	s.mu.Unlock()
	n := 0
	for _, x := range xs {
		if err := checkExchange(x); err != nil {
			if n++; n <= 5 {
				s.t.Errorf("ghfake: GitHub's OpenAPI description refuses an exchange:\n%v", err)
			}
		}
	}
}
