package forge

import (
	"context"
	"errors"
	"time"
)

// The narrow views of GitHub the Action's use cases call, bound to one
// repository and split by use, so each use case names what it needs.
// internal/ghapi implements them all; the Action's dry-run wrapper and the
// tests' fakes override what they must.
// Refs are named without "refs/", e.g. "tags/greenlight/checkpoint/S-3".

// PullRequests finds and reads pull requests.
type PullRequests interface {
	PullRequest(ctx context.Context, number int) (PullRequest, error)
	// FindPullRequest finds the open pull request whose head is sha; found
	// is false when there is none.
	FindPullRequest(ctx context.Context, sha string) (pr PullRequest, found bool, err error)
	// FindPullRequestByHead finds the open pull request from owner's
	// branch whose head is sha: a fork's, which FindPullRequest does not
	// see (GitHub lists a commit's pull requests of the base repository's
	// branches only).
	FindPullRequestByHead(ctx context.Context, owner, branch, sha string) (pr PullRequest, found bool, err error)
	// OpenPullRequestsFrom lists the open pull requests whose head is
	// this repository's branch.
	OpenPullRequestsFrom(ctx context.Context, branch string) ([]PullRequest, error)
}

// Comments reads and writes a pull request's conversation.
type Comments interface {
	ListComments(ctx context.Context, pr int) ([]Comment, error) // every page
	// GetComment reads one comment back; found is false when it was
	// deleted.
	GetComment(ctx context.Context, id int64) (c Comment, found bool, err error)
	CreateComment(ctx context.Context, pr int, body string) (Comment, error)
	EditComment(ctx context.Context, id int64, body string) error
	// DeleteComment deletes a comment; one already gone is success. The
	// breaker deletes only its own duplicates (two runs raced).
	DeleteComment(ctx context.Context, id int64) error
}

// Refs keeps the breaker's tags (and moves a branch for a rollback).
type Refs interface {
	GetRef(ctx context.Context, ref string) (sha string, found bool, err error)
	CreateRef(ctx context.Context, ref, sha string) error // breaker.ErrRefExists on 422
	UpdateRef(ctx context.Context, ref, sha string, force bool) error
	DeleteRef(ctx context.Context, ref string) error // a missing ref is success
}

// Labels puts a label on a pull request (an issue) and takes it off: the
// on-trip-label input.
type Labels interface {
	AddLabels(ctx context.Context, issue int, labels []string) error
	// RemoveLabel takes label off; a label already gone is success.
	RemoveLabel(ctx context.Context, issue int, label string) error
}

// Assignees unassigns people (an agent) from a pull request and assigns
// them again: the on-trip-unassign input.
type Assignees interface {
	RemoveAssignees(ctx context.Context, issue int, logins []string) error
	AddAssignees(ctx context.Context, issue int, logins []string) error
	// ClosingIssues are the issues pull request pr closes, with their
	// assignees: an agent assigned to the issue is unassigned there too.
	ClosingIssues(ctx context.Context, pr int) ([]Issue, error)
}

// Reviews asks people or teams to review a pull request, and takes the
// request back: the on-trip-request-review input. Teams are slugs.
type Reviews interface {
	RequestReview(ctx context.Context, pr int, people, teams []string) error
	RemoveReviewRequest(ctx context.Context, pr int, people, teams []string) error
}

// Drafts turns a pull request into a draft and back (GraphQL's
// convertPullRequestToDraft and markPullRequestReadyForReview; REST has
// neither): the on-trip-draft input.
type Drafts interface {
	ConvertToDraft(ctx context.Context, nodeID string) error
	MarkReadyForReview(ctx context.Context, nodeID string) error
}

