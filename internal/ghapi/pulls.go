package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/shurcooL/githubv4"
)

// Identity returns the login of the token's user (GET /user), or ""
// when GitHub will not say: a workflow's GITHUB_TOKEN answers 403.
func (c *Client) Identity(ctx context.Context) (string, error) {
	var user *github.User
	resp, err := c.call("get authenticated user", func() (r *github.Response, err error) {
		user, r, err = c.gh.Users.Get(ctx, "")
		return r, err
	})
	if s := status(resp); err != nil && (s == http.StatusForbidden || s == http.StatusNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return user.GetLogin(), nil
}

// PullRequest returns pull request number of the repository.
func (c *Client) PullRequest(ctx context.Context, number int) (forge.PullRequest, error) {
	var pr *github.PullRequest
	_, err := c.call(fmt.Sprintf("get pull request #%d", number), func() (r *github.Response, err error) {
		pr, r, err = c.gh.PullRequests.Get(ctx, c.owner, c.repo, number)
		return r, err
	})
	if err != nil {
		return forge.PullRequest{}, err
	}
	return toPullRequest(pr), nil
}

// FindPullRequest returns the open pull request of this repository
// whose head is sha (GET commits/{sha}/pulls); found is false when there
// is none.
func (c *Client) FindPullRequest(ctx context.Context, sha string) (forge.PullRequest, bool, error) {
	var prs []*github.PullRequest
	_, err := c.call("list pull requests of commit "+sha, func() (r *github.Response, err error) {
		prs, r, err = c.gh.PullRequests.ListPullRequestsWithCommit(ctx, c.owner, c.repo, sha, &github.ListOptions{PerPage: 100})
		return r, err
	})
	if err != nil {
		return forge.PullRequest{}, false, err
	}
	for _, pr := range prs {
		base := pr.GetBase().GetRepo().GetFullName()
		ours := base == "" || strings.EqualFold(base, c.owner+"/"+c.repo)
		if ours && pr.GetState() == "open" && pr.GetHead().GetSHA() == sha {
			return toPullRequest(pr), true, nil
		}
	}
	return forge.PullRequest{}, false, nil
}

// FindPullRequestByHead returns the open pull request of this repository
// from owner's branch whose head is sha (GET pulls?head=OWNER:BRANCH):
// the way to a fork's pull request, which commits/{sha}/pulls and a
// workflow_run's pull_requests leave out (actions/runner#3444).
func (c *Client) FindPullRequestByHead(ctx context.Context, owner, branch, sha string) (forge.PullRequest, bool, error) {
	var prs []*github.PullRequest
	opts := &github.PullRequestListOptions{State: "open", Head: owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 100}}
	_, err := c.call(fmt.Sprintf("list pull requests from %s:%s", owner, branch), func() (r *github.Response, err error) {
		prs, r, err = c.gh.PullRequests.List(ctx, c.owner, c.repo, opts)
		return r, err
	})
	if err != nil {
		return forge.PullRequest{}, false, err
	}
	for _, pr := range prs {
		if pr.GetState() == "open" && pr.GetHead().GetSHA() == sha {
			return toPullRequest(pr), true, nil
		}
	}
	return forge.PullRequest{}, false, nil
}

// OpenPullRequestsFrom lists the open pull requests of this repository
// whose head is its branch (GET pulls?state=open&head=OWNER:BRANCH, one
// page of 100: more pull requests from one branch than that is no agent's
// line of work either way).
func (c *Client) OpenPullRequestsFrom(ctx context.Context, branch string) ([]forge.PullRequest, error) {
	var prs []*github.PullRequest
	opts := &github.PullRequestListOptions{State: "open", Head: c.owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 100}}
	_, err := c.call(fmt.Sprintf("list pull requests from %s", branch), func() (r *github.Response, err error) {
		prs, r, err = c.gh.PullRequests.List(ctx, c.owner, c.repo, opts)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]forge.PullRequest, 0, len(prs))
	for _, pr := range prs {
		if p := toPullRequest(pr); !p.Fork && p.HeadRef == branch {
			out = append(out, p)
		}
	}
	return out, nil
}

func toPullRequest(pr *github.PullRequest) forge.PullRequest {
	head := pr.GetHead().GetRepo().GetFullName()
	return forge.PullRequest{
		Number:  pr.GetNumber(),
		State:   pr.GetState(),
		HeadSHA: pr.GetHead().GetSHA(),
		HeadRef: pr.GetHead().GetRef(),
		BaseRef: pr.GetBase().GetRef(),
		BaseSHA: pr.GetBase().GetSHA(),
		Author:  pr.GetUser().GetLogin(),
		// A deleted fork leaves no head repository: still not ours.
		Fork:      head == "" || !strings.EqualFold(head, pr.GetBase().GetRepo().GetFullName()),
		Labels:    labelNames(pr.Labels),
		Assignees: logins(pr.Assignees),
		NodeID:    pr.GetNodeID(),
		Draft:     pr.GetDraft(),
	}
}

