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
	// InfraWithheld: the tested run (the agent's own workflow, which may
	// cancel itself) was cancelled or skipped and left no results. Counted
	// as results missing from the first push on, never as a cancelled run
	// outside the agent's code: three in a row trip no_results.
	InfraWithheld = "withheld"
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
	RunAttempt int // the attempt of RunID; 0 or 1 the first
	Event      string
	Source     string // PushFromRun or PushFromLedger
	Slice      string // the slice the observing run decided for; "" = any
	Infra      string // why the tests did not run at Head; "" when they ran
	InfraKind  string // InfraNoResults, InfraWithheld, InfraBuild, InfraConclusion, InfraCancelled; "" = not counted
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
	// KnownBefore are tests failing here for the first time in the line
	// that ran at an earlier push (the entry's passed_before): their pass
	// after this failure is not progress. Folding the whole line knows it
	// from the earlier pushes too.
	KnownBefore []string
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
	// CommentID is the maintainer's comment that asked for it, which a run
	// without a ledger key reads back at every run (a carry keeps it).
	CommentID int64
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
	// Kept is CI's error line the push's ledger entry kept (display only:
	// no rule reads it, so a push read from the ledger judges as it did).
	Kept string
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
	Entries int
	// Folded is how many pushes the carry the read started from stands
	// for (Input.Carry), whose entries were not read; 0 for a whole read.
	Folded   int
	Signed   bool     // a ledger key was given: entries carry a MAC
	Verified bool     // every entry's MAC verified
	Source   string   // "check-runs", "file", or "none"
	Tampered []string // heads whose entry did not verify
	// SetAside are heads whose record did not verify, written before a
	// verified reset of this pull request: reported, no longer a trip.
	SetAside []string
}

// dedupePushes orders the observations by when each was made (stable: the
// ledger's order breaks ties) and makes one push of the observations that
// are one: the same head observed again with no other head between (a
// re-run of its run, the push and pull_request runs of one push, a
// matrix's legs, two workflows), or a re-run of the same run (its RunID)
// wherever it finished. A head brought back after another head was
// observed (a force push back to it, ping-pong between two commits) is a
// new push: the agent pushed again (DESIGN §5, "a push is a push"). A
// merged push keeps the position of its first observation (mergeObserved
// says what it holds).
func dedupePushes(ps []Push) []Push {
	in := make([]Push, 0, len(ps))
	for _, p := range ps {
		if p.Head != "" {
			in = append(in, p)
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		a, b := in[i], in[j]
		if a.ObservedAt.IsZero() || b.ObservedAt.IsZero() {
			return false
		}
		return a.ObservedAt.Before(b.ObservedAt)
	})
	var out []Push
	for _, p := range in {
		i := len(out) - 1
		if i < 0 || !SameSHA(out[i].Head, p.Head) {
			i = sameRun(out, p)
		}
		if i < 0 {
			out = append(out, p)
			continue
		}
		first := out[i].ObservedAt
		out[i] = mergeObserved(out[i], p)
		if !first.IsZero() {
			out[i].ObservedAt = first
		}
	}
	return out
}

// mergeObserved is one push of two observations of one head, b the later:
// a re-run of a's run (a higher attempt of its RunID) replaces it, as a
// re-run of a flaky test may; any other two (a matrix's legs, which share
// a run and attempt; two workflows; a push and a pull_request run) are one
// observation in which a test failing in either is failing, whichever
// finished last (a failure on one platform is never hidden by a pass on
// another). A run that could not test the head erases nothing CI saw
// there.
func mergeObserved(a, b Push) Push {
	switch {
	case b.Infra != "" && a.Infra == "":
		return a
	case a.Infra != "" || b.RunID != 0 && b.RunID == a.RunID && b.RunAttempt > a.RunAttempt:
		if b.Verdict == nil {
			b.Verdict = a.Verdict // what a run decided at this head stays: an OPEN one is never lost to a re-run
		}
		return b
	}
	out := b
	out.Tests, out.Declared = failingInEither(a.Tests, b.Tests), failingInEither(a.Declared, b.Declared)
	failed := 0
	for _, t := range out.Tests {
		if t.Status.Failed() {
			failed++
		}
	}
	out.Complete = a.Complete || b.Complete // a name neither lists, one of them says is absent
	out.KnownBefore = append(append([]string(nil), a.KnownBefore...), b.KnownBefore...)
	out.Counts = PushCounts{Total: max(a.Counts.Total, b.Counts.Total), Failed: max(failed, a.Counts.Failed, b.Counts.Failed)}
	out.Counts.Passed = max(0, out.Counts.Total-out.Counts.Failed)
	if out.Verdict == nil {
		out.Verdict = a.Verdict
	}
	if out.Reset == nil {
		out.Reset = a.Reset
	}
	return out
}

// failingInEither is each test of a and b with b's status, a's where only
// a's says it failed.
func failingInEither(a, b map[string]PushTest) map[string]PushTest {
	out := make(map[string]PushTest, len(a)+len(b))
	for name, t := range a {
		out[name] = t
	}
	for name, t := range b {
		if old, ok := out[name]; ok && old.Status.Failed() && !t.Status.Failed() {
			continue // failing in the other leg: failing at this push
		}
		out[name] = t
	}
	return out
}

