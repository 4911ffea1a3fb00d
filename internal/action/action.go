package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

// Deps are the Action's outside world, replaceable in tests.
type Deps struct {
	// NewForge binds GitHub to the workflow's repository.
	NewForge func(actionenv.Context, actionenv.Inputs) (Forge, error)
	// Load reads the branch, the results and the graph: once per run.
	Load func(context.Context, evaluate.Options) (evaluate.Snapshot, error)
	Now  func() time.Time
	// Version is the breaker's version, for the log and the JSON report.
	Version string
}

// Outcome is how one run ended. Everything a person should see has been
// written (log, annotations, step summary, outputs, comment) by then;
// internal/cli only turns it into the exit code.
type Outcome struct {
	// Decision is the verdict the run published; nil when it published none
	// (a refused command, a closed pull request, nothing to do).
	Decision *breaker.Decision
	// Enforce says whether an OPEN Decision fails the check: true for a
	// push or pull request with fail-on-trip on; false for the pull cord,
	// a reset and a disabled fail-on-trip.
	Enforce bool
	// Err is why the run failed; it has been reported.
	Err error
	// Ledger is what a judged push's run of a pull request read of the
	// ledger; nil for any other run.
	Ledger *LedgerRead
}

// LedgerRead is what a judged push's run read of its pull request's
// ledger: the query, and every check run that read held. Read again after
// the run wrote its entry, a check run of the pull request that is not
// among these was written side by side with the run (the App server's
// replicas; internal/app).
type LedgerRead struct {
	Query forge.LedgerQuery
	Head  string
	// CheckRuns are the ids of the check runs the read held.
	CheckRuns map[int64]bool
}

// run is the services one run of the Action uses: the runner, the inputs,
// GitHub and what happened there. Use cases are functions that take it with
// their own parameters.
type run struct {
	// elsewhere are the agent's other OPEN lines of work, read once a run
	// (agentOpenLines); nil until read.
	elsewhere *[]breaker.OpenElsewhere
	recent    *[]forge.RecentPull // the newest pull requests, read once (recentPulls)
	ax        *actionenv.Action
	in        actionenv.Inputs
	gh        actionenv.Context
	api       ports // GitHub, one narrow port a concern: no use case holds the whole forge
	deps      Deps
	red       *report.Redactor
	policy    breaker.Policy
	notes     []string     // what happened on GitHub, for the summary and the log
	ident     *string      // our login, once known
	state     *remoteState // what the ledger query read, once read
	// resultsDir is where the result globs are read; "" = the workspace.
	resultsDir string
	// before is where a pushed branch was before the push (the push
	// event's before): its entries are read with the ledger, so a force
	// push on a branch without a pull request (no timeline lists it) keeps
	// the line, whose earlier heads that entry names.
	before string
	// head is the commit this run judges; wholeLine makes it read the
	// whole ledger, not start from the newest entry's carry (fold.go).
	head      string
	wholeLine bool
	// wideBefore asks the newest read for the history of the push's
	// before too: the push added more commits than leave the line's newest
	// entries among the newest 100 (a push's listed commits, or a pull
	// request longer than a page).
	wideBefore bool
	// beforeDepth is how many of before's commits that history holds
	// (forge.BeforeDepth when 0).
	beforeDepth int
}

// Run runs the Action once for the event the runner gave.
func Run(ctx context.Context, deps Deps, ax *actionenv.Action) Outcome {
	in, inErr := ax.Inputs()
	ax.Mask(in.Token)
	r := &run{ax: ax, in: in, deps: deps, red: report.NewRedactor(in.Token)}
	r.policy = breaker.DefaultPolicy()
	r.policy.TrailerPrefix, r.policy.TagPrefix = in.TrailerPrefix, in.TagPrefix
	r.policy.Name = in.Policy
	gh, ctxErr := ax.Context()
	r.gh = gh
	if err := errors.Join(inErr, ctxErr); err != nil {
		return r.fail("the action is misconfigured", err)
	}
	forge, err := deps.NewForge(gh, in)
	if err != nil {
		return r.fail("cannot reach GitHub", err)
	}
	if in.DryRun {
		forge = &dryRunForge{Forge: forge, log: func(s string) { r.note("dry run: %s", s) }}
		ax.Logf("breaker: dry run: reading from GitHub, writing nothing")
	}
	r.api = portsOf(forge)
	ax.Logf("breaker: version %s", report.SafeLine(deps.Version))
	return route(ctx, r)
}

