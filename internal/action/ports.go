package action

import "github.com/greenlight-ci/breaker/internal/forge"

// The Action's ports and the shapes they carry are forge's (internal/forge):
// the use cases here and the adapter (internal/ghapi) share them without
// the adapter importing the use cases.
type (
	PullRequests = forge.PullRequests
	Comments     = forge.Comments
	Refs         = forge.Refs
	Labels       = forge.Labels
	Assignees    = forge.Assignees
	Reviews      = forge.Reviews
	Drafts       = forge.Drafts
	Runs         = forge.Runs
	Commits      = forge.Commits
	People       = forge.People
	Artifacts    = forge.Artifacts
	JobLogs      = forge.JobLogs
	Forge        = forge.Forge
	LedgerStore  = forge.LedgerStore
	LedgerQuery  = forge.LedgerQuery
	LedgerState  = forge.LedgerState
	RateLimit    = forge.RateLimit
	CheckRunText = forge.CheckRunText
	CheckRun     = forge.CheckRun
	Annotation   = forge.Annotation
)
