package breaker

import (
	"context"
	"errors"
)

// PullRequest is the subset of a pull request the breaker uses.
type PullRequest struct {
	Number  int
	State   string // "open" or "closed"
	HeadSHA string // pull_request.head.sha, never the synthetic merge commit
	HeadRef string // branch name
	BaseRef string
	BaseSHA string // the base branch's tip when the pull request was last updated
	Author  string
	Fork    bool // the head repository is not the base repository
}

// Comment is an issue comment on a pull request.
type Comment struct {
	ID     int64
	Author string
	Body   string
}

// ErrRefExists is returned by Forge.CreateRef when the ref already exists.
var ErrRefExists = errors.New("ref already exists")

// ErrForbidden is returned when the token may not do what was asked
// (a fork pull request's read-only token, missing permissions).
var ErrForbidden = errors.New("forbidden")

// Forge is the breaker's narrow view of the code host, bound to one
// repository. Refs are named without the "refs/" prefix, e.g.
// "tags/greenlight/checkpoint/S-3". Implemented by internal/ghapi.
type Forge interface {
	// Identity returns the login of the token's user, or "" when the
	// token cannot say (GITHUB_TOKEN answers 403 on GET /user).
	Identity(ctx context.Context) (string, error)
	PullRequest(ctx context.Context, number int) (PullRequest, error)
	// FindPullRequest finds the open pull request of this repository whose
	// head is sha; found is false when there is none.
	FindPullRequest(ctx context.Context, sha string) (pr PullRequest, found bool, err error)
	ListComments(ctx context.Context, pr int) ([]Comment, error) // every page
	CreateComment(ctx context.Context, pr int, body string) (Comment, error)
	EditComment(ctx context.Context, id int64, body string) error
	GetRef(ctx context.Context, ref string) (sha string, found bool, err error)
	CreateRef(ctx context.Context, ref, sha string) error // ErrRefExists on 422
	UpdateRef(ctx context.Context, ref, sha string, force bool) error
	DeleteRef(ctx context.Context, ref string) error // a missing ref is success
	// Permission returns the user's permission on the repository:
	// "admin", "maintain", "write", "triage", "read" or "none".
	Permission(ctx context.Context, login string) (string, error)
	CommitTree(ctx context.Context, sha string) (tree string, err error)
	CreateCommit(ctx context.Context, message, tree string, parents []string) (sha string, err error)
}
