package breaker

import (
	"sort"
	"strings"
	"time"
)

// StatusAbsent is the status of a test the results no longer carry at a
// push: it failed before, and now it is not there.
const StatusAbsent TestStatus = "absent"

// The kinds of a head whose tests did not run (Push.InfraKind). Missing
// results and a build failure are failed pushes (the agent's code is what
// did not build or report); a cancelled run, and a reason from before the
// kinds were recorded, are not counted.
const (
	InfraNoResults = "no_results" // no result file matched, a named one is missing, or none lists a test
	InfraBuild     = "build"      // the runner reported that the code did not build or the run crashed
	InfraCancelled = "cancelled"  // the run was cancelled or skipped, outside the agent's code
	// InfraConclusion: CI concluded failure and nothing says which tests
	// failed (a past run `breaker replay` reads without results or a log
	// it knows): a failed push, the evidence floor.
	InfraConclusion = "conclusion"
)

// The sources of a Push.
const (
	PushFromRun    = "run"    // this run's own observation
	PushFromLedger = "ledger" // an earlier run's, kept in the ledger
)

// Push is CI's observation of one pushed head of the slice: this run's, or
// an earlier run's kept in the ledger (DESIGN §6). The adapters build it;
// the engine folds the sequence (DESIGN §2, the evidence floor).
type Push struct {
	Head       string
	ObservedAt time.Time
	RunID      int64
	Event      string
	Source     string // PushFromRun or PushFromLedger
	Slice      string // the slice the observing run decided for; "" = any
	Infra      string // why the tests did not run at Head; "" when they ran
	InfraKind  string // InfraNoResults, InfraBuild, InfraConclusion, InfraCancelled; "" = not counted
	// Tests holds, by full test name, every test failing or erroring at
	// Head and every test asked about (those that failed at an earlier
	// push), each with its status there.
	Tests map[string]PushTest
	// Complete says Tests holds every test of the run, so a name missing
	// from it is absent (true for this run, false for ledger entries).
	Complete bool
	// Declared maps <prefix>Test names to the status of the one test each
	// designates at Head (StatusAbsent when it designates none), matched by
	// the adapter as for this run's observation.
	Declared map[string]PushTest
	// Verdict is what the observing run decided (ledger pushes only): an
	// OPEN verdict stays OPEN, and its count is a floor, even when a force
	// push took the commits it judged away.
	Verdict *Verdict
	// Counts are the run's test counts at Head (total, passed, failed and
	// errored), what the prp and bmad policies measure progress with.
	Counts PushCounts
	// Reset is a verified human reset recorded at this push, if any.
	Reset *ResetRecord
}

// PushCounts are a run's test counts.
type PushCounts struct {
	Total, Passed, Failed int // Failed includes errored
}

// ResetRecord is a verified human reset, as the ledger keeps it.
type ResetRecord struct {
	Author string
	Text   string
	At     time.Time
}

// Verdict is a decision as the ledger keeps it.
type Verdict struct {
	State       State
	TripReason  TripReason
	TotalFailed int
}

// PushTest is one test at one push.
type PushTest struct {
	Status      TestStatus
	Fingerprint string // a short hash of the normalised failure message and type
	Message     string // the failure message, when this run has it
}

// PushSummary is one observed push in the Decision: what CI saw at it.
type PushSummary struct {
	Head       string
	ObservedAt time.Time
	Source     string
	Infra      string
	Failed     bool     // failing tests, and none that failed at the previous push passes now
	Progress   bool     // a test that failed at the previous push passes now
	Counted    bool     // counted one toward the slice ceiling by evidence alone
	Prior      bool     // at or before the reset: shown, not counted
	Declared   bool     // its commits declare attempts (<prefix>Test)
	Failing    []string // failing or erroring tests at the head, vanished ones included
	// BaseFailing are tests failing at the head that fail on the base too:
	// the base's, not the push's; shown, never counted.
	BaseFailing []string
	Vanished    []string // tests that failed before and are now absent or skipped
}

// LedgerInfo says where the earlier observations came from and whether
// they could be trusted. The adapter that read them fills it.
type LedgerInfo struct {
	Entries  int
	Signed   bool     // a ledger key was given: entries carry a MAC
	Verified bool     // every entry's MAC verified
	Source   string   // "check-runs", "file", or "none"
	Tampered []string // heads whose entry did not verify
	// SetAside are heads whose record did not verify, written before a
	// verified reset of this pull request: reported, no longer a trip.
	SetAside []string
}

