package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// maxPages bounds ListComments: 100 pages of 100 comments.
const maxPages = 100

// ListComments returns every comment on pull request pr, oldest first,
// 100 a page, following the Link header's next URL.
func (c *Client) ListComments(ctx context.Context, pr int) ([]forge.Comment, error) {
	op := fmt.Sprintf("list comments on #%d", pr)
	var page []*github.IssueComment
	resp, err := c.call(op, func() (r *github.Response, err error) {
		opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
		page, r, err = c.gh.Issues.ListComments(ctx, c.owner, c.repo, pr, opts)
		return r, err
	})
	var out []forge.Comment
	for n := 1; ; n++ {
		if err != nil {
			return nil, err
		}
		for _, cm := range page {
			out = append(out, toComment(cm))
		}
		next := nextLink(resp.Header.Get("Link"))
		if next == "" {
			return out, nil
		}
		if n == maxPages {
			return nil, fmt.Errorf("%s: more than %d pages", op, maxPages)
		}
		page = nil
		resp, err = c.call(op, func() (*github.Response, error) {
			return c.getPage(ctx, next, &page)
		})
	}
}

// getPage fetches a pagination URL, which must be on the API's host so
// that the token goes nowhere else.
func (c *Client) getPage(ctx context.Context, next string, v any) (*github.Response, error) {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != c.gh.BaseURL.Scheme || u.Host != c.gh.BaseURL.Host {
		return nil, fmt.Errorf("next page %q is not on %s", next, c.gh.BaseURL.Host)
	}
	req, err := c.gh.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	return c.gh.Do(ctx, req, v)
}

func toComment(cm *github.IssueComment) forge.Comment {
	return forge.Comment{ID: cm.GetID(), Author: cm.GetUser().GetLogin(), Body: cm.GetBody(),
		CreatedAt: cm.GetCreatedAt().UTC(), Edited: cm.GetUpdatedAt().After(cm.GetCreatedAt().Time)}
}

// CreateComment posts a comment on pull request pr.
func (c *Client) CreateComment(ctx context.Context, pr int, body string) (forge.Comment, error) {
	var cm *github.IssueComment
	_, err := c.call(fmt.Sprintf("create comment on #%d", pr), func() (r *github.Response, err error) {
		cm, r, err = c.gh.Issues.CreateComment(ctx, c.owner, c.repo, pr, &github.IssueComment{Body: &body})
		return r, err
	})
	if err != nil {
		return forge.Comment{}, err
	}
	return toComment(cm), nil
}

// GetComment reads comment id back (GET /repos/{owner}/{repo}/issues/
// comments/{comment_id}); a deleted comment is not found, not an error.
// Edited is set when GitHub's updated_at is later than its created_at.
func (c *Client) GetComment(ctx context.Context, id int64) (forge.Comment, bool, error) {
	var cm *github.IssueComment
	_, err := c.call(fmt.Sprintf("read comment %d", id), func() (r *github.Response, err error) {
		cm, r, err = c.gh.Issues.GetComment(ctx, c.owner, c.repo, id)
		return r, err
	})
	if errors.Is(err, ErrNotFound) {
		return forge.Comment{}, false, nil
	}
	if err != nil {
		return forge.Comment{}, false, err
	}
	out := toComment(cm)
	if i := strings.LastIndexByte(cm.GetIssueURL(), '/'); i >= 0 {
		out.Issue, _ = strconv.Atoi(cm.GetIssueURL()[i+1:])
	}
	return out, true, nil
}

// DeleteComment deletes comment id; one already gone is success.
func (c *Client) DeleteComment(ctx context.Context, id int64) error {
	_, err := c.call(fmt.Sprintf("delete comment %d", id), func() (r *github.Response, err error) {
		return c.gh.Issues.DeleteComment(ctx, c.owner, c.repo, id)
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// EditComment replaces the body of comment id.
func (c *Client) EditComment(ctx context.Context, id int64, body string) error {
	_, err := c.call(fmt.Sprintf("edit comment %d", id), func() (r *github.Response, err error) {
		_, r, err = c.gh.Issues.EditComment(ctx, c.owner, c.repo, id, &github.IssueComment{Body: &body})
		return r, err
	})
	return err
}