// ports are the narrow GitHub ports the use cases call (internal/forge),
// each a small interface: a use case reaches GitHub only through the port
// of the concern at hand, and a test fakes only the ports it needs.
type ports struct {
	pulls     PullRequests
	comments  Comments
	refs      Refs
	labels    Labels
	assignees Assignees
	reviews   Reviews
	drafts    Drafts
	runs      Runs
	commits   Commits
	people    People
	artifacts Artifacts
	logs      JobLogs
	ledger    LedgerStore
	lines     forge.Lines
}

// portsOf splits an adapter into its ports.
func portsOf(f Forge) ports {
	return ports{pulls: f, comments: f, refs: f, labels: f, assignees: f, reviews: f, drafts: f,
		runs: f, commits: f, people: f, artifacts: f, logs: f, ledger: f, lines: f}
}

// route sends the event to its use case (DESIGN §3).
func route(ctx context.Context, r *run) Outcome {
	ev := r.gh.Event
	if r.in.Mode == actionenv.ModeGate {
		return onGate(ctx, r)
	}
	switch {
	case ev.Push != nil:
		return onPush(ctx, r, *ev.Push)
	case ev.PullRequest != nil && ev.Action == "closed":
		return onClosed(ctx, r, *ev.PullRequest)
	case ev.PullRequest != nil:
		// A synchronize does not say how many commits it added: on a pull
		// request longer than a page, read relayDistance of before's
		// commits (5 points), which the relay at before continues.
		r.wideBefore, r.beforeDepth = ev.Commits > forge.NewestCommits, relayDistance
		return onPullRequest(ctx, r, ev.Action, ev.Before, *ev.PullRequest)
	case ev.Comment != nil:
		return onComment(ctx, r, ev.Action, *ev.Comment)
	case ev.Dispatch != nil:
		return onDispatch(ctx, r, *ev.Dispatch)
	case ev.WorkflowRun != nil:
		return onWorkflowRun(ctx, r, ev.Action, *ev.WorkflowRun)
	}
	return r.fail("unsupported event", fmt.Errorf("event %q is not one the breaker acts on; "+
		"run it on push, pull_request, workflow_run, workflow_dispatch or issue_comment", r.gh.EventName))
}

// loadSpec is what a use case loads: the head and branch, and what it
// overrides of the run's inputs.
type loadSpec struct {
	head, branch string
	slice        string // "" = the input's
	force        bool   // the pull cord
	pr           int    // the pull request, for the ledger entry; 0 = none
	fork         bool   // the pull request's head lives in a fork
	// base is the commit the branch is read from, as the event or the API
	// gives it: never a ref of the workspace, which the code under test can
	// move. "" = the repository's default branch, from the API.
	base, baseRef, baseSource string
	noResults                 bool // the use case reads no results (a closed pull request)
	// fromLedger takes the head's observation from the ledger instead of
	// result files: a run started by a comment ran no tests.
	fromLedger bool
	// baseFailing are the tests the breaker saw failing on the base commit;
	// baseObserved says it saw the base at all.
	baseFailing  map[string]bool
	baseObserved bool
	// agent asks for the agent's other lines of work (a judged push of a
	// pull request); author is the pull request's, "" when the event did
	// not say (a workflow_run's payload lists no author).
	agent  bool
	author string
}

// load reads the branch at head once, with the run's inputs and what the
// ledger query read (r.state, when it ran).
func (r *run) load(ctx context.Context, s loadSpec) (evaluate.Snapshot, error) {
	opts, err := r.options(s)
	if err != nil {
		return evaluate.Snapshot{}, err
	}
	return r.deps.Load(ctx, opts)
}

