package actionenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// The events the breaker acts on.
const (
	EventPush              = "push"
	EventPullRequest       = "pull_request"
	EventPullRequestTarget = "pull_request_target"
	EventIssueComment      = "issue_comment"
	EventWorkflowDispatch  = "workflow_dispatch"
	EventWorkflowRun       = "workflow_run"
)

// Event is the subset of a webhook payload the breaker uses. Exactly one of
// the pointers is set for a supported event; none for the others.
type Event struct {
	Name        string
	Action      string             // "opened", "synchronize", "closed", "created", ...
	PullRequest *forge.PullRequest // pull_request, pull_request_target
	Merged      bool               // pull_request: closed by a merge
	// Before is, for a pull_request synchronize, where the head branch was
	// before the push (GitHub's word); "" otherwise. Commits is the pull
	// request's number of commits, as the payload gives it.
	Before      string
	Commits     int
	Push        *Push
	Comment     *IssueComment
	Dispatch    *Dispatch
	WorkflowRun *WorkflowRun
}

// WorkflowRun is the subset of a workflow_run payload the breaker uses:
// the run that tested the agent's head (the hardened mode, DESIGN §7).
type WorkflowRun struct {
	ID         int64
	HeadSHA    string
	HeadBranch string
	Event      string // what triggered the tested run: push, pull_request, ...
	Conclusion string
	// RunAttempt is the tested run's attempt (1, or more for a re-run).
	RunAttempt int
	// HeadOwner is the owner of the repository the tested head came from
	// (workflow_run.head_repository.owner.login): a fork's owner for a
	// fork's pull request, whose run lists no pull request.
	HeadOwner string
	// PullRequest is the run's pull request (number, head and base as the
	// payload gives them), nil when the payload lists none.
	PullRequest *forge.PullRequest
}

// Push is the subset of a push payload the breaker uses.
type Push struct {
	Ref   string // refs/heads/<branch> or refs/tags/<tag>
	After string // the pushed head; all zeros when the ref was deleted
	// Before is where the branch was before the push (GitHub's word, not
	// the agent's): after a force push, the head whose ledger entry names
	// the line's earlier heads. All zeros for a new branch.
	Before string
	// Commits is how many commits the payload lists as pushed (GitHub
	// lists at most 2,048).
	Commits int
}

// IssueComment is the subset of an issue_comment payload the breaker uses.
type IssueComment struct {
	ID            int64 // the comment's id: a reset is one comment, once
	Body          string
	Author        string
	AuthorType    string // "User", "Bot", "Organization"
	Issue         int
	OnPullRequest bool // the issue is a pull request
}

// Dispatch is the subset of a workflow_dispatch payload the breaker uses.
type Dispatch struct {
	Ref    string
	Inputs map[string]string
}

// maxEvent caps the payload read: GitHub caps webhook payloads at 25 MB.
const maxEvent = 32 << 20

