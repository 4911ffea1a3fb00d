package cli

import (
	"context"
	"errors"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// evalOptions are the inputs of one evaluation, shared by `evaluate` and `action`.
type evalOptions struct {
	RepoDir       string   // the git work tree (and the workspace results are read from)
	Head          string   // revision of the agent branch head; "" = HEAD
	Base          string   // base revision; "" = the default branch
	Slice         string   // "" = the newest attempt's slice
	Branch        string   // branch name for the S-<n> fallback; "" = from Head
	Results       []string // result file globs, relative to RepoDir
	Graph         string   // GRAPH.json path; "" = .greenlight/GRAPH.json if present
	TrailerPrefix string   // "" = Greenlight-
	TagPrefix     string   // "" = greenlight/
	Force         bool     // build the diagnostic whatever the counts
	Refs          *breaker.Refs // when set, overrides the local greenlight/* tags (remote state)
}

// evaluation is the result of one evaluation: the decision and what was read.
type evaluation struct {
	Decision breaker.Decision
	Commits  []breaker.Commit
}

// evaluateBranch reads the repository, the results and the graph, and runs the engine.
// Being wired; see the issue "Core engine and CLI".
func evaluateBranch(ctx context.Context, opts evalOptions) (evaluation, error) {
	return evaluation{}, errors.New("evaluate pipeline not built yet")
}