// pushTally is the fold of the observed pushes of a slice.
type pushTally struct {
	summaries  []PushSummary
	streak     int  // failed pushes in a row at the end
	noProgress bool // the streak reached the limit at some push (sticky)
	extra      int  // failed pushes counted by evidence alone
	// recorded is the earliest OPEN verdict a counted ledger push keeps,
	// and floor the highest count one kept.
	recorded *Verdict
	floor    int
	// noResults is set when the streak that reached the limit was made of
	// heads without results.
	noResults     bool
	resultsStreak int
	// flaky are tests that failed, passed and failed again across the
	// pushes: named in the report, never progress.
	flaky           []string
	passedAfterFail map[string]bool
}

// dedupePushes keeps one observation per head, at the position of the
// first and with the data of the last that ran the tests (a re-run of the
// same head, and the push + pull_request pair of one head, count once),
// ordered by when each head was first observed.
func dedupePushes(ps []Push) []Push {
	pos := map[string]int{}
	var out []Push
	for _, p := range ps {
		if p.Head == "" {
			continue
		}
		if i, ok := pos[p.Head]; ok {
			if p.Infra != "" && out[i].Infra == "" {
				continue // a run that could not test the head erases nothing CI saw there
			}
			first := out[i].ObservedAt
			out[i] = p
			if !first.IsZero() {
				out[i].ObservedAt = first
			}
			continue
		}
		pos[p.Head] = len(out)
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ObservedAt.IsZero() || b.ObservedAt.IsZero() {
			return false
		}
		return a.ObservedAt.Before(b.ObservedAt)
	})
	return out
}

// foldPushes walks the slice's pushes in order (DESIGN §2). prior pushes
// (before the reset) are summarised but neither counted nor part of the
// streak; they are history for what progress means. declared(i) says
// whether push i's commits declare attempts, failedAttempt(i) whether one
// of them counted as failed.
//
// A push makes progress only when CI shows something it had not shown
// before: a test passing that failed at every earlier push where it ran,
// or fewer failing tests than at every earlier push. Oscillating between
// failing sets, or a flaky test passing again, is not progress; a push
// with failing tests and no progress is failed.
//
// The fold is a sequence of named steps over one pushFold: a push whose
// tests did not run (untested), the failing set with the base's and the
// vanished tests (failingAt), progress (progressAt), the tests' history
// (remember), flaky tests (flakyAt), and the streak (count).
func foldPushes(ps []Push, prior int, limit int, declared func(i int) bool, failedAttempt func(i int) bool, base map[string]bool) pushTally {
	f := pushFold{
		t:     pushTally{passedAfterFail: map[string]bool{}},
		limit: limit, base: base, flips: flipping(ps, base),
		everFailed: map[string]bool{}, ran: map[string]int{}, failedN: map[string]int{},
		minFailing: -1,
	}
	for i, p := range ps {
		s := PushSummary{Head: p.Head, ObservedAt: p.ObservedAt, Source: p.Source, Infra: p.Infra, Prior: i < prior, Declared: declared(i)}
		if p.Infra != "" {
			f.untested(p, &s)
		} else {
			f.hadResults = true
			f.t.resultsStreak = 0
			failing, steady := f.failingAt(p, &s)
			f.progressAt(p, &s, steady)
			s.Failed = len(failing) > 0 && !s.Progress
			s.Failing = sortedKeys(failing)
			f.remember(p, s.Vanished)
			f.flakyAt(failing)
			if f.minFailing < 0 || steady < f.minFailing {
				f.minFailing = steady
			}
			f.count(&s, failedAttempt(i))
		}
		f.t.record(p, s.Prior)
		f.t.summaries = append(f.t.summaries, s)
	}
	sort.Strings(f.t.flaky)
	return f.t
}

// pushFold is the state foldPushes carries from push to push.
type pushFold struct {
	t     pushTally
	limit int
	base  map[string]bool // the base's failures: no history for progress
	flips map[string]bool // tests that fail, pass and fail again anywhere
	// everFailed are the tests that failed at an earlier push; ran and
	// failedN count, by test, the pushes where it ran and where it failed.
	everFailed   map[string]bool
	ran, failedN map[string]int
	minFailing   int  // the fewest steady failing tests at an earlier push; -1 before any
	hadResults   bool // an earlier push had results
}

