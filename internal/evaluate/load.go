package evaluate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/scope"
	"github.com/greenlight-ci/breaker/internal/testresult"
	"github.com/greenlight-ci/breaker/internal/trailer"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// DefaultGraph is where Greenlight keeps its slice graph, relative to the
// repository.
const DefaultGraph = ".greenlight/GRAPH.json"

// Options are the inputs of one evaluation, shared by `evaluate` and the Action.
type Options struct {
	RepoDir string // the git work tree, which is also the workspace results are read from
	Head    string // revision of the agent branch head; "" = HEAD
	Base    string // base revision; "" = the default branch
	// BaseSource says where Base came from (breaker.BaseFromFlag, ...);
	// "" = BaseFromFlag when Base is set, else BaseFromLocal. BaseRef names
	// it for people when Base is a SHA (e.g. "main").
	BaseSource, BaseRef string
	Slice               string   // "" = the newest attempt's slice
	Branch              string   // branch name for the S-<n> fallback; "" = from Head
	Results             []string // result file globs, relative to ResultsDir
	// ResultsDir is where the globs are read; "" = RepoDir. The hardened
	// mode reads an artifact unpacked into a scratch directory.
	ResultsDir string
	// NamedResultsAnywhere lets a result file named in full lie outside
	// the workspace (the command line: the user's own files).
	NamedResultsAnywhere bool
	Graph                string // GRAPH.json path relative to RepoDir; "" = DefaultGraph if present
	// TestsOutcome is the tests step's outcome when the caller knows it
	// (the tests-outcome input, or a workflow_run's conclusion). Results
	// are judged whatever it is; "cancelled" or "skipped" without results
	// is results missing (no_results), since the agent's own workflow can
	// cancel itself.
	TestsOutcome string
	Policy       breaker.Policy
	Force        bool   // build the diagnostic whatever the counts
	Ledger       Ledger // CI's earlier observations of this pull request or branch
	// Phase (prp) and Threshold (bmad) tune the other policies; the liza
	// policy reads .liza/state.yaml from the repository.
	Phase     string
	Threshold int
	Run       Run // this run, for its own push and ledger entry
	// BaseFailing are the tests the breaker saw failing on the base commit
	// (BaseFailures of its entry there); BaseObserved says it saw the base.
	BaseFailing  map[string]bool
	BaseObserved bool
	// ObserveFromLedger takes the head's observation from its newest
	// ledger entry (of this pull request) instead of result files: a run a
	// comment started ran no tests, and must not say they did not run.
	ObserveFromLedger bool
	// Observed, when set, is this run's observation as the caller read it
	// (`breaker replay`: a past run's job log, or its conclusion alone);
	// Results are not read. Partial says it names only some of the run's
	// tests (a log): a test it does not name is unknown, never absent.
	Observed *testresult.Report
	Partial  bool
}

// Snapshot is everything one run read, ready to decide: the engine's input
// without the breaker's refs, and the refs the local repository has.
type Snapshot struct {
	input     breaker.Input
	localRefs breaker.Refs
	run       breaker.Push      // this run's observation of the head
	report    testresult.Report // this run's results
	full      []string          // the full name of each of report's tests, aligned (fullNames)
	ledger    Ledger            // the entries read
	meta      Run
	line      map[string]bool // the heads of the line of work (lineHeads)
	fold      *foldFrom       // the read started from a carry (fold.go)
	names     string          // the Digest of this run's test names, once computed (a read from a carry)
}

