package action_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// rigToken is the token every run is given; it matches no token pattern.
const rigToken = "s3cret-rig-token-0815"

// webhooks are the project's own event payloads, shaped as GitHub sends
// them (internal/actionenv checks them against GitHub's webhook schema).
const webhooks = "../actionenv/testdata/webhooks"

// rig is one repository's workflow, run through action.Run: a real git
// repository as the workspace, the project's fake GitHub, and the inputs
// of the breaker's step. Each run is a minute after the one before, with
// its own run id, as on GitHub.
type rig struct {
	t      testing.TB
	dir    string
	srv    *ghfake.Server
	inputs map[string]string
	env    map[string]string // more of the runner's environment, e.g. GITHUB_RUN_ATTEMPT
	runs   int
	repo   *gitrepo.Repo // the workspace's repository (dir)
	// prHeads are the heads the rig last sent each pull request's events
	// for: a synchronize's before.
	prHeads map[int]string
	// authors are who opened each pull request, "agent-bot" when not set.
	authors map[int]string
	// hold keeps the clock where the run before left it: two runs that
	// finish in the same second.
	hold bool
	held time.Time
}

func newRig(t testing.TB) *rig {
	t.Helper()
	return newRigWith(t)
}

// newRigWith is newRig with more of the fake GitHub's options.
func newRigWith(t testing.TB, opts ...ghfake.Option) *rig {
	t.Helper()
	repo := gitrepo.New(t)
	r := &rig{t: t, dir: repo.Dir, repo: repo, srv: ghfake.New(t, append([]ghfake.Option{ghfake.WithToken(rigToken)}, opts...)...),
		inputs: map[string]string{"token": rigToken, "results": "junit.xml"}, env: map[string]string{}}
	r.srv.SetDefaultBranch("main", r.git("rev-parse", "main"))
	return r
}

// git runs git in the repository with fixed identities and dates.
func (r *rig) git(args ...string) string {
	r.t.Helper()
	return r.repo.Git(args...)
}

// commit commits a new file with message (trailers after a blank line).
func (r *rig) commit(message string, trailers ...string) string {
	r.t.Helper()
	return r.repo.Commit(message, trailers...)
}