// untested folds a push whose tests did not run. Missing results after
// pushes that had them, and a head that does not build, are failed
// pushes: never a way to stop counting. A cancelled run is not counted.
func (f *pushFold) untested(p Push, s *PushSummary) {
	counted := p.InfraKind == InfraBuild || p.InfraKind == InfraConclusion || (p.InfraKind == InfraNoResults && f.hadResults)
	if !counted || s.Prior {
		return
	}
	s.Failed, s.Counted = true, true
	f.t.extra++
	f.t.streak++
	if p.InfraKind == InfraNoResults {
		f.t.resultsStreak++
	} else {
		f.t.resultsStreak = 0
	}
	if f.t.streak >= f.limit {
		f.t.noProgress = true
		f.t.noResults = f.t.noResults || f.t.resultsStreak >= f.limit
	}
}

// failingAt is the push's failing set: its failing tests that do not fail
// on the base (those are noted as the base's), and the tests that failed
// before and are now absent or skipped (a test that vanishes has not
// passed). steady counts the failing tests that do not flip: what "fewer
// failing" compares.
func (f *pushFold) failingAt(p Push, s *PushSummary) (failing map[string]bool, steady int) {
	failing = map[string]bool{}
	for name, pt := range p.Tests {
		switch {
		case pt.Status.Failed() && f.base[name]:
			s.BaseFailing = append(s.BaseFailing, name)
		case pt.Status.Failed():
			failing[name] = true
		}
	}
	sort.Strings(s.BaseFailing)
	for name := range f.everFailed {
		if failing[name] {
			continue
		}
		pt, ok := p.Tests[name]
		switch {
		case ok && (pt.Status == StatusSkip || pt.Status == StatusAbsent), !ok && p.Complete:
			failing[name] = true
			s.Vanished = append(s.Vanished, name)
		}
	}
	sort.Strings(s.Vanished)
	for name := range failing {
		if !f.flips[name] {
			steady++
		}
	}
	return failing, steady
}

// progressAt says whether the push made progress: a test passes that
// failed at every earlier push where it ran (and does not flip), or fewer
// steady tests fail than at every earlier push.
func (f *pushFold) progressAt(p Push, s *PushSummary, steady int) {
	for name, pt := range p.Tests {
		if pt.Status == StatusPass && f.ran[name] > 0 && f.failedN[name] == f.ran[name] && !f.flips[name] {
			s.Progress = true
			return
		}
	}
	if f.minFailing >= 0 && steady < f.minFailing {
		s.Progress = true
	}
}

// remember adds the push to each test's history: where it ran, where it
// failed (a vanished test has not passed), and which passed after failing.
func (f *pushFold) remember(p Push, vanished []string) {
	for name, pt := range p.Tests {
		switch {
		case f.base[name]:
			// the base's failure: no history for progress
		case pt.Status.Failed():
			f.everFailed[name] = true
			f.ran[name]++
			f.failedN[name]++
		case pt.Status == StatusPass:
			f.ran[name]++
			if f.failedN[name] > 0 && !f.t.flakySeen(name) {
				f.t.passedAfterFail[name] = true
			}
		}
	}
	for _, name := range vanished {
		f.ran[name]++
		f.failedN[name]++
	}
}

// flakyAt names the tests that failed, passed and fail again now.
func (f *pushFold) flakyAt(failing map[string]bool) {
	for name := range f.t.passedAfterFail {
		if failing[name] {
			f.t.flaky = appendUnique(f.t.flaky, name)
		}
	}
}

// count adds a judged push to the streak of failed pushes: a failed push
// no failed attempt accounts for is counted by evidence alone, and the
// streak at the limit trips (no_progress, sticky).
func (f *pushFold) count(s *PushSummary, failedAttempt bool) {
	if s.Prior {
		return
	}
	if s.Failed {
		f.t.streak++
		if !failedAttempt {
			s.Counted = true
			f.t.extra++
		}
	} else {
		f.t.streak = 0
	}
	if f.t.streak >= f.limit {
		f.t.noProgress = true
	}
}

// flipping names the tests that fail, pass and fail again somewhere in
// the pushes (the base's failures aside). Their passes are no progress and
// their failures do not make a push's failing set smaller or larger, at
// any push: a pass taken as progress when it was seen is judged again once
// the test is known to flip, so a stuck test beside a flipping one, or two
// wrong fixes taking turns, trip as soon as the flip shows.
func flipping(ps []Push, base map[string]bool) map[string]bool {
	const failed, passedAfter, flips = 1, 2, 3
	state := map[string]int{}
	for _, p := range ps {
		if p.Infra != "" {
			continue
		}
		for name, pt := range p.Tests {
			switch st := state[name]; {
			case base[name] || st == flips:
			case pt.Status.Failed():
				if st == passedAfter {
					state[name] = flips
				} else {
					state[name] = failed
				}
			case pt.Status == StatusPass && st == failed:
				state[name] = passedAfter
			}
		}
	}
	out := map[string]bool{}
	for name, st := range state {
		if st == flips {
			out[name] = true
		}
	}
	return out
}