// options are the evaluation options of a load: the run's inputs, what the
// ledger query read, and the use case's spec.
func (r *run) options(s loadSpec) (evaluate.Options, error) {
	if r.in.Base != "" { // a commit SHA the workflow pinned
		s.base, s.baseRef, s.baseSource = r.in.Base, r.in.Base, breaker.BaseFromFlag
	}
	if s.base == "" && r.state != nil && r.state.defaultSHA != "" {
		s.base, s.baseRef, s.baseSource = r.state.defaultSHA, r.state.defaultBranch, breaker.BaseFromAPI
	}
	if s.base == "" {
		return evaluate.Options{}, errors.New("no base: neither the event nor GitHub's API gave the commit the branch forked from; " +
			"the breaker never takes it from the workspace's refs, which the code under test can move")
	}
	if s.slice == "" {
		s.slice = r.in.Slice
	}
	// The run that observed the head: this one, or in the hardened mode
	// the tested run (a re-run of it is a higher attempt of the same id).
	runID, attempt := r.gh.RunID, r.gh.RunAttempt
	if wr := r.gh.Event.WorkflowRun; wr != nil && wr.ID > 0 {
		runID, attempt = wr.ID, wr.RunAttempt
	}
	opts := evaluate.Options{
		RepoDir: r.gh.Workspace, Head: s.head, Base: s.base, BaseRef: s.baseRef, BaseSource: s.baseSource,
		Slice: s.slice, Branch: s.branch,
		Results: r.in.Results, ResultsDir: r.resultsDir, Graph: r.in.Graph, Policy: r.policy, Force: s.force,
		Phase: r.in.Phase, Threshold: r.in.Threshold, TestsOutcome: r.in.TestsOutcome,
		Run: evaluate.Run{ObservedAt: r.deps.Now().UTC(), RunID: runID, Attempt: attempt, Event: r.gh.EventName, PR: s.pr, Branch: s.branch, Before: r.before},
	}
	if r.state != nil {
		opts.Ledger = r.state.ledger
	}
	opts.BaseFailing, opts.BaseObserved = s.baseFailing, s.baseObserved
	opts.ObserveFromLedger = s.fromLedger
	if s.noResults {
		opts.Results = nil
	}
	return opts, nil
}

// errDefaultBranch: a push to the default branch has no agent branch to judge.
var errDefaultBranch = errors.New("the default branch")

// errPullFromDefault: a pull request whose head is the default branch is
// no agent's line of work; judging it would write entries on the commits
// every other pull request is based on.
var errPullFromDefault = errors.New("the pull request's head is the default branch: the breaker judges an agent's branch, never the default branch, whose commits are every pull request's base")

// judgeWith reads the ledger (with the tags and the comments), loads the
// branch once and decides with the remote tags of the slice.
func judgeWith(ctx context.Context, r *run, s loadSpec) (evaluate.Snapshot, breaker.Decision, remoteRefs, error) {
	r.head = s.head
	if r.state == nil {
		rs, err := readState(ctx, r, s.pr, s.branch, s.base)
		if err != nil {
			return evaluate.Snapshot{}, breaker.Decision{}, remoteRefs{}, fmt.Errorf("read the ledger (CI's earlier observations; the breaker never judges without them): %w", err)
		}
		r.state = &rs
	}
	rs := *r.state
	if s.pr == 0 && s.branch != "" && s.branch == rs.defaultBranch {
		return evaluate.Snapshot{}, breaker.Decision{}, remoteRefs{}, errDefaultBranch
	}
	if s.pr != 0 && !s.fork && s.branch != "" && s.branch == rs.defaultBranch {
		return evaluate.Snapshot{}, breaker.Decision{}, remoteRefs{}, errPullFromDefault
	}
	s.baseFailing, s.baseObserved = baseObservation(ctx, r, s)
	snap, err := r.load(ctx, s)
	if err != nil {
		return snap, breaker.Decision{}, remoteRefs{}, err
	}
	if s.agent && s.pr != 0 {
		if r.elsewhere == nil {
			lines, tree, err := agentOpenLines(ctx, r, s.author, s.pr, s.head)
			if err != nil {
				return snap, breaker.Decision{}, remoteRefs{}, err
			}
			found := elsewhereOf(lines, tree)
			r.elsewhere = &found
		}
		snap = snap.WithElsewhere(*r.elsewhere)
	}
	refs := rs.refsFor(r, snap.Slice())
	d := snap.Decide(refs.engine(snap.Slice()))
	if why := snap.FoldRefused(d); why != "" {
		// The carry cannot stand for this line: read all of it, decide again.
		r.ax.Logf("breaker: read every page of the ledger: the newest entry's carry cannot stand for the line: %s", why)
		r.state, r.wholeLine = nil, true
		return judgeWith(ctx, r, s)
	}
	return snap, d, refs, nil
}