// Load reads the repository, the results and the graph, once. A slice id
// that cannot name a tag (breaker.CheckSlice) is an error when the caller
// chose it; one an agent's trailer names is said in the decision's notes.
func Load(ctx context.Context, opts Options) (Snapshot, error) {
	if opts.Slice != "" {
		if err := breaker.CheckSlice(opts.Slice); err != nil {
			return Snapshot{}, err
		}
	}
	p := opts.Policy
	ws, err := workspace.Open(opts.RepoDir)
	if err != nil {
		return Snapshot{}, err
	}
	defer ws.Close()
	repo, err := gitlog.Open(opts.RepoDir)
	if err != nil {
		return Snapshot{}, err
	}
	defer repo.Close()
	lg, err := repo.Log(ctx, gitlog.Options{
		Head: opts.Head, Base: opts.Base, NeedsFiles: p.NeedsFiles, Parse: trailer.Parse,
	})
	if err != nil {
		return Snapshot{}, err
	}
	if err := checkBase(opts, lg); err != nil {
		return Snapshot{}, err
	}
	in := breaker.Input{Policy: p, Commits: lg.Commits, Slice: opts.Slice, Branch: opts.Branch, Force: opts.Force,
		Base: baseOf(opts, lg)}
	if in.Branch == "" {
		in.Branch = lg.Branch
	}
	local, err := repo.Refs(p)
	if err != nil {
		return Snapshot{}, err
	}
	names := testNames(p, lg.Commits)
	rep, err := observe(ctx, opts, ws, lg.HeadSHA)
	if err != nil {
		return Snapshot{}, err
	}
	in.Observation = buildObservation(lg.HeadSHA, rep, names, p.Key(breaker.TrailerTest))
	run := opts.Run
	if run.ObservedAt.IsZero() {
		run.ObservedAt = time.Now().UTC()
	}
	full := fullNames(rep)
	head := runPush(lg.HeadSHA, run, rep, full, names)
	head.Complete = !opts.Partial
	in.BaseFailing, in.BaseObserved = opts.BaseFailing, opts.BaseObserved
	if len(lg.Notes) > 0 {
		in.Observation.Notes = append(slices.Clone(lg.Notes), in.Observation.Notes...)
	}
	if in.Scope, err = graphScope(repo, ws, opts, lg.BaseSHA); err != nil {
		return Snapshot{}, err
	}
	in.Phase, in.Threshold = opts.Phase, opts.Threshold
	if p.Name == breaker.PolicyLiza {
		anomalies, note, err := readAnomalies(ws)
		if err != nil {
			return Snapshot{}, err
		}
		in.Anomalies = anomalies
		if note != "" {
			in.Observation.Notes = append(in.Observation.Notes, note)
		}
	}
	snap := Snapshot{input: in, localRefs: local, run: head, report: rep, full: full, meta: run}
	snap.readLedger(opts.Ledger)
	return snap, nil
}

// readLedger turns the ledger read into the engine's pushes, this run's
// last: every entry of the line, or, from a carry (Ledger.From), the
// entries after it.
func (s *Snapshot) readLedger(l Ledger) {
	own := s.meta.OwnCommits()
	for _, c := range s.input.Commits {
		own[strings.ToLower(c.SHA)] = true
	}
	names := testNames(s.input.Policy, s.input.Commits)
	s.ledger, s.line, s.fold = l, lineHeads(l.Entries, own), nil
	s.input.Pushes, s.input.Ledger = ledgerPushes(l, names, s.meta, s.line)
	s.input.Pushes = append(s.input.Pushes, s.run)
	s.input.Carry = nil
	if from := l.From; from != nil {
		if s.names == "" {
			s.names = ledger.Digest(s.reportNames())
		}
		s.fold = &foldFrom{from: *from}
		s.input.Carry, s.fold.why = startFrom(*from, l.Edge, l.Entries, s.input, s.run, s.names)
		if s.input.Carry != nil {
			s.input.Ledger.Folded = s.input.Carry.Pushes
		}
	}
}

// WithLedger is the snapshot with another ledger read and this run's
// time and id, the branch and the results as they were: what a run at the
// same head with that ledger would decide. The benchmark writes a line's
// entries so, one run each, without reading the branch again.
func (s Snapshot) WithLedger(l Ledger, observedAt time.Time, runID int64) Snapshot {
	s.meta.ObservedAt, s.meta.RunID = observedAt, runID
	s.run.ObservedAt, s.run.RunID = observedAt, runID
	s.readLedger(l)
	return s
}

// WithElsewhere is the snapshot with the other OPEN lines of work of the
// same agent (breaker.Input.Elsewhere).
func (s Snapshot) WithElsewhere(lines []breaker.OpenElsewhere) Snapshot {
	s.input.Elsewhere = lines
	return s
}

// Decide runs the engine over the snapshot with the breaker's refs (the
// remote's in the Action, the local repository's on the command line).
func (s Snapshot) Decide(refs breaker.Refs) breaker.Decision {
	in := s.input
	in.Refs = refs
	return breaker.Evaluate(in)
}

// DecideReset decides as the run that records a verified reset of slice at
// its head: this run's push carries the reset record, so every push
// observed up to it is prior, and every record that did not verify was
// written before it: set aside, as later runs will (ledgerPushes).
func (s Snapshot) DecideReset(refs breaker.Refs, slice string, rec breaker.ResetRecord) breaker.Decision {
	in := s.input
	in.Refs = refs
	in.Slice = slice
	in.Ledger.SetAside = append(slices.Clone(in.Ledger.SetAside), in.Ledger.Tampered...)
	in.Ledger.Tampered = nil
	in.Pushes = slices.Clone(in.Pushes)
	last := len(in.Pushes) - 1
	in.Pushes[last].Slice, in.Pushes[last].Reset = slice, &rec
	return breaker.Evaluate(in)
}

