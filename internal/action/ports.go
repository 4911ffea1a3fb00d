package action

import (
	"context"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The Action's narrow views of GitHub, bound to one repository and split by
// use, so each use case names what it needs. internal/ghapi implements them
// all; the dry-run wrapper and the tests' fakes override what they must.
// Refs are named without "refs/", e.g. "tags/greenlight/checkpoint/S-3".

// PullRequests finds and reads pull requests.
type PullRequests interface {
	PullRequest(ctx context.Context, number int) (breaker.PullRequest, error)
	// FindPullRequest finds the open pull request whose head is sha; found
	// is false when there is none.
	FindPullRequest(ctx context.Context, sha string) (pr breaker.PullRequest, found bool, err error)
}

// Comments reads and writes a pull request's conversation.
type Comments interface {
	ListComments(ctx context.Context, pr int) ([]breaker.Comment, error) // every page
	CreateComment(ctx context.Context, pr int, body string) (breaker.Comment, error)
	EditComment(ctx context.Context, id int64, body string) error
}

// Refs keeps the breaker's tags (and moves a branch for a rollback).
type Refs interface {
	GetRef(ctx context.Context, ref string) (sha string, found bool, err error)
	CreateRef(ctx context.Context, ref, sha string) error // breaker.ErrRefExists on 422
	UpdateRef(ctx context.Context, ref, sha string, force bool) error
	DeleteRef(ctx context.Context, ref string) error // a missing ref is success
}

// Commits writes the rollback commit.
type Commits interface {
	CommitTree(ctx context.Context, sha string) (tree string, err error)
	CreateCommit(ctx context.Context, message, tree string, parents []string) (sha string, err error)
}

// People answers who the token is and what a commenter may do.
type People interface {
	// Identity returns the login of the token's user, or "" when the
	// token cannot say (GITHUB_TOKEN answers 403 on GET /user).
	Identity(ctx context.Context) (string, error)
	// Permission returns the user's permission on the repository:
	// "admin", "maintain", "write", "triage", "read" or "none".
	Permission(ctx context.Context, login string) (string, error)
}

// Forge is every port at once: what one run of the Action is given.
type Forge interface {
	PullRequests
	Comments
	Refs
	Commits
	People
}