// payload mirrors the JSON fields read; everything else is ignored.
type payload struct {
	Action      string     `json:"action"`
	Ref         string     `json:"ref"`
	After       string     `json:"after"`
	Before      string     `json:"before"`
	Commits     []struct{} `json:"commits"`
	PullRequest *prPayload `json:"pull_request"`
	Comment     *struct {
		ID   int64    `json:"id"`
		Body string   `json:"body"`
		User userJSON `json:"user"`
	} `json:"comment"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Inputs      map[string]any   `json:"inputs"`
	Repository  *repoJSON        `json:"repository"`
	WorkflowRun *workflowRunJSON `json:"workflow_run"`
}

type workflowRunJSON struct {
	ID         int64  `json:"id"`
	HeadSHA    string `json:"head_sha"`
	HeadBranch string `json:"head_branch"`
	Event      string `json:"event"`
	Conclusion string `json:"conclusion"`
	RunAttempt int    `json:"run_attempt"`
	HeadRepo   *struct {
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"head_repository"`
	PullRequests []struct {
		Number int `json:"number"`
		Head   struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"base"`
	} `json:"pull_requests"`
}

type prPayload struct {
	Number  int      `json:"number"`
	Commits int      `json:"commits"`
	State   string   `json:"state"`
	Merged  bool     `json:"merged"`
	User    userJSON `json:"user"`
	Head    struct {
		SHA  string    `json:"sha"`
		Ref  string    `json:"ref"`
		Repo *repoJSON `json:"repo"`
	} `json:"head"`
	Base struct {
		Ref  string    `json:"ref"`
		SHA  string    `json:"sha"`
		Repo *repoJSON `json:"repo"`
	} `json:"base"`
}

type userJSON struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type repoJSON struct {
	FullName string `json:"full_name"`
}

// ParseEvent reads the payload of the event name from r. repo is the
// workflow's repository (owner/name): a pull request whose head lives
// elsewhere is a fork. An unsupported event yields an Event with only Name
// and Action set.
func ParseEvent(name, repo string, r io.Reader) (Event, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxEvent+1))
	if err != nil {
		return Event{}, fmt.Errorf("read event payload: %w", err)
	}
	if len(data) > maxEvent {
		return Event{}, fmt.Errorf("event payload is larger than %d bytes", maxEvent)
	}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return Event{}, fmt.Errorf("parse %s event payload: %w", name, err)
	}
	ev := Event{Name: name, Action: p.Action}
	switch name {
	case EventPush:
		ev.Push = &Push{Ref: p.Ref, After: p.After, Before: p.Before, Commits: len(p.Commits)}
	case EventPullRequest, EventPullRequestTarget:
		err = p.fillPullRequest(&ev, repo)
	case EventIssueComment:
		err = p.fillComment(&ev)
	case EventWorkflowDispatch:
		ev.Dispatch = &Dispatch{Ref: p.Ref, Inputs: stringInputs(p.Inputs)}
	case EventWorkflowRun:
		err = p.fillWorkflowRun(&ev)
	}
	return ev, err
}

func (p *payload) fillPullRequest(ev *Event, repo string) error {
	pr := p.PullRequest
	if pr == nil || pr.Number <= 0 || pr.Head.SHA == "" {
		return errors.New("pull_request payload has no pull_request number and head.sha")
	}
	fork := pr.Head.Repo == nil || !strings.EqualFold(pr.Head.Repo.FullName, repo)
	ev.PullRequest = &forge.PullRequest{
		Number: pr.Number, State: pr.State, HeadSHA: pr.Head.SHA, HeadRef: pr.Head.Ref,
		BaseRef: pr.Base.Ref, BaseSHA: pr.Base.SHA, Author: pr.User.Login, Fork: fork,
	}
	ev.Merged, ev.Commits = pr.Merged, pr.Commits
	if p.Action == "synchronize" {
		ev.Before = p.Before
	}
	return nil
}

func (p *payload) fillWorkflowRun(ev *Event) error {
	wr := p.WorkflowRun
	if wr == nil || wr.ID <= 0 || wr.HeadSHA == "" {
		return errors.New("workflow_run payload has no workflow_run id and head_sha")
	}
	ev.WorkflowRun = &WorkflowRun{ID: wr.ID, HeadSHA: wr.HeadSHA, HeadBranch: wr.HeadBranch, Event: wr.Event, Conclusion: wr.Conclusion,
		RunAttempt: max(wr.RunAttempt, 1)}
	if wr.HeadRepo != nil {
		ev.WorkflowRun.HeadOwner = wr.HeadRepo.Owner.Login
	}
	// The payload lists the pull requests whose head is the run's head; a
	// fork's pull requests are not listed (the API is asked instead).
	for _, pr := range wr.PullRequests {
		if pr.Number > 0 && strings.EqualFold(pr.Head.SHA, wr.HeadSHA) {
			ev.WorkflowRun.PullRequest = &forge.PullRequest{Number: pr.Number, State: "open",
				HeadSHA: pr.Head.SHA, HeadRef: pr.Head.Ref, BaseRef: pr.Base.Ref, BaseSHA: pr.Base.SHA}
			break
		}
	}
	return nil
}

func (p *payload) fillComment(ev *Event) error {
	if p.Comment == nil || p.Issue == nil || p.Issue.Number <= 0 {
		return errors.New("issue_comment payload has no comment and issue number")
	}
	raw := strings.TrimSpace(string(p.Issue.PullRequest))
	ev.Comment = &IssueComment{
		ID: p.Comment.ID, Body: p.Comment.Body, Author: p.Comment.User.Login, AuthorType: p.Comment.User.Type,
		Issue: p.Issue.Number, OnPullRequest: raw != "" && raw != "null",
	}
	return nil
}

// stringInputs keeps the dispatch inputs that are strings, booleans or
// numbers, as text.
func stringInputs(in map[string]any) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch v := v.(type) {
		case string:
			out[k] = v
		case bool, float64:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}