// Slice is the slice Decide will decide for: the chosen one, else the
// newest attempt's, else the branch's S-<n>; "" when there is none.
func (s Snapshot) Slice() string {
	slice, _ := breaker.VerdictSlice(s.input)
	return slice
}

// PR is the pull request this run judges, 0 when none.
func (s Snapshot) PR() int { return s.meta.PR }

// Head is the commit this run observed.
func (s Snapshot) Head() string { return s.run.Head }

// Failing are the tests failing or erroring in this run's results.
func (s Snapshot) Failing() []testresult.Test {
	var out []testresult.Test
	for _, t := range s.report.Tests {
		if t.Status.Failed() {
			out = append(out, t)
		}
	}
	return out
}

// LocalRefs are the breaker's tags in the local repository.
func (s Snapshot) LocalRefs() breaker.Refs { return s.localRefs }

// Commits are the branch's commits, oldest first.
func (s Snapshot) Commits() []breaker.Commit { return s.input.Commits }

// Slices are every slice this pull request (or branch) has had: the ones
// its commits name, the one a commit without a slice trailer falls back to
// (configured, the slice input; else an S-<n> in the branch name, else the
// branch), and the ones its ledger entries judged.
func (s Snapshot) Slices(configured string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(sl string) {
		if sl != "" && !seen[sl] {
			seen[sl] = true
			out = append(out, sl)
		}
	}
	for _, sl := range s.NamedSlices() {
		add(sl)
	}
	add(breaker.FallbackSlice(configured, s.input.Branch))
	for _, e := range s.ledger.Entries {
		if s.meta.Belongs(e) {
			add(e.Slice)
		}
	}
	return out
}

// KnownSlices are the slices a run here may be asked about: Slices (the
// commits', the branch's, the ledger's) and the slice graph's, if any.
func (s Snapshot) KnownSlices() []string {
	out := s.Slices("")
	if g, ok := s.input.Scope.(interface{ Slices() []string }); ok {
		for _, sl := range g.Slices() {
			if !slices.Contains(out, sl) {
				out = append(out, sl)
			}
		}
	}
	return out
}

// ResultFiles are the result files the run read, each with its result or
// why it could not be read.
func (s Snapshot) ResultFiles() []testresult.File { return s.report.Files }

// NamedSlices are the slice ids the commits name, in order.
func (s Snapshot) NamedSlices() []string { return breaker.NamedSlices(s.input.Policy, s.input.Commits) }

// testNames are the distinct <prefix>Test values across commits, in order
// of first appearance: the names results are matched against.
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

// observe is this run's observation: the one given (Observed), the one
// the ledger holds for the head, or the result files read (from ResultsDir
// when set).
func observe(ctx context.Context, opts Options, ws *workspace.Workspace, headSHA string) (testresult.Report, error) {
	rws := ws
	if opts.ResultsDir != "" {
		var err error
		if rws, err = workspace.Open(opts.ResultsDir); err != nil {
			return testresult.Report{}, err
		}
		defer rws.Close()
	}
	if opts.NamedResultsAnywhere {
		rws.AllowNamedFilesAnywhere()
	}
	if err := ctx.Err(); err != nil {
		return testresult.Report{}, fmt.Errorf("interrupted after reading the branch, before the test results: %w", err)
	}
	switch {
	case opts.Observed != nil:
		return *opts.Observed, nil
	case opts.ObserveFromLedger:
		return ledgerObservation(opts, headSHA), nil
	}
	return readResults(ctx, rws, opts)
}

// graphScope loads the slice graph. Its paths are the repository's,
// wherever breaker runs: the default graph is looked up at the top of the
// working tree, and a named one relative to RepoDir is read at its place
// below the top (the base's files are read from git at baseSHA).
func graphScope(repo *gitlog.Repo, ws *workspace.Workspace, opts Options, baseSHA string) (breaker.ScopeSource, error) {
	gws := ws
	if opts.Graph == "" {
		if top := repo.WorkTree(); top != "" && !sameDir(top, opts.RepoDir) {
			var err error
			if gws, err = workspace.Open(top); err != nil {
				return nil, err
			}
			defer gws.Close()
		}
	}
	prefix := ""
	if top := repo.WorkTree(); opts.Graph != "" && top != "" && !sameDir(top, opts.RepoDir) {
		if p, err := filepath.Rel(top, opts.RepoDir); err == nil && filepath.IsLocal(p) {
			prefix = filepath.ToSlash(p)
		}
	}
	return loadScope(gws, opts.Graph, baseFiles(repo, baseSHA, prefix))
}

