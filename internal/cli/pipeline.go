package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog"
	"github.com/greenlight-ci/breaker/internal/scope"
	"github.com/greenlight-ci/breaker/internal/trailer"
)

// defaultGraph is where Greenlight keeps its slice graph.
const defaultGraph = ".greenlight/GRAPH.json"

// evalOptions are the inputs of one evaluation, shared by `evaluate` and `action`.
type evalOptions struct {
	RepoDir       string        // the git work tree (and the workspace results are read from)
	Head          string        // revision of the agent branch head; "" = HEAD
	Base          string        // base revision; "" = the default branch
	Slice         string        // "" = the newest attempt's slice
	Branch        string        // branch name for the S-<n> fallback; "" = from Head
	Results       []string      // result file globs, relative to RepoDir
	Graph         string        // GRAPH.json path; "" = .greenlight/GRAPH.json if present
	TrailerPrefix string        // "" = Greenlight-
	TagPrefix     string        // "" = greenlight/
	Force         bool          // build the diagnostic whatever the counts
	Refs          *breaker.Refs // when set, overrides the local greenlight/* tags (remote state)
}

// evaluation is the result of one evaluation: the decision and what was read.
type evaluation struct {
	Decision breaker.Decision
	Commits  []breaker.Commit
}

// evaluateBranch reads the repository, the results and the graph, and runs the engine.
func evaluateBranch(ctx context.Context, opts evalOptions) (evaluation, error) {
	policy := policyFor(opts)
	repo, err := gitlog.Open(opts.RepoDir)
	if err != nil {
		return evaluation{}, err
	}
	defer repo.Close()
	lg, err := repo.Log(ctx, gitlog.Options{
		Head: opts.Head, Base: opts.Base, NeedsFiles: policy.NeedsFiles, Parse: trailer.Parse,
	})
	if err != nil {
		return evaluation{}, err
	}
	in := breaker.Input{Policy: policy, Commits: lg.Commits, Slice: opts.Slice, Branch: opts.Branch, Force: opts.Force}
	if lg.Note != "" {
		in.Observation.Notes = append(in.Observation.Notes, lg.Note)
	}
	if in.Branch == "" {
		in.Branch = lg.Branch
	}
	if in.Refs, err = refsFor(repo, opts, policy); err != nil {
		return evaluation{}, err
	}
	obs, err := observe(opts, lg.HeadSHA, testNames(policy, lg.Commits))
	if err != nil {
		return evaluation{}, err
	}
	obs.Notes = append(in.Observation.Notes, obs.Notes...)
	in.Observation = obs
	if in.Scope, err = scopeFor(opts); err != nil {
		return evaluation{}, err
	}
	return evaluation{Decision: breaker.Evaluate(in), Commits: lg.Commits}, nil
}

// testNames are the distinct Greenlight-Test values across commits, in
// order of first appearance: the names results are matched against.
func testNames(p breaker.Policy, commits []breaker.Commit) []string {
	key := p.Key(breaker.TrailerTest)
	seen := map[string]bool{}
	var names []string
	for _, c := range commits {
		for _, v := range breaker.TrailerValues(c.Trailers, key) {
			if !seen[v] {
				seen[v] = true
				names = append(names, v)
			}
		}
	}
	return names
}

func policyFor(opts evalOptions) breaker.Policy {
	p := breaker.DefaultPolicy()
	if opts.TrailerPrefix != "" {
		p.TrailerPrefix = opts.TrailerPrefix
	}
	if opts.TagPrefix != "" {
		p.TagPrefix = opts.TagPrefix
	}
	return p
}

func refsFor(repo *gitlog.Repo, opts evalOptions, p breaker.Policy) (breaker.Refs, error) {
	if opts.Refs != nil {
		return *opts.Refs, nil
	}
	return repo.Refs(p.TagPrefix)
}

// observe reads this run's results. No results at all means the head's tests
// did not run (infra); an unreadable result file is an error, never green.
func observe(opts evalOptions, head string, names []string) (breaker.Observation, error) {
	if len(opts.Results) == 0 {
		return breaker.Observation{Head: head, Infra: "no test results were given (--results / the results input)"}, nil
	}
	rep, err := loadResults(opts.RepoDir, opts.Results)
	if err != nil {
		return breaker.Observation{}, err
	}
	if err := brokenResults(rep); err != nil {
		return breaker.Observation{}, err
	}
	return buildObservation(head, rep, names), nil
}

// scopeFor loads the slice graph: the named one (an error when missing), else
// the default one when it exists, else a disabled lock that says why.
func scopeFor(opts evalOptions) (breaker.ScopeSource, error) {
	name := opts.Graph
	explicit := name != ""
	if !explicit {
		name = defaultGraph
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(opts.RepoDir, name)
	}
	graph, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return scope.None(fmt.Sprintf("no slice graph at %s: scope lock off", name)), nil
	case err != nil:
		return nil, fmt.Errorf("read slice graph (--graph / the graph input): %w", err)
	}
	contracts, err := os.ReadFile(filepath.Join(filepath.Dir(path), "CONTRACTS.md"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read contracts beside %s: %w", name, err)
	}
	return scope.Parse(filepath.ToSlash(name), graph, contracts)
}
