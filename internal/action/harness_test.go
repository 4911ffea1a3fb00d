package action_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/report"
)

// webhookDir holds the project's own webhook payloads the events are made
// from (shaped as GitHub sends them).
const webhookDir = "../actionenv/testdata/webhooks"

// actionToken is the token the action runs with. It matches no token
// pattern, so only the action's own masking can hide it.
const actionToken = "s3cret-breaker-token-4711"

// actionNow is the injected clock: acknowledgements are stable.
var actionNow = time.Date(2026, 2, 18, 10, 30, 0, 0, time.UTC)

// actionHarness is one workflow: a real repository as the workspace, a
// fake GitHub, and the inputs of the action step.
type actionHarness struct {
	t      *testing.T
	repo   *gitrepo.Repo
	srv    *ghfake.Server
	inputs map[string]string
	env    map[string]string // extra or overriding environment
	// anyPayload skips the check that event payloads are GitHub's: for
	// tests of broken or hostile payloads.
	anyPayload bool
	// advance makes each run a minute later than the one before, with its
	// own run id, as runs on GitHub are (the ledger orders entries by
	// both); off, every run is at actionNow with run id 4242.
	advance bool
	runs    int

	mu       sync.Mutex
	commands map[int64]bool  // ids of the comments the comment events report
	sleeps   []time.Duration // waits the GitHub client asked for
	loads    int             // evaluate.Load calls: git and results read
}

func newActionHarness(t *testing.T, opts ...ghfake.Option) *actionHarness {
	t.Helper()
	h := &actionHarness{
		t: t, repo: gitrepo.Shop(t),
		srv:    ghfake.New(t, append([]ghfake.Option{ghfake.WithToken(actionToken)}, opts...)...),
		inputs: map[string]string{"token": actionToken, "results": "junit.xml"},
		env:    map[string]string{},
	}
	// GitHub knows the default branch: the base of a branch without a
	// pull request.
	h.srv.SetDefaultBranch("main", h.repo.Git("rev-parse", "main"))
	return h
}

// actionResult is what one run of the action left behind: its exit code
// (cli.ExitCode, the command's one mapping), its log, summary and outputs.
type actionResult struct {
	code    int
	stdout  string
	stderr  string // nothing: the Action writes its log to stdout
	summary string
	outputs map[string]string
}

// testDup is the test the shop's agent keeps failing.
const testDup = "TestRegister_DuplicateEmail"

// runCLI runs the breaker command line in-process (cli.Main) and returns
// its streams and exit code: where a test holds a command to what the
// Action wrote.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIEnv(t, nil, stdin, args...)
}

// reason is the report's trip reason, "null" when none.
func reason(r report.Report) string {
	if r.TripReason == nil {
		return "null"
	}
	return *r.TripReason
}

// failedOf is test's failed attempts in the report, -1 when it has none.
func failedOf(r report.Report, test string) int {
	for _, tt := range r.Tests {
		if tt.Name == test {
			return tt.FailedAttempts
		}
	}
	return -1
}

// evaluateJSON runs `breaker evaluate --format json` on the repository.
func evaluateJSON(t *testing.T, r *gitrepo.Repo, extra ...string) (report.Report, int) {
	t.Helper()
	args := append([]string{"evaluate", "--repo", r.Dir, "--base", "main", "--format", "json"}, extra...)
	stdout, stderr, code := runCLI(t, "", args...)
	if code != cli.ExitClosed && code != cli.ExitTripped {
		t.Fatalf("breaker %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decode report: %v\n%s", err, stdout)
	}
	return rep, code
}

// runCLIEnv is runCLI with an environment.
func runCLIEnv(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = cli.Main(context.Background(), append([]string{"breaker"}, args...), getenv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// deps injects a forge bound to the fake whose waits are recorded, and
// counts the loads of git and results.
func (h *actionHarness) deps() action.Deps {
	return action.Deps{
		NewForge: func(c actionenv.Context, in actionenv.Inputs) (action.Forge, error) {
			return ghapi.New(ghapi.Config{
				Token: in.Token, APIURL: h.srv.URL(), Owner: c.Owner, Repo: c.Repo,
				Now: h.now,
				Sleep: func(_ context.Context, d time.Duration) error {
					h.mu.Lock()
					defer h.mu.Unlock()
					h.sleeps = append(h.sleeps, d)
					return nil
				},
			})
		},
		Load: func(ctx context.Context, opts evaluate.Options) (evaluate.Snapshot, error) {
			h.mu.Lock()
			h.loads++
			h.mu.Unlock()
			return evaluate.Load(ctx, opts)
		},
		Now: func() time.Time { return h.now() },
	}
}

// now is the injected clock: actionNow, or a minute a run later with
// advance.
func (h *actionHarness) now() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.advance {
		return actionNow
	}
	return actionNow.Add(time.Duration(h.runs) * time.Minute)
}

// loadCount is how many times the runs so far read git and results.
func (h *actionHarness) loadCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loads
}

