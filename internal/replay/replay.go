package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// KnownAgents are the logins coding agents open pull requests as
// (internal/setup names the agents), and KnownBranchPrefixes the branch
// names they push: the agents replay looks for when --agents is not given.
var (
	KnownAgents = []string{"Copilot", "copilot-swe-agent[bot]", "claude[bot]", "chatgpt-codex-connector[bot]",
		"openhands-agent", "devin-ai-integration[bot]", "cursor[bot]"}
	KnownBranchPrefixes = []string{"copilot/", "claude/", "codex/", "openhands-", "devin/", "cursor/"}
)

// Options are a replay's inputs.
type Options struct {
	Repo         string    // OWNER/NAME, as the report names it
	Since, Until time.Time // the window: pull requests created in it; a zero Until is now
	// Agents are the logins whose pull requests are replayed; empty means
	// KnownAgents and KnownBranchPrefixes.
	Agents   []string
	Workflow string // the workflow file whose runs are CI; "" = every workflow's
	// Artifacts are the artifact names (globs) read for result files, and
	// Results the result files (globs) read in them.
	Artifacts []string
	Results   []string
	RepoDir   string // a clone of the repository, with the pull requests' heads
	Policy    breaker.Policy
	// Budget is the bound the adapter keeps on API requests (0: none),
	// for the report; Requests says how many it has sent.
	Budget   int
	Requests func() int
	CacheDir string // "" = no cache
	// CacheKey is what else the reads depend on (stats: the breaker's
	// check runs and key): a cached read made otherwise is read again.
	CacheKey string
	// Progress is told what is read, as it is read; nil = silent.
	Progress func(Progress)
}

// Progress is one step of a replay, for a progress bar or a log line.
type Progress struct {
	Phase       string // "list", "runs", "evidence", "judge"
	Done, Total int
	Line        string // what was just done, for a log
}

func (o Options) isAgent(pr forge.PastPullRequest) bool {
	if len(o.Agents) > 0 {
		return slices.ContainsFunc(o.Agents, func(a string) bool { return forge.SameLogin(a, pr.Author) })
	}
	if slices.ContainsFunc(KnownAgents, func(a string) bool { return forge.SameLogin(a, pr.Author) }) {
		return true
	}
	return slices.ContainsFunc(KnownBranchPrefixes, func(p string) bool { return strings.HasPrefix(pr.HeadRef, p) })
}