// record keeps what a ledger push's verdict says: the first OPEN one (the
// reason the slice tripped for) and the highest count, whether or not its
// tests ran (a no_results trip is recorded at a push without results).
func (t *pushTally) record(p Push, prior bool) {
	v := p.Verdict
	if v == nil || prior {
		return
	}
	if v.State == StateOpen && t.recorded == nil && v.TripReason != TripManual && v.TripReason != TripNone {
		t.recorded = v
	}
	t.floor = max(t.floor, v.TotalFailed)
}

func (t *pushTally) flakySeen(name string) bool {
	for _, f := range t.flaky {
		if f == name {
			return true
		}
	}
	return false
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// slicePushes keeps the pushes observed for slice (or for no slice in
// particular) and splits them at the slice's last reset record, in the
// order the ledger recorded them (DESIGN §2: a reset ends the pushes
// observed before it, whatever the branch's shape afterwards): prior are
// the pushes observed up to the reset (the reset's own push included),
// current the ones after it, each one per head. reset is the push that
// carries the reset, nil when none.
func slicePushes(ps []Push, slice string) (prior, current []Push, reset *Push) {
	var out []Push
	for _, p := range ps {
		if p.Slice == "" || p.Slice == slice {
			out = append(out, p)
		}
	}
	at := -1
	for i, p := range out {
		if p.Reset != nil && p.Slice == slice {
			at = i
		}
	}
	if at < 0 {
		return nil, dedupePushes(out), nil
	}
	r := out[at]
	// The reset head observed again (a re-run, or a force push back onto
	// it) is the head that was reset, not a new push; any other head after
	// the reset is.
	before := append([]Push(nil), out[:at+1]...)
	var after []Push
	for _, p := range out[at+1:] {
		if SameSHA(p.Head, r.Head) {
			before = append(before, p)
			continue
		}
		after = append(after, p)
	}
	return dedupePushes(before), dedupePushes(after), &r
}

// foldPushes maps each push to the commits it brought onto the current
// history, then folds the pushes. A push brought the commits after the
// previous push's head (in history order) up to its own head; a head that
// is no longer on the branch (force-pushed away) brought none, and is
// judged by evidence alone. The first e.prior pushes, observed up to the
// reset record, are prior.
func (e *evaluator) foldPushes(all, current []tracked) pushTally {
	idx := make(map[string]int, len(e.in.Commits))
	for i, c := range e.in.Commits {
		idx[strings.ToLower(c.SHA)] = i
	}
	lo, hi := make([]int, len(e.pushes)), make([]int, len(e.pushes))
	last := -1
	for i, p := range e.pushes {
		h, ok := idx[strings.ToLower(p.Head)]
		if !ok {
			lo[i], hi[i] = 0, -1
			continue
		}
		lo[i], hi[i] = last+1, h
		if h > last {
			last = h
		}
	}
	inRange := func(i int, atts []tracked, want func(tracked) bool) bool {
		for _, a := range atts {
			if a.idx >= lo[i] && a.idx <= hi[i] && want(a) {
				return true
			}
		}
		return false
	}
	declared := func(i int) bool { return inRange(i, all, func(tracked) bool { return true }) }
	failed := func(i int) bool {
		return inRange(i, current, func(a tracked) bool { return a.Result == OutcomeFail })
	}
	return foldPushes(e.pushes, e.prior, e.p.NoProgressLimit, declared, failed, e.in.BaseFailing)
}

// pushAt returns CI's observation of commit sha, if a push had it as head.
func (e *evaluator) pushAt(sha string) (Push, bool) {
	for i := len(e.pushes) - 1; i >= 0; i-- {
		if SameSHA(e.pushes[i].Head, sha) {
			return e.pushes[i], true
		}
	}
	return Push{}, false
}

// failedBefore reports whether the test a <prefix>Test name designates
// failed at a push observed before the push of head.
func (e *evaluator) failedBefore(head, test string) bool {
	for _, p := range e.pushes {
		if SameSHA(p.Head, head) {
			return false
		}
		if pt, ok := p.Declared[test]; ok && pt.Status.Failed() {
			return true
		}
	}
	return false
}

func shortAll(shas []string) []string {
	out := make([]string, len(shas))
	for i, s := range shas {
		out[i] = ShortSHA(s)
	}
	return out
}