// run runs the action once on event with payload, with fresh output and
// summary files as the runner gives every step.
func (h *actionHarness) run(event string, payload map[string]any) actionResult {
	h.t.Helper()
	return h.runWith(event, payload, h.deps())
}

func (h *actionHarness) runWith(event string, payload map[string]any, deps action.Deps) actionResult {
	h.t.Helper()
	if event == "push" {
		h.pushed(payload)
	}
	if event == "issue_comment" {
		h.commented(payload)
	}
	// The payload is one GitHub sends (by its webhook description), unless
	// the test feeds a broken one on purpose.
	if !h.anyPayload {
		if err := ghfake.CheckWebhook(event, payload); err != nil {
			h.t.Errorf("the test's %s payload is not one GitHub sends: %v", event, err)
		}
	}
	dir := h.t.TempDir()
	eventPath := filepath.Join(dir, "event.json")
	data, err := json.Marshal(payload)
	if err != nil {
		h.t.Fatal(err)
	}
	writeFile(h.t, eventPath, string(data))
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_REPOSITORY": h.srv.Owner() + "/" + h.srv.Repo(), "GITHUB_WORKSPACE": h.repo.Dir,
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"GITHUB_RUN_ID": "4242", "GITHUB_SERVER_URL": "https://github.com",
	}
	h.mu.Lock()
	h.runs++
	if h.advance {
		env["GITHUB_RUN_ID"] = strconv.Itoa(4242 + h.runs)
	}
	h.mu.Unlock()
	for k, v := range h.inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	for k, v := range h.env {
		env[k] = v
	}
	var stdout bytes.Buffer
	out := action.Run(context.Background(), deps, actionenv.New(func(k string) string { return env[k] }, &stdout))
	res := actionResult{code: cli.ExitCode(out.Decision, out.Enforce, out.Err), stdout: stdout.String()}
	res.summary = readOptional(h.t, env["GITHUB_STEP_SUMMARY"])
	res.outputs = parseOutputs(h.t, readOptional(h.t, env["GITHUB_OUTPUT"]))
	return res
}

// commented gives GitHub the comment an issue_comment event reports, as
// the comment's author writing it would, and the payload its id: the
// Action reads a command's comment back before it acts on it. A payload
// whose comment id GitHub already has (a replay) is left as it is.
func (h *actionHarness) commented(payload map[string]any) {
	c, _ := payload["comment"].(map[string]any)
	issue, _ := payload["issue"].(map[string]any)
	if c == nil || issue == nil {
		return
	}
	if id, ok := c["id"].(float64); ok {
		if _, found := h.srv.Comment(int64(id)); found {
			return
		}
	}
	if id, ok := c["id"].(int64); ok {
		if _, found := h.srv.Comment(id); found {
			return
		}
	}
	body, _ := c["body"].(string)
	user, _ := c["user"].(map[string]any)
	login, _ := user["login"].(string)
	n, _ := issue["number"].(int)
	if f, ok := issue["number"].(float64); ok {
		n = int(f)
	}
	id := h.srv.AddComment(n, login, body)
	c["id"] = id
	h.mu.Lock()
	if h.commands == nil {
		h.commands = map[int64]bool{}
	}
	h.commands[id] = true
	h.mu.Unlock()
}

// comments are the comments on pull request pr but the commands the
// harness wrote for its comment events: what the breaker and the test's
// own actors wrote.
func (h *actionHarness) comments(pr int) []forge.Comment {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []forge.Comment
	for _, c := range h.srv.Comments(pr) {
		if !h.commands[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// pushed gives GitHub what a push gives it: the branch at the pushed head
// and its commits, so the branch's history is GitHub's to walk.
func (h *actionHarness) pushed(payload map[string]any) {
	ref, _ := payload["ref"].(string)
	after, _ := payload["after"].(string)
	branch, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok || len(after) != 40 || strings.Trim(after, "0") == "" {
		return
	}
	cmd := exec.Command("git", "log", "--format=%H %T %P", after)
	cmd.Dir = h.repo.Dir
	out, err := cmd.Output()
	if err != nil {
		return // a payload naming a commit the repository lacks: a test of its own
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			if _, _, _, known := h.srv.Commit(f[0]); !known {
				h.srv.AddCommit(f[0], f[1], "", f[2:]...)
			}
		}
	}
	h.srv.SetRef("heads/"+branch, after)
}

func (h *actionHarness) waits() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.sleeps...)
}

// writes returns the requests that change state on GitHub.
func (h *actionHarness) writes() []ghfake.Call {
	var out []ghfake.Call
	for _, c := range h.srv.Calls() {
		// A GraphQL POST is a query: the breaker sends no mutation.
		if c.Method != "GET" && c.Method != "HEAD" && !strings.HasSuffix(c.Path, "/graphql") {
			out = append(out, c)
		}
	}
	return out
}