// results writes junit.xml: test → pass or fail, in suite users.
func (r *rig) results(statuses map[string]string) {
	r.t.Helper()
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<testsuite name=\"users\">\n")
	for test, status := range statuses {
		fmt.Fprintf(&b, "  <testcase classname=\"users\" name=%q>", test)
		if status == "fail" {
			b.WriteString(`<failure message="expected 409, got 500">service_test.go:42: expected 409, got 500</failure>`)
		}
		b.WriteString("</testcase>\n")
	}
	b.WriteString("</testsuite>\n")
	if err := os.WriteFile(filepath.Join(r.dir, "junit.xml"), []byte(b.String()), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// open makes pull request number from branch at its head into main, with
// the branch's own commits (main..head) as its commits, as GitHub lists
// them.
func (r *rig) open(number int, branch string) forge.PullRequest {
	r.t.Helper()
	return r.openInto(number, branch, "main")
}

// openInto is open with another base branch.
func (r *rig) openInto(number int, branch, base string) forge.PullRequest {
	r.t.Helper()
	head := r.git("rev-parse", branch)
	author := "agent-bot"
	if a, ok := r.authors[number]; ok {
		author = a
	}
	pr := forge.PullRequest{Number: number, HeadSHA: head, HeadRef: branch, BaseRef: base,
		BaseSHA: r.git("rev-parse", base), Author: author, State: "open"}
	r.srv.AddPullRequest(pr)
	var own []string
	if out := r.git("rev-list", "--reverse", base+".."+head); out != "" {
		own = strings.Fields(out)
	}
	r.srv.SetPullRequestCommits(number, own)
	return pr
}

// pullRequest runs the Action on a pull_request event (opened or
// synchronize) for pr, as GitHub sends it.
func (r *rig) pullRequest(action string, pr forge.PullRequest) outcome {
	r.t.Helper()
	p := r.payload("pull_request." + action + ".json")
	p["action"], p["number"] = action, pr.Number
	pl := p["pull_request"].(map[string]any)
	pl["number"], pl["state"] = pr.Number, "open"
	head, base := pl["head"].(map[string]any), pl["base"].(map[string]any)
	head["sha"], head["ref"] = pr.HeadSHA, pr.HeadRef
	head["repo"].(map[string]any)["full_name"] = r.srv.Owner() + "/" + r.srv.Repo()
	base["sha"], base["ref"] = pr.BaseSHA, pr.BaseRef
	// A synchronize says where the head branch was (GitHub's before): the
	// head of the event before it. The rig's tests that synchronize
	// without an event before say nothing (all zeros, which the breaker
	// reads as unknown).
	if action == "synchronize" {
		p["before"] = "0000000000000000000000000000000000000000"
		if prev, ok := r.prHeads[pr.Number]; ok {
			p["before"] = prev
		}
	}
	if r.prHeads == nil {
		r.prHeads = map[int]string{}
	}
	r.prHeads[pr.Number] = pr.HeadSHA
	return r.run("pull_request", p)
}

// close closes pull request number, unmerged.
func (r *rig) close(number int, branch string) {
	r.srv.AddPullRequest(forge.PullRequest{Number: number, HeadSHA: r.git("rev-parse", branch), HeadRef: branch,
		BaseRef: "main", BaseSHA: r.git("rev-parse", "main"), Author: "agent-bot", State: "closed"})
}

// outcome is what one run left: its decision and outputs.
type outcome struct {
	action.Outcome
	stdout  string
	summary string // the step summary
	outputs map[string]string
}

func (o outcome) state() string {
	if o.Decision == nil {
		return ""
	}
	return string(o.Decision.State)
}

// push gives GitHub the branch at its head (its commits, the ref) and
// runs the Action on the push event.
func (r *rig) push(branch string) outcome {
	r.t.Helper()
	head := r.git("rev-parse", branch)
	r.giveCommits(head)
	// before and forced as GitHub sends them: where the branch was, and
	// whether the push rewrote it.
	before, forced := "0000000000000000000000000000000000000000", false
	if old, ok := r.srv.Ref("heads/" + branch); ok {
		before = old
		forced = exec.Command("git", "-C", r.dir, "merge-base", "--is-ancestor", old, head).Run() != nil
	}
	r.srv.SetRef("heads/"+branch, head)
	p := r.payload("push.json")
	p["ref"], p["after"], p["before"], p["forced"] = "refs/heads/"+branch, head, before, forced
	p["commits"] = r.pushedCommits(p, before, head)
	return r.run("push", p)
}

// pushedCommits are a push payload's commits as GitHub lists them: every
// commit of before..head (the branch's own when before is a new branch's
// zeros), oldest first, at most 2,048, each the payload's commit object
// with its id.
func (r *rig) pushedCommits(p map[string]any, before, head string) []any {
	r.t.Helper()
	template := p["commits"].([]any)[0].(map[string]any)
	span := before + ".." + head
	if strings.Trim(before, "0") == "" {
		span = "main.." + head
	}
	var out []any
	for _, id := range strings.Fields(r.git("rev-list", "--reverse", span)) {
		c := make(map[string]any, len(template))
		for k, v := range template {
			c[k] = v
		}
		c["id"] = id
		if out = append(out, c); len(out) == 2048 {
			break
		}
	}
	return out
}

// comment has login (a user with write access) comment body on pull
// request number, and runs the Action on the event.
func (r *rig) comment(number int, login, body string) outcome {
	r.t.Helper()
	return r.run("issue_comment", r.commented(number, login, body))
}

// commented writes the comment on GitHub and returns the event GitHub
// sends for it (a test may replay it, or change the comment first).
func (r *rig) commented(number int, login, body string) map[string]any {
	r.t.Helper()
	r.srv.SetPermission(login, "write")
	p := r.payload("issue_comment.json")
	issue := p["issue"].(map[string]any)
	issue["number"] = number
	issue["pull_request"] = map[string]any{"url": "https://api.github.com/repos/acme/shop/pulls/" + strconv.Itoa(number)}
	c := p["comment"].(map[string]any)
	c["id"] = r.srv.AddComment(number, login, body)
	c["body"] = body
	c["user"].(map[string]any)["login"] = login
	c["user"].(map[string]any)["type"] = "User"
	return p
}

func (r *rig) payload(name string) map[string]any {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(webhooks, name))
	if err != nil {
		r.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

var rigEpoch = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// run runs the Action once, with fresh output and summary files.
func (r *rig) run(event string, payload map[string]any) outcome {
	r.t.Helper()
	if err := ghfake.CheckWebhook(event, payload); err != nil {
		r.t.Fatalf("the test's %s payload is not one GitHub sends: %v", event, err)
	}
	r.runs++
	dir := r.t.TempDir()
	data, _ := json.Marshal(payload)
	eventPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(eventPath, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_REPOSITORY": r.srv.Owner() + "/" + r.srv.Repo(), "GITHUB_WORKSPACE": r.dir,
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"GITHUB_RUN_ID": strconv.Itoa(5000 + r.runs), "GITHUB_SERVER_URL": "https://github.com",
	}
	for k, v := range r.inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	for k, v := range r.env {
		env[k] = v
	}
	now := rigEpoch.Add(time.Duration(r.runs) * time.Minute)
	if r.hold && !r.held.IsZero() {
		now = r.held
	}
	r.held = now
	deps := action.Deps{
		NewForge: func(c actionenv.Context, in actionenv.Inputs) (action.Forge, error) {
			return ghapi.New(ghapi.Config{Token: in.Token, APIURL: r.srv.URL(), Owner: c.Owner, Repo: c.Repo,
				Now:   func() time.Time { return now },
				Sleep: func(context.Context, time.Duration) error { return nil }})
		},
		Load: evaluate.Load,
		Now:  func() time.Time { return now },
	}
	var stdout bytes.Buffer
	out := action.Run(context.Background(), deps, actionenv.New(func(k string) string { return env[k] }, &stdout))
	o := outcome{Outcome: out, stdout: stdout.String(), outputs: map[string]string{}}
	if s, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err == nil {
		o.summary = string(s)
	}
	raw, _ := os.ReadFile(env["GITHUB_OUTPUT"])
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		o.outputs[name] = strings.Join(val, "\n")
	}
	return o
}

// checkRun is the newest breaker check run on sha.
func (r *rig) checkRun(sha string) ghfake.CheckRun {
	r.t.Helper()
	var out ghfake.CheckRun
	for _, c := range r.srv.CheckRuns() {
		if c.HeadSHA == sha && c.Name == "greenlight-breaker" {
			out = c
		}
	}
	if out.ID == 0 {
		r.t.Fatalf("no breaker check run on %s", sha)
	}
	return out
}

// hardened sets the rig up as the hardened deployment: the breaker on
// workflow_run reads the tested run's artifact, with a ledger key.
func (r *rig) hardened() {
	r.t.Helper()
	r.inputs["results-artifact"] = "test-results"
	r.inputs["results"] = "reports/*.xml"
	r.inputs["ledger-key"] = "a-ledger-key-of-the-hardened-rig"
	if r.env == nil {
		r.env = map[string]string{}
	}
	r.env["RUNNER_TEMP"] = r.t.TempDir()
}

// junitOf is a JUnit file: test → pass or fail, in suite users.
func junitOf(statuses map[string]string) string {
	var b strings.Builder
	b.WriteString(`<testsuite name="users">`)
	for test, status := range statuses {
		fmt.Fprintf(&b, `<testcase classname="users" name=%q>`, test)
		if status == "fail" {
			b.WriteString(`<failure message="expected 409, got 500">service_test.go:42</failure>`)
		}
		b.WriteString(`</testcase>`)
	}
	b.WriteString(`</testsuite>`)
	return b.String()
}

// workflowRun runs the Action on the completion of tested run runID of
// pr (a pull_request run of this repository) with conclusion; junit, when
// not empty, is the run's uploaded artifact reports/junit.xml.
func (r *rig) workflowRun(runID int64, pr forge.PullRequest, conclusion, junit string) outcome {
	r.t.Helper()
	r.artifact(runID, junit)
	r.giveCommits(pr.HeadSHA)
	p := r.payload("workflow_run.json")
	p["action"] = "completed"
	wr := p["workflow_run"].(map[string]any)
	wr["id"], wr["event"], wr["conclusion"] = runID, "pull_request", conclusion
	wr["head_sha"], wr["head_branch"] = pr.HeadSHA, pr.HeadRef
	repo := map[string]any{"id": 731002, "name": r.srv.Repo(), "url": "https://api.github.com/repos/" + r.srv.Owner() + "/" + r.srv.Repo()}
	wr["pull_requests"] = []any{map[string]any{
		"url":    "https://api.github.com/repos/" + r.srv.Owner() + "/" + r.srv.Repo() + "/pulls/" + strconv.Itoa(pr.Number),
		"id":     1881000 + pr.Number,
		"number": pr.Number,
		"head":   map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA, "repo": repo},
		"base":   map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA, "repo": repo},
	}}
	return r.run("workflow_run", p)
}