// draftMutation and readyMutation are the two mutations that turn a pull
// request into a draft and back.
type draftMutation struct {
	ConvertPullRequestToDraft struct {
		PullRequest struct{ IsDraft bool }
	} `graphql:"convertPullRequestToDraft(input: $input)"`
}

type readyMutation struct {
	MarkPullRequestReadyForReview struct {
		PullRequest struct{ IsDraft bool }
	} `graphql:"markPullRequestReadyForReview(input: $input)"`
}

// ConvertToDraft turns the pull request of GraphQL id nodeID into a draft.
func (c *Client) ConvertToDraft(ctx context.Context, nodeID string) error {
	var m draftMutation
	return c.mutate(ctx, "convert the pull request to a draft", &m, githubv4.ConvertPullRequestToDraftInput{PullRequestID: githubv4.ID(nodeID)})
}

// MarkReadyForReview turns the draft pull request of GraphQL id nodeID
// ready for review again.
func (c *Client) MarkReadyForReview(ctx context.Context, nodeID string) error {
	var m readyMutation
	return c.mutate(ctx, "mark the pull request ready for review", &m, githubv4.MarkPullRequestReadyForReviewInput{PullRequestID: githubv4.ID(nodeID)})
}

func (c *Client) mutate(ctx context.Context, op string, m any, input githubv4.Input) error {
	if c.gql == nil {
		return fmt.Errorf("%s: no GraphQL endpoint configured", op)
	}
	if err := c.gql.Mutate(ctx, m, input, nil); err != nil {
		if strings.Contains(err.Error(), "Resource not accessible") {
			return fmt.Errorf("%s: %w", op, forge.ErrForbidden)
		}
		return c.redact(fmt.Errorf("%s: %w", op, err))
	}
	return nil
}

func logins(us []*github.User) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.GetLogin())
	}
	return out
}

// RequestReview asks people and teams (slugs) to review pull request pr
// (POST pulls/{n}/requested_reviewers).
func (c *Client) RequestReview(ctx context.Context, pr int, people, teams []string) error {
	_, err := c.call(fmt.Sprintf("request a review of #%d", pr), func() (r *github.Response, err error) {
		_, r, err = c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, pr, github.ReviewersRequest{Reviewers: people, TeamReviewers: teams})
		return r, err
	})
	return err
}

// RemoveReviewRequest takes back the review request of people and teams
// on pull request pr (DELETE pulls/{n}/requested_reviewers).
func (c *Client) RemoveReviewRequest(ctx context.Context, pr int, people, teams []string) error {
	_, err := c.call(fmt.Sprintf("take back the review request of #%d", pr), func() (*github.Response, error) {
		return c.gh.PullRequests.RemoveReviewers(ctx, c.owner, c.repo, pr, github.ReviewersRequest{Reviewers: people, TeamReviewers: teams})
	})
	return err
}