// countCalls counts the requests with method whose path contains part.
func (h *actionHarness) countCalls(method, part string) int {
	n := 0
	for _, c := range h.srv.Calls() {
		if c.Method == method && strings.Contains(c.Path, part) {
			n++
		}
	}
	return n
}

// failing writes this run's results: test fails.
func (h *actionHarness) failing(test string) {
	h.repo.JUnit("junit.xml", map[string]string{test: "fail"})
}

// spiral builds main ── agent/S-3: n failed attempts on testDup and
// returns the branch point (the checkpoint) and the head.
func (h *actionHarness) spiral(n int) (base, head string) {
	h.t.Helper()
	base = h.repo.Git("rev-parse", "HEAD")
	h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	for i := range n {
		head = h.repo.Attempt("S-3", testDup, "strategy "+string(rune('a'+i)))
	}
	h.failing(testDup)
	return base, head
}

// tripped makes the three-attempt spiral on agent/S-3, opens pull request
// 7 at its head and runs the Action on the push, which must trip. It
// returns the tripped head.
func (h *actionHarness) tripped() string {
	h.t.Helper()
	_, head := h.spiral(3)
	h.openPR(head)
	if res := h.run("push", pushEvent(h.t, "agent/S-3", head)); res.code != cli.ExitTripped {
		h.t.Fatalf("the spiral's push: exit = %d, want %d\nstdout:\n%s", res.code, cli.ExitTripped, res.stdout)
	}
	return head
}

// openPR opens pull request 7 from agent/S-3 at head.
func (h *actionHarness) openPR(head string) forge.PullRequest {
	pr := forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "agent/S-3", BaseRef: "main",
		BaseSHA: h.repo.Git("rev-parse", "main"), Author: "agent-bot"}
	h.srv.AddPullRequest(pr)
	return pr
}

// webhook loads one of the project's payloads.
func webhook(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(webhookDir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("webhook payload %s: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return m
}

// setPath is the fake GitHub's: a payload's field at a dotted path.
var setPath = ghfake.SetPath

func pushEvent(t *testing.T, branch, after string) map[string]any {
	p := webhook(t, "push.json")
	setPath(p, "ref", "refs/heads/"+branch)
	setPath(p, "after", after)
	return p
}

func pullRequestEvent(t *testing.T, action string, pr forge.PullRequest) map[string]any {
	p := webhook(t, "pull_request."+action+".json")
	setPath(p, "action", action)
	setPath(p, "number", pr.Number)
	setPath(p, "pull_request.number", pr.Number)
	setPath(p, "pull_request.state", map[bool]string{true: "closed", false: "open"}[action == "closed"])
	setPath(p, "pull_request.head.sha", pr.HeadSHA)
	setPath(p, "pull_request.head.ref", pr.HeadRef)
	setPath(p, "pull_request.head.repo.full_name", ghfake.DefaultOwner+"/"+ghfake.DefaultRepo)
	setPath(p, "pull_request.base.ref", pr.BaseRef)
	setPath(p, "pull_request.base.sha", pr.BaseSHA)
	return p
}

func commentEvent(t *testing.T, pr int, login, userType, body string) map[string]any {
	p := webhook(t, "issue_comment.json")
	setPath(p, "issue.number", pr)
	setPath(p, "issue.pull_request", map[string]any{"url": "https://api.github.com/repos/acme/shop/pulls/" + strconv.Itoa(pr)})
	setPath(p, "comment.body", body)
	setPath(p, "comment.user.login", login)
	setPath(p, "comment.user.type", userType)
	return p
}

func dispatchEvent(t *testing.T, branch string) map[string]any {
	p := webhook(t, "workflow_dispatch.json")
	setPath(p, "ref", "refs/heads/"+branch)
	setPath(p, "inputs", map[string]any{})
	return p
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readOptional(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

// parseOutputs reads a GITHUB_OUTPUT file: "name<<DELIM", the value's
// lines, "DELIM". Anything else is a test failure; a later value wins.
func parseOutputs(t *testing.T, file string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(file))
	for sc.Scan() {
		name, delim, ok := strings.Cut(sc.Text(), "<<")
		if !ok || name == "" || delim == "" {
			t.Fatalf("GITHUB_OUTPUT line %q is not name<<DELIMITER", sc.Text())
		}
		var lines []string
		closed := false
		for sc.Scan() {
			if sc.Text() == delim {
				closed = true
				break
			}
			lines = append(lines, sc.Text())
		}
		if !closed {
			t.Fatalf("GITHUB_OUTPUT: output %s is never closed by %s", name, delim)
		}
		out[name] = strings.Join(lines, "\n")
	}
	return out
}
