package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/testresult"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// The bounds of a read: the runs of one pull request, the failed jobs
// whose logs are read a run, a log's kept end, an artifact's size.
const (
	maxRunPages       = 5
	maxJobLogs        = 4
	maxLogBytes       = 16 << 20
	maxArtifact       = 256 << 20
	maxMessageLen     = 500
	maxArtifactsTried = 2
	// requestsAtMost bounds one failed push's reads: its artifacts' listing,
	// two artifacts' downloads (2 each), its jobs, four logs.
	requestsAtMost = 1 + 2*maxArtifactsTried + 1 + maxJobLogs
)

// The evidence a push was judged on, best first.
const (
	EvidenceArtifact   = "artifact"   // result files uploaded by the run
	EvidenceLog        = "log"        // the failing tests its job logs name
	EvidenceConclusion = "conclusion" // the run's conclusion alone
)

// ErrBudget: the next request would pass --budget (the adapter refuses
// it unsent).
var ErrBudget = forge.ErrBudget

// pullRead is what was read of one pull request: the pull request, and a
// head for each pushed commit CI ran on, oldest first. It is what the
// cache keeps.
type pullRead struct {
	Schema string                `json:"schema"`
	Key    string                `json:"key"`
	PR     forge.PastPullRequest `json:"pr"`
	Heads  []headRead            `json:"heads"`
	Resets []resetRead           `json:"resets,omitempty"`
}

// headRead is CI's record of one pushed head: its runs, and what they
// left about its tests.
type headRead struct {
	SHA        string    `json:"sha"`
	At         time.Time `json:"at"`
	RunID      int64     `json:"run_id"`
	Event      string    `json:"event"`
	BaseSHA    string    `json:"base_sha,omitempty"`
	BaseRef    string    `json:"base_ref,omitempty"`
	Conclusion string    `json:"conclusion"`
	Minutes    float64   `json:"minutes"`
	Evidence   string    `json:"evidence"`
	Detail     string    `json:"detail,omitempty"`
	Tests      []test    `json:"tests,omitempty"`
}

// test is one test as a head's evidence gives it.
type test struct {
	Name    string             `json:"name"`
	Status  breaker.TestStatus `json:"status"`
	Message string             `json:"message,omitempty"`
}

const cacheSchema = "greenlight-replay-cache/v2" // v2: a pull request's resets

// reader reads pull requests and their runs through the History port,
// within the budget, from and into the cache.
type reader struct {
	src   forge.History
	opts  Options
	cache *cache
	bases map[string]baseRead // by lower-case commit id
}

// window lists the pull requests created in the window, newest first,
// a page of 100 a request; with ErrBudget, those listed before it ran out.
func (r *reader) window(ctx context.Context) ([]forge.PastPullRequest, error) {
	var all []forge.PastPullRequest
	for page := 1; ; page++ {
		prs, more, err := r.src.PullRequestsPage(ctx, page)
		if err != nil {
			return all, err
		}
		for _, pr := range prs {
			if pr.CreatedAt.Before(r.opts.Since) {
				return all, nil
			}
			if r.opts.Until.IsZero() || !pr.CreatedAt.After(r.opts.Until) {
				all = append(all, pr)
			}
		}
		if !more {
			return all, nil
		}
	}
}

// pulls lists the agents' pull requests created in the window, newest
// first — opened by an agent, from an agent's branch, or pushed to by an
// agent — and how many pull requests the listing held in all.
func (r *reader) pulls(ctx context.Context) (agents []forge.PastPullRequest, listed int, err error) {
	all, err := r.window(ctx)
	if err != nil {
		return r.agentsOf(all, nil), len(all), err
	}
	pushed, err := r.pushedByAgents(ctx)
	return r.agentsOf(all, pushed), len(all), err
}