// Runs lists the workflow runs still going on a branch and cancels them:
// the cancel-workflows input.
type Runs interface {
	InProgressRuns(ctx context.Context, branch string) ([]int64, error)
	CancelRun(ctx context.Context, id int64) error
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

// Artifacts fetches a workflow run's artifact (the hardened mode).
type Artifacts interface {
	// DownloadArtifacts returns the zips of run runID's artifact name, or
	// of every artifact whose name starts with name's text before a final
	// "*" (a matrix's legs), at most max bytes in all.
	DownloadArtifacts(ctx context.Context, runID int64, name string, max int64) ([]Artifact, error)
}

// ErrNoArtifact is DownloadArtifacts' error when the run has no artifact
// of the name.
var ErrNoArtifact = errors.New("the run has no such artifact")

// Artifact is one downloaded artifact: its name and its zip archive.
type Artifact struct {
	Name string
	Zip  []byte
}

// Forge is every port at once: what one run of the Action is given.
type Forge interface {
	Artifacts
	JobLogs
	PullRequests
	Comments
	Refs
	Labels
	Assignees
	Reviews
	Drafts
	Runs
	Commits
	People
	LedgerStore
	Lines
}

// Lines finds the other lines of work of an agent (DESIGN §5, "an OPEN
// circuit follows the agent"): who opened a pull request and who closed
// it are facts GitHub attests; everything else there is the agent's.
type Lines interface {
	// RecentPullRequests are the repository's most recently updated pull
	// requests that are not merged (at most MaxRecentPulls), each with the
	// breaker's check runs on its head (q's app and name), and the tree of
	// commit head: one query.
	RecentPullRequests(ctx context.Context, q LedgerQuery, head string) (prs []RecentPull, headTree string, err error)
	// IssueReferences are the pull requests that ever referenced issue
	// number (its timeline's cross references, which an edited body does
	// not take away) or close it now, open or closed, merged ones left
	// out: one query.
	IssueReferences(ctx context.Context, number int) ([]int, error)
}

// MaxRecentPulls bounds RecentPullRequests.
const MaxRecentPulls = 30

// RecentPull is a pull request as Lines reads it.
type RecentPull struct {
	Number int
	State  string // "open" or "closed"
	Author string
	// ClosedBy is who closed it, "" while it is open or GitHub did not
	// say; ClosedByBot says that was a bot (a workflow's token, an app).
	ClosedBy    string
	ClosedByBot bool
	HeadSHA     string
	HeadTree    string
	// Runs are the breaker's newest check runs on the head.
	Runs []CheckRunText
}

// LedgerStore keeps the ledger (DESIGN §6): the breaker's check runs, read
// back in one GraphQL query together with the breaker's tags and the pull
// request's comments, so a push run stays within a handful of API calls.
type LedgerStore interface {
	ReadLedger(ctx context.Context, q LedgerQuery) (LedgerState, error)
	// ReadHeads reads the breaker's check runs on the given commits (heads
	// an entry names as observed before it, which the pull request no
	// longer lists). A head GitHub no longer has is an error.
	ReadHeads(ctx context.Context, q LedgerQuery, heads []string) ([]CheckRunText, error)
	// ReadAncestry reads the breaker's check runs on head and its
	// ancestors, newest first, as far as until (an earlier head the entry
	// at head had in its history): the heads a rebase or a squash took off
	// the branch with it.
	ReadAncestry(ctx context.Context, q LedgerQuery, head, until string) ([]CheckRunText, error)
	CreateCheckRun(ctx context.Context, run CheckRun) (id int64, err error)
}

// LedgerQuery says whose ledger to read: a pull request's (its commits and
// the heads force-pushed away), else a branch's history.
type LedgerQuery struct {
	PR        int    // 0 = no pull request
	Branch    string // when PR is 0
	CheckName string // the breaker's check run name
	TagPrefix string // the breaker's tags, e.g. "greenlight/"
	// AppID, when not 0, asks only for that App's check suites (the
	// app-id input); 0 asks for every app's, filtered by the caller.
	AppID int64
	// Base, when set with PR, is the pull request's base commit: its
	// check runs (the base's observation) are read in the same query.
	Base string
	// Newest, with PR, reads only the pull request's newest 100 commits
	// and force pushes (LedgerState.Older says whether there were more):
	// the caller decides whether what it read is the whole line of work,
	// and reads again without Newest when it is not.
	Newest bool
	// Before, with Newest, is where the branch was before the push: the
	// ledger of its newest BeforeDepth commits (its history) is read in
	// the same query, so the line's newest entries are there however many
	// commits the push added.
	Before string
	// BeforeDepth is how many of before's commits it reads: BeforeDepth
	// when 0.
	BeforeDepth int
}

// BeforeDepth is how many commits of a push's before a Newest read reads,
// unless the query says otherwise: 4 points by GitHub's calculation with
// the rest of the read (each commit costs two requests, its check suite and
// its check runs; 50 make 5 points).
const BeforeDepth = 20

// NewestCommits is how many of a pull request's newest commits a Newest
// read reads: GitHub's largest page.
const NewestCommits = 100

// LedgerState is what the query found.
type LedgerState struct {
	// DefaultBranch and DefaultSHA are the repository's default branch and
	// its tip: the base of a branch without a pull request.
	DefaultBranch, DefaultSHA string
	Runs                      []CheckRunText
	// BaseRuns are the check runs on LedgerQuery.Base, when it was asked
	// (BaseRead says so).
	BaseRuns []CheckRunText
	BaseRead bool
	// Commits are the pull request's own commits (or the branch's
	// history) as the query listed them: entries on them are
	// observations of this line of work, whoever wrote them.
	Commits []string
	// ForcePushed are the heads the pull request's force pushes replaced,
	// as its timeline lists them (those the read reached).
	ForcePushed []string
	Tags        map[string]string // tag name (without refs/tags/) → commit SHA
	Comments    []Comment         // the pull request's newest comments, when PR > 0
	// Pushers are the GitHub logins of the pull request's commit authors
	// and committers: treated as the agent, who may not reset itself.
	Pushers []string
	// Minimized are the IDs of the pull request's minimized (hidden)
	// comments, left out of Comments: REST cannot tell them apart, so a
	// list read over REST later skips these.
	Minimized []int64
	// CommentsComplete is false when the pull request has more comments
	// than the query returned: the caller lists them all before posting.
	CommentsComplete bool
	// Viewer is the token's own login as GitHub gives it, a bot's with
	// its "[bot]" suffix; "" when GitHub did not say.
	Viewer string
	// RateLimit is what the reads cost and what is left of the hour.
	RateLimit RateLimit
	// Older says a Newest read left older commits or force pushes of the
	// pull request unread: Commits, Pushers and Runs hold the newest only.
	Older bool
}

// RateLimit is the GraphQL points the ledger reads cost and what is left.
type RateLimit struct {
	Queries   int // GraphQL requests made
	Cost      int // points they cost together
	Limit     int // points an hour
	Remaining int // points left after them
	ResetAt   time.Time
}

// CheckRunText is one check run of the breaker's name on a commit.
type CheckRunText struct {
	ID      int64
	HeadSHA string
	AppID   int64
	AppSlug string
	Text    string // output.text, where the ledger entry is
	// Name and Conclusion are the run's as GitHub has them now (lower
	// case), "" when the reader did not ask.
	Name, Conclusion string
}

// CheckRun is the check run a run of the breaker writes on the head.
type CheckRun struct {
	Name        string
	HeadSHA     string
	Conclusion  string // "success", "failure" or "neutral"
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
}

// Annotation marks a failing test at its file and line.
type Annotation struct {
	Path    string
	Line    int
	Title   string
	Message string
}