// InProgressRuns lists the workflow runs in progress on branch (GET
// actions/runs?branch=&status=in_progress), their ids.
func (c *Client) InProgressRuns(ctx context.Context, branch string) ([]int64, error) {
	var runs *github.WorkflowRuns
	_, err := c.call("list the workflow runs of "+branch, func() (r *github.Response, err error) {
		runs, r, err = c.gh.Actions.ListRepositoryWorkflowRuns(ctx, c.owner, c.repo,
			&github.ListWorkflowRunsOptions{Branch: branch, Status: "in_progress", ListOptions: github.ListOptions{PerPage: 100}})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, run := range runs.WorkflowRuns {
		ids = append(ids, run.GetID())
	}
	return ids, nil
}

// CancelRun cancels workflow run id (POST actions/runs/{id}/cancel, which
// answers 202); one that completed meanwhile (409) is success.
func (c *Client) CancelRun(ctx context.Context, id int64) error {
	resp, err := c.call(fmt.Sprintf("cancel workflow run %d", id), func() (*github.Response, error) {
		return c.gh.Actions.CancelWorkflowRunByID(ctx, c.owner, c.repo, id)
	})
	var accepted *github.AcceptedError
	if errors.As(err, &accepted) || status(resp) == http.StatusAccepted || status(resp) == http.StatusConflict {
		return nil
	}
	return err
}

// closingIssuesQuery reads the issues a pull request closes ("Fixes #N"
// and the pull request's Development links) and their assignees.
type closingIssuesQuery struct {
	Repository struct {
		PullRequest *struct {
			ClosingIssuesReferences struct {
				Nodes []struct {
					Number    int
					Assignees struct {
						Nodes []actor
					} `graphql:"assignees(first: 20)"`
				}
			} `graphql:"closingIssuesReferences(first: 10)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// ClosingIssues are the issues pull request pr closes, with their
// assignees.
func (c *Client) ClosingIssues(ctx context.Context, pr int) ([]forge.Issue, error) {
	var q closingIssuesQuery
	vars := map[string]any{"owner": githubv4.String(c.owner), "name": githubv4.String(c.repo), "number": githubv4.Int(pr)}
	if err := c.query(ctx, fmt.Sprintf("read the issues #%d closes", pr), &q, vars); err != nil {
		return nil, err
	}
	if q.Repository.PullRequest == nil {
		return nil, nil
	}
	var out []forge.Issue
	for _, n := range q.Repository.PullRequest.ClosingIssuesReferences.Nodes {
		is := forge.Issue{Number: n.Number}
		for _, a := range n.Assignees.Nodes {
			is.Assignees = append(is.Assignees, a.login())
		}
		out = append(out, is)
	}
	return out, nil
}

// RemoveAssignees unassigns logins from issue (or pull request) number
// (DELETE issues/{n}/assignees).
func (c *Client) RemoveAssignees(ctx context.Context, issue int, who []string) error {
	_, err := c.call(fmt.Sprintf("unassign #%d", issue), func() (r *github.Response, err error) {
		_, r, err = c.gh.Issues.RemoveAssignees(ctx, c.owner, c.repo, issue, who)
		return r, err
	})
	return err
}

// AddAssignees assigns logins to issue (or pull request) number (POST
// issues/{n}/assignees).
func (c *Client) AddAssignees(ctx context.Context, issue int, who []string) error {
	_, err := c.call(fmt.Sprintf("assign #%d", issue), func() (r *github.Response, err error) {
		_, r, err = c.gh.Issues.AddAssignees(ctx, c.owner, c.repo, issue, who)
		return r, err
	})
	return err
}

func labelNames(ls []*github.Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out
}

// AddLabels adds labels to issue (or pull request) number (POST
// issues/{n}/labels). The body is {"labels": [...]}, the form GitHub's
// OpenAPI description accepts; go-github v60's AddLabelsToIssue sends the
// bare array, which the description refuses.
func (c *Client) AddLabels(ctx context.Context, issue int, labels []string) error {
	_, err := c.call(fmt.Sprintf("label #%d", issue), func() (*github.Response, error) {
		req, err := c.gh.NewRequest("POST", fmt.Sprintf("repos/%s/%s/issues/%d/labels", c.owner, c.repo, issue),
			map[string][]string{"labels": labels})
		if err != nil {
			return nil, err
		}
		return c.gh.Do(ctx, req, nil)
	})
	return err
}

// RemoveLabel takes label off issue (or pull request) number (DELETE
// issues/{n}/labels/{name}); a label it does not carry is success.
func (c *Client) RemoveLabel(ctx context.Context, issue int, label string) error {
	resp, err := c.call(fmt.Sprintf("unlabel #%d", issue), func() (*github.Response, error) {
		return c.gh.Issues.RemoveLabelForIssue(ctx, c.owner, c.repo, issue, label)
	})
	if status(resp) == http.StatusNotFound {
		return nil
	}
	return err
}

// permissionLevel is the collaborator permission answer; go-github v60
// does not decode role_name.
type permissionLevel struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
}

// Permission returns login's permission on the repository: "admin",
// "maintain", "write", "triage", "read" or "none". GitHub's permission
// field folds maintain into write and triage into read; role_name, where
// GitHub sends it, tells them apart.
func (c *Client) Permission(ctx context.Context, login string) (string, error) {
	var level permissionLevel
	path := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission",
		url.PathEscape(c.owner), url.PathEscape(c.repo), url.PathEscape(login))
	_, err := c.call("get permission of "+login, func() (*github.Response, error) {
		req, err := c.gh.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		return c.gh.Do(ctx, req, &level)
	})
	if err != nil {
		return "", err
	}
	switch role := strings.ToLower(level.RoleName); role {
	case "maintain", "triage":
		return role, nil
	}
	return strings.ToLower(level.Permission), nil
}