// pushedByAgents are the branches the agents pushed to in the window: the
// runs each agent's pushes made (GitHub's actor filter), newest first,
// down to the window's start. A pull request a person opened and an agent
// pushed to is the agent's too.
func (r *reader) pushedByAgents(ctx context.Context) (map[string]bool, error) {
	logins := r.opts.Agents
	if len(logins) == 0 {
		logins = KnownAgents
	}
	branches := map[string]bool{}
	for _, login := range logins {
		for page := 1; page <= maxRunPages; page++ {
			runs, more, err := r.src.WorkflowRunsPage(ctx, forge.RunFilter{Workflow: r.opts.Workflow, Actor: login}, page)
			if err != nil {
				return branches, err
			}
			for _, run := range runs {
				if !run.CreatedAt.Before(r.opts.Since) && run.HeadBranch != "" {
					branches[run.HeadBranch] = true
				}
			}
			if !more || (len(runs) > 0 && runs[len(runs)-1].CreatedAt.Before(r.opts.Since)) {
				break
			}
		}
	}
	return branches, nil
}

// runs reads the runs of pr's branch, in the window of its life, and
// makes its heads: one a pushed commit, with its conclusion and minutes.
func (r *reader) runs(ctx context.Context, pr forge.PastPullRequest) ([]headRead, error) {
	var all []forge.WorkflowRun
	for page := 1; page <= maxRunPages; page++ {
		runs, more, err := r.src.WorkflowRunsPage(ctx, forge.RunFilter{Workflow: r.opts.Workflow, Branch: pr.HeadRef}, page)
		if err != nil {
			return nil, err
		}
		all = append(all, runs...)
		if !more || (len(runs) > 0 && runs[len(runs)-1].CreatedAt.Before(pr.CreatedAt.Add(-24*time.Hour))) {
			break
		}
	}
	return headsOf(pr, all), nil
}

// headsOf groups a branch's runs by head: the events of a pushed commit
// (pull_request, push), from a day before the pull request opened (the
// branch's pushes before it) to its close; a head's conclusion is its
// worst run's, its time its first run's, its minutes every run's.
func headsOf(pr forge.PastPullRequest, runs []forge.WorkflowRun) []headRead {
	byHead := map[string]*headRead{}
	var order []*headRead
	for _, run := range runs {
		if run.Event != "pull_request" && run.Event != "push" && run.Event != "pull_request_target" {
			continue
		}
		if run.CreatedAt.Before(pr.CreatedAt.Add(-24*time.Hour)) || (!pr.ClosedAt.IsZero() && run.CreatedAt.After(pr.ClosedAt)) {
			continue
		}
		if run.Status != "completed" || run.HeadSHA == "" {
			continue
		}
		sha := strings.ToLower(run.HeadSHA)
		h, ok := byHead[sha]
		if !ok {
			h = &headRead{SHA: sha, At: run.CreatedAt, RunID: run.ID, Event: run.Event, Conclusion: run.Conclusion,
				BaseSHA: pr.BaseSHA, BaseRef: pr.BaseRef}
			byHead[sha] = h
			order = append(order, h)
		}
		for _, p := range run.PullRequests {
			if p.Number == pr.Number && p.BaseSHA != "" {
				h.BaseSHA, h.BaseRef = p.BaseSHA, p.BaseRef // the base at that push
			}
		}
		if run.CreatedAt.Before(h.At) {
			h.At = run.CreatedAt
		}
		if worseConclusion(run.Conclusion, h.Conclusion) {
			h.Conclusion, h.RunID, h.Event = run.Conclusion, run.ID, run.Event
		}
		if !run.StartedAt.IsZero() && run.UpdatedAt.After(run.StartedAt) {
			h.Minutes += run.UpdatedAt.Sub(run.StartedAt).Minutes()
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].At.Before(order[j].At) })
	out := make([]headRead, len(order))
	for i, h := range order {
		out[i] = *h
	}
	return out
}

// failed says a conclusion is CI failing the head.
func failed(conclusion string) bool {
	return conclusion == "failure" || conclusion == "timed_out" || conclusion == "startup_failure"
}

func worseConclusion(a, b string) bool {
	rank := func(c string) int {
		switch {
		case failed(c):
			return 3
		case c == "success":
			return 2
		case c == "":
			return 0
		}
		return 1
	}
	return rank(a) > rank(b)
}

