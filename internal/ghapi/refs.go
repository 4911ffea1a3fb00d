package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// GetRef returns the SHA ref points at (GET git/ref/{ref}); found is
// false when the ref does not exist. Refs are named without "refs/",
// e.g. "tags/greenlight/checkpoint/S-3".
func (c *Client) GetRef(ctx context.Context, ref string) (string, bool, error) {
	ref = strings.TrimPrefix(ref, "refs/")
	var got *github.Reference
	resp, err := c.call("get ref "+ref, func() (r *github.Response, err error) {
		got, r, err = c.gh.Git.GetRef(ctx, c.owner, c.repo, ref)
		return r, err
	})
	switch {
	case status(resp) == http.StatusNotFound:
		return "", false, nil
	case err != nil:
		return "", false, err
	case got.GetRef() != "refs/"+ref:
		return "", false, nil // a prefix match, not the ref itself
	}
	return got.GetObject().GetSHA(), true, nil
}

// CreateRef creates ref at sha; it returns forge.ErrRefExists
// (wrapped) when GitHub answers 422 "Reference already exists".
func (c *Client) CreateRef(ctx context.Context, ref, sha string) error {
	full := "refs/" + strings.TrimPrefix(ref, "refs/")
	resp, err := c.call("create ref "+full, func() (r *github.Response, err error) {
		_, r, err = c.gh.Git.CreateRef(ctx, c.owner, c.repo, &github.Reference{Ref: &full, Object: &github.GitObject{SHA: &sha}})
		return r, err
	})
	if status(resp) == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(message(err)), "already exists") {
		return fmt.Errorf("%w: %w", forge.ErrRefExists, err)
	}
	return rulesetError(resp, err)
}

// rulesetError marks a 422 "Repository rule violations found" with
// forge.ErrRuleset.
func rulesetError(resp *github.Response, err error) error {
	if status(resp) == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(message(err)), "rule violation") {
		return fmt.Errorf("%w: %w", forge.ErrRuleset, err)
	}
	return err
}

// UpdateRef moves ref to sha; without force GitHub refuses an update
// that is not a fast forward (422).
func (c *Client) UpdateRef(ctx context.Context, ref, sha string, force bool) error {
	ref = strings.TrimPrefix(ref, "refs/")
	resp, err := c.call("update ref "+ref, func() (r *github.Response, err error) {
		_, r, err = c.gh.Git.UpdateRef(ctx, c.owner, c.repo, &github.Reference{Ref: &ref, Object: &github.GitObject{SHA: &sha}}, force)
		return r, err
	})
	return rulesetError(resp, err)
}

// DeleteRef deletes ref; a missing ref (404, or 422 "Reference does not
// exist") is success.
func (c *Client) DeleteRef(ctx context.Context, ref string) error {
	ref = strings.TrimPrefix(ref, "refs/")
	resp, err := c.call("delete ref "+ref, func() (*github.Response, error) {
		return c.gh.Git.DeleteRef(ctx, c.owner, c.repo, ref)
	})
	missing := status(resp) == http.StatusNotFound ||
		(status(resp) == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(message(err)), "does not exist"))
	if missing {
		return nil
	}
	return rulesetError(resp, err)
}

// CommitTree returns the tree SHA of commit sha (GET git/commits/{sha}).
func (c *Client) CommitTree(ctx context.Context, sha string) (string, error) {
	var got *github.Commit
	_, err := c.call("get commit "+sha, func() (r *github.Response, err error) {
		got, r, err = c.gh.Git.GetCommit(ctx, c.owner, c.repo, sha)
		return r, err
	})
	if err != nil {
		return "", err
	}
	return got.GetTree().GetSHA(), nil
}

// CreateCommit creates a commit object with the given tree and parents
// and returns its SHA; the token's identity is its author.
func (c *Client) CreateCommit(ctx context.Context, message, tree string, parents []string) (string, error) {
	commit := &github.Commit{Message: &message, Tree: &github.Tree{SHA: &tree}}
	for _, p := range parents {
		commit.Parents = append(commit.Parents, &github.Commit{SHA: &p})
	}
	var got *github.Commit
	_, err := c.call("create commit", func() (r *github.Response, err error) {
		got, r, err = c.gh.Git.CreateCommit(ctx, c.owner, c.repo, commit, nil)
		return r, err
	})
	if err != nil {
		return "", err
	}
	return got.GetSHA(), nil
}