// sameRun is the index of the push an earlier attempt of p's run observed
// at p's head, -1 when none.
func sameRun(out []Push, p Push) int {
	if p.RunID == 0 {
		return -1
	}
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].RunID == p.RunID && SameSHA(out[i].Head, p.Head) {
			return i
		}
	}
	return -1
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

// foldPushes folds the pushes (foldPushes in carry.go), each with whether
// its commits declare attempts and whether one of them counted as failed
// (placeAttempts says which push brought each attempt).
func (e *evaluator) foldPushes(all []tracked) pushTally {
	declared := make([]bool, len(e.pushes))
	failed := make([]bool, len(e.pushes))
	for _, a := range all {
		if a.push < 0 || a.carried {
			continue
		}
		declared[a.push] = true
		if a.counted && a.Result == OutcomeFail {
			failed[a.push] = true
		}
	}
	return foldPushes(e.foldStart(), e.pushes, e.prior, e.p.NoProgressLimit,
		func(i int) bool { return declared[i] }, func(i int) bool { return failed[i] }, e.in.BaseFailing)
}

// foldStart is the carry the pushes are folded after: the input's, with
// the fold of the run's policy where a carry keeps one (bmad's sessions,
// prp's iterations) and no other.
func (e *evaluator) foldStart() *Carry {
	c := NewCarry()
	if e.in.Carry != nil {
		c = e.in.Carry.Clone() // never the input's own: the caller keeps it
		c.BMAD, c.PRP, c.Liza = nil, nil, nil
	}
	switch e.p.Name {
	case PolicyBMAD:
		c.BMAD = newBMADFold(e.in.Threshold)
		if e.in.Carry != nil && e.in.Carry.BMAD != nil {
			c.BMAD = e.in.Carry.BMAD.clone()
		}
	case PolicyPRP:
		phase, _ := prpPhaseOf(e.in, nil)
		c.PRP = newPRPFold(phase)
		if e.in.Carry != nil && e.in.Carry.PRP != nil {
			c.PRP = e.in.Carry.PRP.clone()
		}
	case PolicyLiza:
		c.Liza = newLizaFold()
		if e.in.Carry != nil && e.in.Carry.Liza != nil {
			c.Liza = e.in.Carry.Liza.clone()
		}
	}
	return c
}

// carryHoldsPolicy says a carry can hold the run's policy's fold: the
// greenlight rules', bmad's when the input's carry (if any) folded its
// sessions with this run's threshold, prp's when it folded its iterations
// in this run's phase (the phase judges every iteration: a new one reads
// the whole line).
func (e *evaluator) carryHoldsPolicy() bool {
	switch e.p.Name {
	case DefaultPolicy().Name:
		return true
	case PolicyBMAD:
		c := e.in.Carry
		return c == nil || c.BMAD != nil && c.BMAD.Threshold == newBMADFold(e.in.Threshold).Threshold
	case PolicyPRP:
		c := e.in.Carry
		phase, _ := prpPhaseOf(e.in, nil)
		return c == nil || c.PRP != nil && c.PRP.Phase == phase
	case PolicyLiza:
		return e.in.Carry == nil || e.in.Carry.Liza != nil
	}
	return false
}

// commitIndex maps each commit's lower-case id to its index in Commits.
func (e *evaluator) commitIndex() map[string]int {
	idx := make(map[string]int, len(e.in.Commits))
	for i, c := range e.in.Commits {
		idx[strings.ToLower(c.SHA)] = i
	}
	return idx
}

// edge is the newest commit the carry's pushes brought, "" when none.
func (e *evaluator) edge() string {
	if e.in.Carry != nil {
		return e.in.Carry.Edge
	}
	return ""
}

// pushRanges are, for each push, the indexes of the first and last commit
// it brought (lo > hi: none): the commits after the newest commit any
// push before it brought (edge's, for the first) up to its own head. A
// head that is no longer on the branch (force-pushed away), or that is
// not after what the pushes before it brought, brings none. front[i] is
// the newest commit the pushes up to i brought (-1: none), start edge's.
func pushRanges(ps []Push, idx map[string]int, edge string) (lo, hi, front []int, start int) {
	lo, hi, front = make([]int, len(ps)), make([]int, len(ps)), make([]int, len(ps))
	start = -1
	if h, ok := idx[strings.ToLower(edge)]; ok && edge != "" {
		start = h
	}
	last := start
	for i, p := range ps {
		lo[i], hi[i] = 0, -1
		if h, ok := idx[strings.ToLower(p.Head)]; ok && h > last {
			lo[i], hi[i] = last+1, h
			last = h
		}
		front[i] = last
	}
	return lo, hi, front, start
}

// pushAt returns CI's observation of commit sha, if a push up to v's
// had it as head.
func (e *evaluator) pushAt(v view, sha string) (Push, bool) {
	for i := min(v.at, len(e.pushes)-1); i >= 0; i-- {
		if SameSHA(e.pushes[i].Head, sha) {
			return e.pushes[i], true
		}
	}
	return Push{}, false
}

// failedBefore reports whether the test a <prefix>Test name designates
// failed at a push observed before the push of head, among the pushes of
// the window of the run judging at v (the newest Window up to its push):
// what a run that starts from a carry has.
func (e *evaluator) failedBefore(v view, head, test string) bool {
	for k := max(0, v.at-Window+1); k <= v.at && k < len(e.pushes); k++ {
		p := e.pushes[k]
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