// readResults reads this run's results. No results at all means the head's
// tests did not run (infra: NothingRead); an unreadable result file is an
// error, never green.
func readResults(ctx context.Context, ws *workspace.Workspace, opts Options) (testresult.Report, error) {
	rep, err := readResultFiles(ctx, ws, opts)
	if err != nil || rep.Infra == "" {
		return rep, err // results it did leave are judged whatever its conclusion
	}
	return NothingRead(opts.TestsOutcome, rep), nil
}

// NothingRead is the observation of a run whose results read gave no test
// (rep says why, and of what kind), by the tested run's outcome
// (tests-outcome; "" when not known): results withheld when the agent's own
// run was cancelled or skipped (three such pushes in a row trip no_results,
// from the first push on, never a neutral head forever); otherwise rep as
// it is (no result file: breaker.InfraNoResults, a failed push once an
// earlier push had results; a build that failed: breaker.InfraBuild). The
// Action reads a run so, and `breaker replay` a past run that left nothing
// it reads (replay.observation): one rule for both.
func NothingRead(outcome string, rep testresult.Report) testresult.Report {
	if outcome = strings.ToLower(strings.TrimSpace(outcome)); outcome == "cancelled" || outcome == "skipped" {
		rep.Infra = "the tests step was " + outcome + " (tests-outcome) and left no results: " + rep.Infra
		rep.InfraKind = breaker.InfraWithheld
	}
	return rep
}

// readResultFiles reads the result files the options name.
func readResultFiles(ctx context.Context, ws *workspace.Workspace, opts Options) (testresult.Report, error) {
	if len(opts.Results) == 0 {
		return testresult.Report{Infra: "no test results were given (--results / the results input)", InfraKind: breaker.InfraNoResults}, nil
	}
	rep, err := ws.ResultsContext(ctx, opts.Results)
	if err != nil {
		return testresult.Report{}, err
	}
	// A file named without wildcards that is missing is missing results, as
	// a glob that matches nothing is: a failed push after pushes that had
	// results, never "the tests did not run" that passes.
	if err := workspace.Unreadable(rep); err != nil {
		if errors.Is(err, workspace.ErrNotExist) {
			return testresult.Report{Files: rep.Files, InfraKind: breaker.InfraNoResults,
				Infra: fmt.Sprintf("%v (a result file named without wildcards is missing)", err)}, nil
		}
		return rep, err
	}
	return rep, nil
}

// loadScope loads the slice graph: the named one (an error when missing),
// else the default one when it exists, else a disabled lock that says why.
// The workspace checks the path (relative to the repository, contained);
// the graph and CONTRACTS.md beside it are read from the base commit
// (read), never the head: the branch is the agent's, and a lock it could
// delete or widen would be no lock (issue 30). A change to either on the
// branch is an out-of-scope change like any other.
func loadScope(ws *workspace.Workspace, name string, read func(rel string, max int64) ([]byte, error)) (breaker.ScopeSource, error) {
	explicit := name != ""
	if !explicit {
		name = DefaultGraph
	}
	rel, err := ws.Rel(name)
	if err != nil {
		return nil, fmt.Errorf("slice graph (--graph / the graph input): %w", err)
	}
	graph, err := read(rel, workspace.MaxGraphBytes)
	switch {
	case errors.Is(err, gitlog.ErrNoFile) && !explicit:
		return scope.None(fmt.Sprintf("no slice graph at %s on the base: scope lock off", rel)), nil
	case err != nil:
		return nil, fmt.Errorf("read the slice graph (--graph / the graph input) from the base commit: %w", err)
	}
	contractsPath := path.Join(path.Dir(rel), "CONTRACTS.md")
	contracts, err := read(contractsPath, workspace.MaxContractsBytes)
	if err != nil && !errors.Is(err, gitlog.ErrNoFile) {
		return nil, fmt.Errorf("read the contracts beside %s from the base commit: %w", rel, err)
	}
	return scope.Parse(rel, graph, contracts)
}