// evidence reads what a failed head's run left about its tests: an
// artifact whose result files parse, else the failing tests its job logs
// name, else its conclusion alone. A head CI passed needs no read.
func (r *reader) evidence(ctx context.Context, h *headRead) error {
	if !failed(h.Conclusion) {
		h.Evidence = EvidenceConclusion
		return nil
	}
	names, err := r.src.ArtifactNames(ctx, h.RunID)
	if err != nil {
		return err
	}
	var why []string
	tried := 0
	for _, name := range names {
		if !matchAny(r.opts.Artifacts, name) || tried == maxArtifactsTried {
			continue
		}
		tried++
		tests, err := r.artifact(ctx, h.RunID, name)
		if errors.Is(err, ErrBudget) {
			return err
		}
		if err == nil {
			h.Evidence, h.Detail, h.Tests = EvidenceArtifact, name, tests
			return nil
		}
		why = append(why, fmt.Sprintf("artifact %q: %v", name, err))
	}
	jobs, err := r.src.FailedJobs(ctx, h.RunID)
	if err != nil {
		return err
	}
	var runners []string
	byName := map[string]int{}
	for i, j := range jobs {
		if i == maxJobLogs {
			break
		}
		data, err := r.src.JobLog(ctx, j.ID, maxLogBytes)
		if errors.Is(err, ErrBudget) {
			return err
		}
		if err != nil {
			why = append(why, fmt.Sprintf("log of job %d: %v", j.ID, err))
			continue
		}
		l := testresult.ReadJobLog(data)
		runners = appendNew(runners, l.Runners...)
		for _, t := range l.Tests {
			if k, ok := byName[t.Name]; ok {
				if t.Status.Failed() {
					h.Tests[k].Status = t.Status
				}
				continue
			}
			byName[t.Name] = len(h.Tests)
			h.Tests = append(h.Tests, test{Name: t.Name, Status: t.Status})
		}
	}
	if anyFailed(h.Tests) {
		h.Evidence, h.Detail = EvidenceLog, strings.Join(runners, ", ")
		return nil
	}
	h.Tests = nil
	h.Evidence = EvidenceConclusion
	switch {
	case len(why) > 0:
		h.Detail = strings.Join(why, "; ")
	case len(jobs) == 0:
		h.Detail = "no failed job"
	default:
		h.Detail = "no failing test named in its logs"
	}
	return nil
}

// artifact downloads and reads run runID's artifact name: the result
// files --results selects in it.
func (r *reader) artifact(ctx context.Context, runID int64, name string) ([]test, error) {
	zips, err := r.src.DownloadArtifacts(ctx, runID, name, maxArtifact)
	if err != nil {
		return nil, err
	}
	data := zips[0].Zip
	dir, err := os.MkdirTemp("", "breaker-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := workspace.Unzip(data, dir, workspace.DefaultArtifactLimits); err != nil {
		return nil, err
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	rep, err := ws.ResultsContext(ctx, r.opts.Results)
	if err != nil {
		return nil, err
	}
	if err := workspace.Unreadable(rep); err != nil {
		return nil, err
	}
	if rep.Infra != "" {
		return nil, errors.New(rep.Infra)
	}
	out := make([]test, 0, len(rep.Tests))
	for _, t := range rep.Tests {
		tt := test{Name: t.FullName(), Status: t.Status}
		if t.Status.Failed() {
			tt.Message = clip(t.Message, maxMessageLen)
			if tt.Message == "" {
				tt.Message = clip(t.Output, maxMessageLen)
			}
		}
		out = append(out, tt)
	}
	return out, nil
}

func anyFailed(ts []test) bool {
	for _, t := range ts {
		if t.Status.Failed() {
			return true
		}
	}
	return false
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

func appendNew(list []string, xs ...string) []string {
	for _, x := range xs {
		found := false
		for _, y := range list {
			found = found || x == y
		}
		if !found {
			list = append(list, x)
		}
	}
	return list
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// agentsOf keeps the agents' pull requests: opened by one, from one's
// branch, or on a branch one pushed to.
func (r *reader) agentsOf(prs []forge.PastPullRequest, pushed map[string]bool) []forge.PastPullRequest {
	var out []forge.PastPullRequest
	for _, pr := range prs {
		if r.opts.isAgent(pr) || pushed[pr.HeadRef] {
			out = append(out, pr)
		}
	}
	return out
}
