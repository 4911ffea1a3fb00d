package actionenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// webhooks is the folder of real webhook payloads shared by the project.
const webhooks = "../../../shared/fixtures/webhooks"

func readWebhook(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(webhooks, name))
	if os.IsNotExist(err) {
		t.Skipf("corpus: %s not found (the ../shared corpus beside the repository)", webhooks)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ownPayloads are the project's own webhook payloads (testdata/webhooks).
const ownPayloads = "testdata/webhooks"

// TestParseEvent_ownPayloads parses the payloads the project wrote, one per
// event the breaker acts on; TestParseEvent_fixtures does the same over
// GitHub's published examples when ../shared is beside the project.
func TestParseEvent_ownPayloads(t *testing.T) {
	t.Parallel()
	const repo = "acme/shop"
	head, base := "9fceb02d0ae598e95dc970b74767f19372d61af8", "2f1a7c3d5e9b0a4c6d8e1f3a5b7c9d0e2f4a6b8c"
	pr := func(state string) *forge.PullRequest {
		return &forge.PullRequest{Number: 7, State: state, HeadSHA: head, HeadRef: "agent/S-3", BaseRef: "main", BaseSHA: base, Author: "shop-agent[bot]"}
	}
	tests := []struct {
		file, event string
		want        Event
	}{
		{"push.json", EventPush, Event{Name: "push", Push: &Push{Ref: "refs/heads/agent/S-3", After: head, Before: "1e8b7c6d5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d", Commits: 1}}},
		{"pull_request.opened.json", EventPullRequest, Event{Name: "pull_request", Action: "opened", PullRequest: pr("open"), Commits: 3}},
		{"pull_request.synchronize.json", EventPullRequest, Event{Name: "pull_request", Action: "synchronize", PullRequest: pr("open"),
			Before: "1e8b7c6d5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d", Commits: 3}},
		{"pull_request.closed.json", EventPullRequest, Event{Name: "pull_request", Action: "closed", PullRequest: pr("closed"), Merged: true, Commits: 3}},
		{"issue_comment.json", EventIssueComment, Event{Name: "issue_comment", Action: "created",
			Comment: &IssueComment{ID: 2202001, Body: "/breaker reset S-3 use the repository's ErrDuplicate", Author: "dana", AuthorType: "User", Issue: 7, OnPullRequest: true}}},
		{"workflow_dispatch.json", EventWorkflowDispatch, Event{Name: "workflow_dispatch",
			Dispatch: &Dispatch{Ref: "refs/heads/agent/S-3", Inputs: map[string]string{"slice": "S-3"}}}},
		{"workflow_run.json", EventWorkflowRun, Event{Name: "workflow_run", Action: "completed",
			WorkflowRun: &WorkflowRun{ID: 7300001, HeadSHA: head, HeadBranch: "agent/S-3", Event: "pull_request", Conclusion: "failure", RunAttempt: 1, HeadOwner: "acme",
				PullRequest: &forge.PullRequest{Number: 7, State: "open", HeadSHA: head, HeadRef: "agent/S-3", BaseRef: "main", BaseSHA: base}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(ownPayloads, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseEvent(tt.event, repo, bytes.NewReader(data))
			if err != nil {
				t.Fatalf("ParseEvent() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseEvent() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEvent_fixtures(t *testing.T) {
	t.Parallel()
	const repo = "Codertocat/Hello-World"
	tests := []struct {
		file  string
		event string
		want  Event
	}{
		{"push/with-new-branch.payload.json", EventPush, Event{Name: "push",
			Push: &Push{Ref: "refs/heads/master", After: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", Before: "0000000000000000000000000000000000000000", Commits: 1}}},
		{"push/payload.json", EventPush, Event{Name: "push",
			Push: &Push{Ref: "refs/tags/simple-tag", After: "0000000000000000000000000000000000000000", Before: "6113728f27ae82c7b1a177c8d03f9e96e0adf246"}}},
		{"pull_request/synchronize.payload.json", EventPullRequest, Event{Name: "pull_request", Action: "synchronize",
			PullRequest: &forge.PullRequest{Number: 2, State: "open", HeadSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
				HeadRef: "changes", BaseRef: "master", BaseSHA: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Author: "Codertocat"},
			Before: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Commits: 1}},
		{"pull_request/closed.payload.json", EventPullRequest, Event{Name: "pull_request", Action: "closed",
			PullRequest: &forge.PullRequest{Number: 2, State: "closed", HeadSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
				HeadRef: "changes", BaseRef: "master", BaseSHA: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Author: "Codertocat"}, Commits: 1}},
		{"issue_comment/created.payload.json", EventIssueComment, Event{Name: "issue_comment", Action: "created",
			Comment: &IssueComment{ID: 492700400, Body: "You are totally right! I'll get this fixed right away.", Author: "Codertocat",
				AuthorType: "User", Issue: 1}}},
		{"workflow_dispatch/payload.json", EventWorkflowDispatch, Event{Name: "workflow_dispatch",
			Dispatch: &Dispatch{Ref: "refs/heads/master", Inputs: map[string]string{"name": "Mona the Octocat"}}}},
		{"workflow_run/completed.payload.json", "workflow_run", Event{Name: "workflow_run", Action: "completed",
			WorkflowRun: &WorkflowRun{ID: 289782451, HeadSHA: "3484a3fb816e0859fd6e1cea078d76385ff50625", HeadBranch: "master",
				Event: "repository_dispatch", Conclusion: "success", RunAttempt: 1, HeadOwner: "octo-org"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent(tt.event, repo, bytes.NewReader(readWebhook(t, tt.file)))
			if err != nil {
				t.Fatalf("ParseEvent() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseEvent() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEvent_shapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, body string
		check             func(Event) bool
		wantErr           string
	}{
		{"fork pull request", EventPullRequest,
			`{"pull_request":{"number":7,"head":{"sha":"abc","repo":{"full_name":"fork/Hello-World"}}}}`,
			func(e Event) bool { return e.PullRequest.Fork }, ""},
		{"deleted fork", EventPullRequest, `{"pull_request":{"number":7,"head":{"sha":"abc","repo":null}}}`,
			func(e Event) bool { return e.PullRequest.Fork }, ""},
		{"comment on a pull request", EventIssueComment,
			`{"action":"created","comment":{"body":"/breaker debug","user":{"login":"a","type":"User"}},"issue":{"number":3,"pull_request":{"url":"x"}}}`,
			func(e Event) bool { return e.Comment.OnPullRequest && e.Comment.Issue == 3 }, ""},
		{"comment with null pull_request", EventIssueComment,
			`{"comment":{"body":"x"},"issue":{"number":3,"pull_request":null}}`,
			func(e Event) bool { return !e.Comment.OnPullRequest }, ""},
		{"dispatch inputs of every type", EventWorkflowDispatch, `{"inputs":{"slice":"S-2","n":3,"b":true,"o":{}}}`,
			func(e Event) bool {
				return cmp.Equal(e.Dispatch.Inputs, map[string]string{"slice": "S-2", "n": "3", "b": "true"})
			}, ""},
		{"pull request without head", EventPullRequest, `{"pull_request":{"number":7}}`, nil, "no pull_request number and head.sha"},
		{"comment without issue", EventIssueComment, `{"comment":{"body":"x"}}`, nil, "no comment and issue number"},
		{"not JSON", EventPush, `{"ref":`, nil, "parse push event payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent(tt.event, "Codertocat/Hello-World", strings.NewReader(tt.body))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseEvent() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseEvent() error = %v", err)
			}
			if !tt.check(got) {
				t.Errorf("ParseEvent() = %+v, check failed", got)
			}
		})
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, name := range []string{"push/1.payload.json", "pull_request/opened.payload.json", "issue_comment/created.payload.json"} {
		if data, err := os.ReadFile(filepath.Join(webhooks, name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"pull_request":{"number":1,"head":{"sha":"a","repo":null}}}`))
	f.Add([]byte(`{"issue":{"number":-1,"pull_request":1},"comment":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ev := range []string{EventPush, EventPullRequest, EventIssueComment, EventWorkflowDispatch} {
			e, err := ParseEvent(ev, "o/r", bytes.NewReader(data))
			if err != nil {
				continue
			}
			if ev == EventPullRequest && (e.PullRequest == nil || e.PullRequest.Number <= 0) {
				t.Errorf("ParseEvent(%s) accepted a pull request without a number: %+v", ev, e)
			}
			if ev == EventIssueComment && (e.Comment == nil || e.Comment.Issue <= 0) {
				t.Errorf("ParseEvent(%s) accepted a comment without an issue: %+v", ev, e)
			}
		}
	})
}

func TestAction_Context(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "event.json")
	payload, err := os.ReadFile(filepath.Join(ownPayloads, "pull_request.opened.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path, "GITHUB_REPOSITORY": "Codertocat/Hello-World",
		"GITHUB_WORKSPACE": dir, "GITHUB_RUN_ID": "42", "GITHUB_SHA": "merge-sha",
	}
	got, err := New(mapEnv(env), nil).Context()
	if err != nil {
		t.Fatalf("Context() error = %v", err)
	}

	if got.Owner != "Codertocat" || got.Repo != "Hello-World" || got.APIURL != "https://api.github.com" {
		t.Errorf("Context() = %+v, want owner/repo and the default API URL", got)
	}
	if got.RunURL != "https://github.com/Codertocat/Hello-World/actions/runs/42" {
		t.Errorf("RunURL = %q", got.RunURL)
	}
	if got.Event.PullRequest == nil || got.Event.PullRequest.HeadSHA == "merge-sha" {
		t.Errorf("Event.PullRequest = %+v, want the head.sha of the payload", got.Event.PullRequest)
	}
	_, err = New(mapEnv(map[string]string{"GITHUB_REPOSITORY": "noslash"}), nil).Context()
	for _, want := range []string{"GITHUB_REPOSITORY", "GITHUB_EVENT_NAME", "GITHUB_WORKSPACE"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Context() error = %v, want it to name %s", err, want)
		}
	}
}