// fail reports an error that stops the run: an annotation, the log, the
// step summary when it can be written.
func (r *run) fail(title string, err error) Outcome {
	msg := r.red.Redact(err.Error())
	r.ax.Annotate(actionenv.LevelError, "Circuit breaker: "+title, msg)
	r.ax.Untrusted("breaker: " + title + ": " + msg)
	summary := "## Circuit breaker: " + title + "\n\n" + report.CodeBlock(msg, "text") + "\n"
	if werr := r.ax.WriteSummary(summary); werr != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	return Outcome{Err: fmt.Errorf("%s: %w", title, err)}
}

// note records what happened on GitHub: shown in the summary and the log.
func (r *run) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// noteDone records a write to GitHub that succeeded. In a dry run nothing
// was written: the dry-run forge has already noted what it would have done,
// so claiming success here would contradict it.
func (r *run) noteDone(format string, args ...any) {
	if !r.in.DryRun {
		r.note(format, args...)
	}
}

// noteWrite notes the outcome of a write to GitHub; a forbidden write is
// the expected fate of a fork pull request's read-only token.
func (r *run) noteWrite(what string, err error) {
	switch {
	case err == nil:
		r.noteDone("%s: done", what)
	case errors.Is(err, forge.ErrForbidden):
		r.note("could not %s: the token may not (a fork pull request's read-only token?); the diagnostic is in this summary and the log", what)
	default:
		r.note("could not %s: %v", what, err)
	}
}

// stamp is the run's time for acknowledgements.
func (r *run) stamp() string {
	return r.deps.Now().UTC().Format("2006-01-02 15:04 UTC")
}

// baseObservation reads what the breaker saw at the base commit — its
// entry there, written by a run on a push to the default branch — and
// returns the tests failing there: the base's failures, never counted as
// the branch's (DESIGN §2). observed is false when the breaker never saw
// the base's tests (or could not read them, which is noted).
func baseObservation(ctx context.Context, r *run, s loadSpec) (failing map[string]bool, observed bool) {
	base := s.base
	switch {
	case r.in.Base != "":
		base = r.in.Base
	case base == "" && r.state != nil:
		base = r.state.defaultSHA
	}
	if base == "" {
		return nil, false
	}
	// Only the default branch is observed as a base: a pull request into
	// another branch reads the observation where that branch leaves the
	// default branch (their merge base), never one of the other branch's
	// own commits, which the agent may have written.
	if rs := r.state; r.in.Base == "" && rs != nil && rs.defaultSHA != "" && s.baseRef != "" && s.baseRef != rs.defaultBranch {
		mb, err := evaluate.MergeBase(r.gh.Workspace, base, rs.defaultSHA)
		if err != nil {
			r.note("the base %s is not the default branch %s, and their merge base could not be read (%v): a test failing there too counts as this branch's",
				s.baseRef, rs.defaultBranch, err)
			return nil, false
		}
		r.note("the base %s is not the default branch: what fails on it is read where it leaves %s, at %s", s.baseRef, rs.defaultBranch, breaker.ShortSHA(mb))
		base = mb
	}
	q := LedgerQuery{CheckName: r.in.CheckName, TagPrefix: r.in.TagPrefix, AppID: r.in.AppID}
	var runs []CheckRunText
	var err error
	if rs := r.state; rs != nil && rs.baseRead && strings.EqualFold(rs.baseSHA, base) {
		runs = rs.baseRuns // read with the ledger
	} else {
		runs, err = r.api.ledger.ReadHeads(ctx, q, []string{base})
	}
	if err != nil {
		r.note("could not read the breaker's observation of the base %s (%v): a test failing there too counts as this branch's", breaker.ShortSHA(base), err)
		return nil, false
	}
	entries, _, _ := DecodeLedger(runs, r.in.AppID, r.in.CheckName)
	if r.in.LedgerKey != "" {
		var verified []ledger.Entry
		for _, e := range entries {
			if ledger.Verify(e, []byte(r.in.LedgerKey)) {
				verified = append(verified, e)
			}
		}
		entries = verified
	}
	return evaluate.BaseFailures(entries, base)
}