// workflowRunOfPush runs the Action on the completion of tested run runID
// of a push to branch (no pull request: GitHub lists none for a push),
// concluded as conclusion, with junit as its artifact.
func (r *rig) workflowRunOfPush(runID int64, branch, conclusion, junit string) outcome {
	r.t.Helper()
	r.artifact(runID, junit)
	head := r.git("rev-parse", branch)
	r.giveCommits(head)
	r.srv.SetRef("heads/"+branch, head)
	p := r.payload("workflow_run.json")
	p["action"] = "completed"
	wr := p["workflow_run"].(map[string]any)
	wr["id"], wr["event"], wr["conclusion"] = runID, "push", conclusion
	wr["head_sha"], wr["head_branch"] = head, branch
	wr["pull_requests"] = []any{}
	return r.run("workflow_run", p)
}

// artifact uploads junit, when not empty, as tested run runID's artifact
// test-results, holding reports/junit.xml.
func (r *rig) artifact(runID int64, junit string) {
	r.t.Helper()
	if junit != "" {
		r.namedArtifact(runID, "test-results", "reports/junit.xml", junit)
	}
}

// giveCommits gives GitHub head and its history, as a push does.
func (r *rig) giveCommits(head string) {
	r.t.Helper()
	for _, line := range strings.Split(r.git("log", "--format=%H %T %P", head), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			r.srv.AddCommit(f[0], f[1], "", f[2:]...)
		}
	}
}

// commitMany adds n empty commits to branch (checked out) in one git
// fast-import.
func (r *rig) commitMany(branch string, n int) string {
	r.t.Helper()
	return r.repo.CommitMany(branch, n)
}
