package app_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/greenlight-ci/breaker/internal/app"
	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// The App end to end: the fake GitHub (its answers checked against
// GitHub's OpenAPI description), a real repository cloned by go-git as
// the server clones one, and deliveries whose payloads are the project's
// own webhook payloads (checked against GitHub's webhook description),
// signed as GitHub signs them.

const (
	appID        = 424242
	installation = 31337
	secret       = "a-webhook-secret-of-some-length"
	installToken = "ghs_installationTokenOfTheApp000"
	testDup      = "TestRegister_DuplicateEmail"
)

// appKey is one RSA key for the test binary (GitHub's App keys are 2048-bit).
var appKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// world is a repository, the fake GitHub holding its App installation and
// pull request, and the server's settings.
type world struct {
	t    *testing.T
	repo *gitrepo.Repo
	// cloneURL is where the server clones the repository from: git's own
	// smart HTTP server over it.
	cloneURL string
	gh       *ghfake.Server
	set      app.Settings
	// noTrailers makes push commit as an agent that writes no trailers:
	// every count then rests on what the ledger observed.
	noTrailers bool
	// log holds the replicas' logs (syncBuffer: replicas log side by side).
	log     syncBuffer
	logOnce sync.Once
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newWorld(t *testing.T, config string) *world {
	t.Helper()
	w := &world{t: t, repo: gitrepo.Shop(t),
		gh: ghfake.New(t, ghfake.WithToken(installToken), ghfake.WithAppKey(appID, "greenlight-breaker", &appKey().PublicKey, installation))}
	w.gh.SetDefaultBranch("main", w.repo.Git("rev-parse", "main"))
	w.cloneURL = w.repo.Serve()
	if config != "" {
		w.gh.SetFile("main", app.ConfigPath, config)
	}
	w.set = app.Settings{Addr: ":0", WebhookSecret: []byte(secret), AppID: appID, Key: appKey(), APIURL: w.gh.URL(),
		Workers: 2, Queue: 16, MaxBody: app.DefaultMaxBody}
	return w
}

// logs is where the replicas log: shown when the test fails.
func (w *world) logs() io.Writer {
	w.logOnce.Do(func() {
		w.t.Cleanup(func() {
			if w.t.Failed() {
				w.t.Logf("the servers' logs:\n%s", w.log.String())
			}
		})
	})
	return &w.log
}

// replica is one server process: its handler behind an HTTP server, its
// workers running.
type replica struct {
	s    *app.Server
	http *httptest.Server
	url  string // where it listens
	// drain stops it taking deliveries and waits for the queued ones.
	drain func()
}

func (w *world) replica() *replica {
	w.t.Helper()
	s, err := app.New(w.set, cli.DefaultActionDeps(), slog.New(slog.NewTextHandler(w.logs(), &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		w.t.Fatal(err)
	}
	s.Start(context.Background())
	hs := httptest.NewServer(s.Handler())
	w.t.Cleanup(hs.Close)
	return &replica{s: s, http: hs, url: hs.URL, drain: s.Drain}
}

// post sends a delivery signed with key ("" = unsigned) and returns the
// status answered.
func (r *replica) post(t *testing.T, event, id string, body []byte, key string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.url+"/webhook", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write(body)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// deliver sends one delivery to a fresh replica and waits for its work:
// any replica serves any delivery.
func (w *world) deliver(event, id string, payload map[string]any) int {
	w.t.Helper()
	r := w.replica()
	code := r.post(w.t, event, id, w.body(event, payload), secret)
	r.drain()
	return code
}

// body is the payload as GitHub sends it to the App: with its
// installation, from the repository cloned at clone_url.
func (w *world) body(event string, p map[string]any) []byte {
	w.t.Helper()
	setPath(p, "installation", map[string]any{"id": installation, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMzEzMzc="})
	setPath(p, "repository.name", ghfake.DefaultRepo)
	setPath(p, "repository.full_name", ghfake.DefaultOwner+"/"+ghfake.DefaultRepo)
	setPath(p, "repository.owner.login", ghfake.DefaultOwner)
	setPath(p, "repository.clone_url", w.cloneURL)
	setPath(p, "repository.default_branch", "main")
	if err := ghfake.CheckWebhook(event, p); err != nil {
		w.t.Errorf("the test's %s payload is not one GitHub sends: %v", event, err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

// workflowRun is the completed run id of workflow "Tests" on pull
// request pr's head.
func (w *world) workflowRun(runID int64, pr forge.PullRequest) map[string]any {
	p := payload(w.t, "workflow_run.json")
	setPath(p, "action", "completed")
	setPath(p, "workflow_run.id", runID)
	setPath(p, "workflow_run.name", "Tests")
	setPath(p, "workflow_run.event", "pull_request")
	setPath(p, "workflow_run.head_sha", pr.HeadSHA)
	setPath(p, "workflow_run.head_branch", pr.HeadRef)
	repo := map[string]any{"id": 731002, "name": ghfake.DefaultRepo, "url": "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo}
	setPath(p, "workflow_run.pull_requests", []any{map[string]any{
		"url": "https://api.github.com/repos/" + ghfake.DefaultOwner + "/" + ghfake.DefaultRepo + "/pulls/" + strconv.Itoa(pr.Number),
		"id":  1881000 + pr.Number, "number": pr.Number,
		"head": map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA, "repo": repo},
		"base": map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA, "repo": repo},
	}})
	return p
}

// push commits attempt i of the spiral on agent/S-3, opens (or moves)
// pull request 7 to it, and uploads the tested run's failing results.
func (w *world) push(i int) (forge.PullRequest, int64) {
	var head string
	if !w.noTrailers {
		head = w.repo.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
	} else {
		head = w.repo.CommitFiles("try again "+strconv.Itoa(i), map[string]string{"internal/users/service.go": "package users // " + strconv.Itoa(i) + "\n"})
	}
	pr := forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "agent/S-3", BaseRef: "main",
		BaseSHA: w.repo.Git("rev-parse", "main"), Author: "agent-bot"}
	w.gh.AddPullRequest(pr)
	w.gh.SetPullRequestCommits(7, strings.Fields(w.repo.Git("rev-list", "--reverse", "main.."+head)))
	runID := int64(5000 + i)
	w.gh.AddArtifact(runID, "test-results", zipOf(w.t, map[string]string{"reports/junit.xml": failingJUnit}))
	w.gh.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: pr.HeadRef, SHA: head, Event: "pull_request", Status: "completed",
		Conclusion: "failure", Workflow: "tests.yml", Name: "Tests", PullRequests: []forge.RunPullRequest{{Number: 7, BaseSHA: pr.BaseSHA, BaseRef: "main"}}})
	return pr, runID
}

// trip makes the spiral: three pushes of agent/S-3 failing one test,
// each judged from its tested run's completed delivery by a fresh
// replica. It returns the head.
func (w *world) trip() string {
	w.t.Helper()
	w.repo.Git("checkout", "-q", "-b", "agent/S-3")
	var head string
	for i := range 3 {
		pr, runID := w.push(i)
		head = pr.HeadSHA
		if code := w.deliver("workflow_run", "d-"+strconv.Itoa(i), w.workflowRun(runID, pr)); code != http.StatusAccepted {
			w.t.Fatalf("delivery %d: %d, want 202", i, code)
		}
	}
	return head
}

// failingJUnit is the tested run's results: the one test failing.
const failingJUnit = `<testsuite name="users"><testcase classname="users" name="` + testDup + `"><failure message="expected 409, got 500">service_test.go:42</failure></testcase></testsuite>`

const config = "workflows: [Tests]\nresults-artifact: test-results\nresults: reports/*.xml\n"

// Three pushes that fail one test, each judged by another replica from
// its tested run's completed delivery: the third trips, with the check
// run and the one comment the Action writes, as the App.
func TestServe_ThreePushSpiralTripsAsTheAction(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	head := w.trip()
	runs := w.gh.CheckRuns()
	if len(runs) != 3 {
		t.Fatalf("%d check runs, want one a push: %+v", len(runs), runs)
	}
	last := runs[2]
	if last.HeadSHA != head || last.Conclusion != "failure" || last.AppID != appID {
		t.Errorf("the third check run: head %s conclusion %s app %d; want %s, failure, the App %d", last.HeadSHA, last.Conclusion, last.AppID, head, appID)
	}
	// The settings come from the default branch at each delivery, never
	// from the agent's branch.
	for _, c := range w.gh.Calls() {
		if strings.Contains(c.Path, "/contents/") && c.Query != "ref=main" {
			t.Errorf("settings read at %s?%s, want ref=main only", c.Path, c.Query)
		}
	}
	comments := w.gh.Comments(7)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "OPEN") || comments[0].Author != "greenlight-breaker[bot]" {
		t.Errorf("comments on #7: %+v; want one OPEN comment by the App", comments)
	}
}

// A redelivery of a delivery already received changes nothing: answered
// 200, no second check run.
func TestServe_RedeliveryChangesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	w.repo.Git("checkout", "-q", "-b", "agent/S-3")
	pr, runID := w.push(0)
	r := w.replica()
	body := w.body("workflow_run", w.workflowRun(runID, pr))
	first := r.post(t, "workflow_run", "same-id", body, secret)
	again := r.post(t, "workflow_run", "same-id", body, secret)
	r.drain()
	if first != http.StatusAccepted || again != http.StatusOK {
		t.Errorf("first %d, redelivery %d; want 202 and 200", first, again)
	}
	// The same delivery reaching another replica is judged again: the
	// ledger takes it as the same run's observation (one push).
	w.deliver("workflow_run", "same-id", w.workflowRun(runID, pr))
	if n := len(w.gh.CheckRuns()); n > 2 {
		t.Errorf("%d check runs after a redelivery, want at most one a replica", n)
	}
}

// A bad or missing signature is 401 and nothing is read or written; a
// body over the bound is 413.
func TestServe_RefusesUnsignedAndOversizedDeliveries(t *testing.T) {
	t.Parallel()
	w := newWorld(t, config)
	w.repo.Git("checkout", "-q", "-b", "agent/S-3")
	pr, runID := w.push(0)
	body := w.body("workflow_run", w.workflowRun(runID, pr))
	w.set.MaxBody = int64(len(body)) + 1024
	r := w.replica()
	cases := []struct {
		name string
		body []byte
		key  string
		want int
	}{
		{"no signature", body, "", http.StatusUnauthorized},
		{"another secret", body, "not-the-webhook-secret-at-all", http.StatusUnauthorized},
		{"a body changed after signing", append(bytes.Clone(body[:len(body)-1]), ' ', '}'), "", http.StatusUnauthorized},
		{"over the bound", append(bytes.Repeat([]byte(" "), 2<<10), body...), secret, http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		if got := r.post(t, "workflow_run", "d-"+c.name, c.body, c.key); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	r.drain()
	if calls := w.gh.CallCount(); calls != 0 {
		t.Errorf("%d calls to GitHub, want none: %+v", calls, w.gh.Calls())
	}
}

// payload loads one of the project's webhook payloads.
func payload(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "actionenv", "testdata", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// setPath and zipOf are the fake GitHub's: a payload's field, an artifact.
var (
	setPath = ghfake.SetPath
	zipOf   = ghfake.ZipOf
)

// pemOf is the key as the App's settings page hands it out.
func pemOf(k *rsa.PrivateKey) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}