func (o Options) say(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// baseRead is CI's record of a base commit (a push to the default
// branch): the tests failing there are the base's, never a push's.
type baseRead struct {
	Schema   string   `json:"schema"`
	Key      string   `json:"key"`
	SHA      string   `json:"sha"`
	Observed bool     `json:"observed"`
	Failing  []string `json:"failing,omitempty"`
	Evidence string   `json:"evidence,omitempty"`
}

// Run replays the window: it lists the agents' pull requests, reads each
// one's runs and what its failed runs left, within the budget and from
// the cache, and judges every push with the engine the Action uses.
func Run(ctx context.Context, src forge.History, o Options) (Report, error) {
	if o.Until.IsZero() {
		o.Until = time.Now().UTC()
	}
	if len(o.Artifacts) == 0 {
		o.Artifacts = DefaultArtifacts
	}
	if len(o.Results) == 0 {
		o.Results = DefaultResults
	}
	key := fmt.Sprintf("replay workflow=%q artifacts=%q results=%q", o.Workflow, o.Artifacts, o.Results)
	c, err := newCache(o.CacheDir, o.Repo, key)
	if err != nil {
		return Report{}, err
	}
	if o.Requests == nil {
		o.Requests = func() int { return 0 }
	}
	r := &reader{src: src, opts: o, cache: c}
	rep := Report{Schema: Schema, Repo: o.Repo, Since: o.Since.UTC(), Until: o.Until.UTC(), Workflow: o.Workflow,
		Agents: o.Agents, Policy: o.Policy.Name, Budget: o.Budget}
	prs, listed, err := r.pulls(ctx)
	rep.Listed = listed
	if errors.Is(err, ErrBudget) {
		rep.Cut = fmt.Sprintf("the budget of %d requests ran out while listing the pull requests, after %d of them", o.Budget, listed)
	} else if err != nil {
		return Report{}, err
	}
	o.say(Progress{Phase: "list", Done: len(prs), Total: len(prs),
		Line: fmt.Sprintf("%d agent pull requests of %d created since %s", len(prs), listed, o.Since.UTC().Format("2006-01-02"))})
	reads, err := r.readAll(ctx, prs, &rep)
	if err != nil {
		return Report{}, err
	}
	rep.Requests = o.Requests()
	if err := judge(ctx, o, reads, r.bases, &rep); err != nil {
		return Report{}, err
	}
	rep.summarise()
	return rep, nil
}

// readAll reads each pull request, newest first: from the cache, else its
// runs (one request each, said before they start), then the evidence of
// its failed heads (at most requestsAtMost each, said once the runs are
// known). The budget stops it between two requests: the pull request
// being read and every older one are left out, and the report says where.
func (r *reader) readAll(ctx context.Context, prs []forge.PastPullRequest, rep *Report) ([]pullRead, error) {
	var out []pullRead
	var todo []forge.PastPullRequest
	for _, pr := range prs {
		if p, ok := r.cache.pull(pr); ok {
			out = append(out, p)
			rep.Cached++
			continue
		}
		todo = append(todo, pr)
	}
	rep.Estimate = len(todo)
	r.opts.say(Progress{Phase: "runs", Total: len(todo),
		Line: fmt.Sprintf("%d from the cache; reading the runs of %d: %d requests, then up to %d for each failed push (budget %s)",
			rep.Cached, len(todo), len(todo), requestsAtMost, budgetWords(r.opts.Budget))})
	reads := make([]pullRead, 0, len(todo))
	cut := func(pr forge.PastPullRequest, what string) {
		left := len(todo) - len(reads)
		rep.Cut = fmt.Sprintf("the budget of %d requests ran out %s pull request #%d (created %s): it and %d older ones were not read",
			r.opts.Budget, what, pr.Number, pr.CreatedAt.UTC().Format("2006-01-02"), left-1)
	}
	for i, pr := range todo {
		heads, err := r.runs(ctx, pr)
		if errors.Is(err, ErrBudget) {
			cut(pr, "reading the runs of")
			break
		}
		if err != nil {
			return nil, err
		}
		reads = append(reads, pullRead{PR: pr, Heads: heads})
		r.opts.say(Progress{Phase: "runs", Done: i + 1, Total: len(todo), Line: fmt.Sprintf("#%d: %d pushes", pr.Number, len(heads))})
	}
	failedHeads, failedPRs, bases := 0, 0, map[string]bool{}
	for _, p := range reads {
		if slices.ContainsFunc(p.Heads, func(h headRead) bool { return failed(h.Conclusion) }) {
			failedPRs++ // its comments, and who asked for a reset (resets)
		}
		for _, h := range p.Heads {
			if failed(h.Conclusion) {
				failedHeads++
			}
			if _, ok := r.cache.base(h.BaseSHA); h.BaseSHA != "" && !ok {
				bases[strings.ToLower(h.BaseSHA)] = true
			}
		}
	}
	more := failedHeads*requestsAtMost + len(bases)*(1+requestsAtMost) + failedPRs*(1+maxResetAuthors)
	// The most the window can cost: what the listing and the runs took,
	// and the worst case of every read left.
	rep.Estimate = r.opts.Requests() + more
	r.opts.say(Progress{Phase: "evidence", Total: len(reads),
		Line: fmt.Sprintf("%d failed pushes and %d base commits: at most %d more requests (%d used, budget %s)",
			failedHeads, len(bases), more, r.opts.Requests(), budgetWords(r.opts.Budget))})
	for i := range reads {
		p := &reads[i]
		var err error
		for j := range p.Heads {
			if err = r.evidence(ctx, &p.Heads[j]); err != nil {
				break
			}
		}
		if err == nil {
			err = r.readBases(ctx, p.Heads)
		}
		if err == nil {
			err = r.resets(ctx, p)
		}
		if errors.Is(err, ErrBudget) {
			if rep.Cut == "" {
				left := len(reads) - i
				rep.Cut = fmt.Sprintf("the budget of %d requests ran out reading the failed runs of pull request #%d (created %s): it and %d older ones were not read",
					r.opts.Budget, p.PR.Number, p.PR.CreatedAt.UTC().Format("2006-01-02"), left-1+len(todo)-len(reads))
			}
			break
		}
		if err != nil {
			return nil, err
		}
		if err := r.cache.putPull(*p); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the cache could not keep pull request #%d: %v", p.PR.Number, err))
		}
		out = append(out, *p)
		r.opts.say(Progress{Phase: "evidence", Done: i + 1, Total: len(reads), Line: fmt.Sprintf("#%d read (%d requests so far)", p.PR.Number, r.opts.Requests())})
	}
	// The bases the cached pull requests need, from the cache (or read).
	for _, p := range out {
		err := r.readBases(ctx, p.Heads)
		if errors.Is(err, ErrBudget) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the budget ran out before the base commits of #%d and older were read: a test failing on such a base counts against the push there", p.PR.Number))
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b pullRead) int { return a.PR.CreatedAt.Compare(b.PR.CreatedAt) })
	return out, nil
}

func budgetWords(n int) string {
	if n <= 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// readBases reads CI's record of each base commit the heads name: the
// runs of a push to it (one request), and the evidence of a failed one.
func (r *reader) readBases(ctx context.Context, heads []headRead) error {
	if r.bases == nil {
		r.bases = map[string]baseRead{}
	}
	for _, h := range heads {
		sha := strings.ToLower(h.BaseSHA)
		if sha == "" {
			continue
		}
		if _, ok := r.bases[sha]; ok {
			continue
		}
		if b, ok := r.cache.base(sha); ok {
			r.bases[sha] = b
			continue
		}
		runs, _, err := r.src.WorkflowRunsPage(ctx, forge.RunFilter{Workflow: r.opts.Workflow, HeadSHA: sha, Event: "push"}, 1)
		if err != nil {
			return err
		}
		b := baseRead{SHA: sha}
		var worst *forge.WorkflowRun
		for i := range runs {
			if runs[i].Status == "completed" && (worst == nil || worseConclusion(runs[i].Conclusion, worst.Conclusion)) {
				worst = &runs[i]
			}
		}
		if worst != nil {
			b.Observed = true
			hr := headRead{SHA: sha, RunID: worst.ID, Conclusion: worst.Conclusion}
			if err := r.evidence(ctx, &hr); err != nil {
				return err
			}
			b.Evidence = hr.Evidence
			for _, t := range hr.Tests {
				if t.Status.Failed() {
					b.Failing = append(b.Failing, t.Name)
				}
			}
		}
		r.bases[sha] = b
		_ = r.cache.putBase(b) // a base not kept is read again next time
	}
	return nil
}
