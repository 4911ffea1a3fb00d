package forge

import (
	"errors"
	"strings"
	"time"
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
	// Labels are the pull request's labels' names, when GitHub said.
	Labels []string
	// Assignees are the logins assigned to it, when GitHub said.
	Assignees []string
	// NodeID is its GraphQL id; Draft says it is a draft.
	NodeID string
	Draft  bool
}

// Issue is an issue a pull request closes, with its assignees.
type Issue struct {
	Number    int
	Assignees []string
}

// Comment is an issue comment on a pull request.
type Comment struct {
	ID     int64
	Author string
	Body   string
	// Issue is the issue or pull request it is on, when GitHub said.
	Issue int
	// Edited says GitHub records a change of the comment after it was
	// created (its updated_at is later than its created_at).
	Edited bool
	// CreatedAt is when it was posted.
	CreatedAt time.Time
}

// ErrRefExists is returned when creating a ref when the ref already exists.
var ErrRefExists = errors.New("ref already exists")

// ErrRuleset is returned when a repository ruleset refuses a ref write
// (GitHub: 422 "Repository rule violations found").
var ErrRuleset = errors.New("refused by a repository ruleset")

// ErrForbidden is returned when the token may not do what was asked
// (a fork pull request's read-only token, missing permissions).
var ErrForbidden = errors.New("forbidden")

// ErrNotInHistory is returned when a commit's history does not hold the
// commit a ledger entry names in it (Entry.Since): the entry is not what
// the breaker wrote.
var ErrNotInHistory = errors.New("not in the commit's history")

// SameLogin reports whether two GitHub logins name the same account.
// Logins are case-insensitive, and a bot's login comes in two forms: REST
// and GraphQL's viewer write "github-actions[bot]", GraphQL's author
// fields "github-actions" (with __typename Bot). Both forms match.
func SameLogin(a, b string) bool {
	return a != "" && strings.EqualFold(botless(a), botless(b))
}

func botless(login string) string {
	if len(login) > 5 && strings.EqualFold(login[len(login)-5:], "[bot]") {
		return login[:len(login)-5]
	}
	return login
}
