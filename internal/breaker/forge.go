package breaker

import "errors"

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

// ErrRefExists is returned when creating a ref when the ref already exists.
var ErrRefExists = errors.New("ref already exists")

// ErrForbidden is returned when the token may not do what was asked
// (a fork pull request's read-only token, missing permissions).
var ErrForbidden = errors.New("forbidden")