// baseFiles reads files of the base commit, at prefix (the workspace's
// place in the repository).
func baseFiles(repo *gitlog.Repo, base, prefix string) func(rel string, max int64) ([]byte, error) {
	return func(rel string, max int64) ([]byte, error) {
		if base == "" {
			return nil, fmt.Errorf("%s: no base commit to read it from", rel)
		}
		return repo.FileAt(base, path.Join(prefix, rel), max)
	}
}

// baseOf names the base the branch was read from.
func baseOf(opts Options, lg gitlog.Log) breaker.Base {
	b := breaker.Base{Ref: lg.BaseRef, SHA: lg.BaseSHA, Source: opts.BaseSource}
	if opts.BaseRef != "" {
		b.Ref = opts.BaseRef
	}
	if b.Source == "" {
		b.Source = breaker.BaseFromLocal
		if opts.Base != "" {
			b.Source = breaker.BaseFromFlag
		}
	}
	return b
}

// checkBase refuses a base that leaves nothing to judge, which would read
// as "no attempts": the head itself, or a commit that shares no history
// with it.
func checkBase(opts Options, lg gitlog.Log) error {
	switch {
	case lg.BaseSHA == "":
		return nil
	case lg.BaseSHA == lg.HeadSHA:
		return fmt.Errorf("the base %s (%s) is the head itself: there is no branch to judge; give the base the branch forked from "+
			"(--base, or in the Action the pull request's base, which the event gives)", describeBase(opts, lg), breaker.ShortSHA(lg.BaseSHA))
	case lg.ForkPoint == "" && len(lg.Commits) > 0:
		return fmt.Errorf("the base %s (%s) shares no history with the head %s: give the branch the head forked from, "+
			"and fetch the whole history (actions/checkout with fetch-depth: 0)", describeBase(opts, lg), breaker.ShortSHA(lg.BaseSHA), breaker.ShortSHA(lg.HeadSHA))
	}
	return nil
}

func describeBase(opts Options, lg gitlog.Log) string {
	if opts.BaseRef != "" {
		return opts.BaseRef
	}
	return lg.BaseRef
}

// sameDir reports whether two paths name the same directory.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// ledgerObservation is the head's newest observation in the ledger, as a
// report: what CI saw there, for a run that ran no tests itself. A head the
// ledger never observed ran nothing as far as the breaker knows: said, not
// counted.
func ledgerObservation(opts Options, head string) testresult.Report {
	var newest *ledger.Entry
	for i := range opts.Ledger.Entries {
		e := &opts.Ledger.Entries[i]
		if !strings.EqualFold(e.Head, head) || !opts.Run.Belongs(*e) {
			continue
		}
		if newest == nil || e.ObservedAt.After(newest.ObservedAt) {
			newest = e
		}
	}
	switch {
	case newest == nil:
		return testresult.Report{Infra: "this run ran no tests, and the breaker has not observed this head yet", InfraKind: breaker.InfraCancelled}
	case newest.Infra != nil:
		return testresult.Report{Infra: *newest.Infra, InfraKind: newest.InfraKind}
	}
	// The entry keeps the failing tests and those that failed before, and
	// the run's counts: the counts stand for the whole run.
	c := newest.Counts
	rep := testresult.Report{Totals: &testresult.Counts{Total: c.Total, Passed: c.Passed, Failed: c.Failed, Errored: c.Errored, Skipped: c.Skipped}}
	for _, t := range newest.Tests {
		// CI's error line where the entry kept one (an OPEN entry's).
		rep.Tests = append(rep.Tests, testresult.Test{Suite: t.Suite, Name: t.Name, Status: t.Status, Message: newest.Errors[t.FullName()]})
	}
	return rep
}

// HeadSummary says in one line what CI saw at the head, for an
// acknowledgement: "12 tests at 1a2b3c4, 1 failing: users.TestLogin".
func (s Snapshot) HeadSummary() string {
	short := breaker.ShortSHA(s.run.Head)
	if s.report.Infra != "" {
		return "at " + short + " the tests did not run: " + s.report.Infra
	}
	c := s.report.Counts()
	var failing []string
	for _, t := range s.report.Tests {
		if t.Status.Failed() {
			failing = append(failing, t.FullName())
		}
	}
	line := fmt.Sprintf("%d tests at %s, %d failing", c.Total, short, len(failing))
	if len(failing) > 0 {
		if len(failing) > 5 {
			failing = append(failing[:5], fmt.Sprintf("and %d more", len(failing)-5))
		}
		line += ": " + strings.Join(failing, ", ")
	}
	return line
}
