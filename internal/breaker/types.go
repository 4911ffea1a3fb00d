package breaker

import "time"

// Trailer is one git trailer of a commit message, as git reports it with
// `git log --format=%(trailers:only,unfold)`: the key as written and the
// unfolded value.
type Trailer struct {
	Key   string
	Value string
}

// ChangeType says how an attempt changed a file relative to its first parent.
type ChangeType string

// The change types an attempt can make to a path.
const (
	ChangeAdded    ChangeType = "added"
	ChangeModified ChangeType = "modified"
	ChangeDeleted  ChangeType = "deleted"
	ChangeRenamed  ChangeType = "renamed"
)

// FileChange is one changed path of a commit against its first parent.
// For a rename, Path is the new path and From the old one.
type FileChange struct {
	Path   string
	Change ChangeType
	From   string
}

// Commit is one commit of the agent branch (base..head), as the git adapter
// translates it. Files is filled only for commits that carry attempt trailers
// (the adapter is told which through Policy.NeedsFiles).
type Commit struct {
	SHA         string
	Parent      string // first parent; "" for a root commit
	Subject     string
	Message     string
	AuthorName  string
	AuthorEmail string
	Time        time.Time
	Trailers    []Trailer
	Files       []FileChange
	// FilesCut says Files stops at the adapter's bound on paths per commit:
	// the commit changed more paths than were read. The scope lock counts
	// the unread rest as out of scope.
	FilesCut bool
}

// TestStatus is a test's status in one run's results.
type TestStatus string

// The statuses a result file can give a test.
const (
	StatusPass  TestStatus = "pass"
	StatusFail  TestStatus = "fail"
	StatusError TestStatus = "error"
	StatusSkip  TestStatus = "skip"
)

// Failed reports whether s is a failing status (fail or error).
func (s TestStatus) Failed() bool { return s == StatusFail || s == StatusError }

// ObservedTest is CI's observation of one test in this run.
type ObservedTest struct {
	Name    string // the name the results use
	Status  TestStatus
	Message string // the failure message, exact
	Output  string // the failure output, exact (capped by the parser)
	File    string
	Line    int
}

// Observation is what CI observed in this run, for the commit Head.
// Tests is keyed by the test name as written in the Greenlight-Test trailer;
// the CLI matches trailer names to result names before calling Evaluate.
// A non-empty Infra means the tests did not run (build failure, no result
// files, zero tests, runner crash): nothing observed in this run is counted.
type Observation struct {
	Head string
	// Failing are every test failing or erroring in this run, by full
	// name, with CI's exact message and output: what the evidence
	// diagnostic quotes for an agent that names no test.
	Failing   map[string]ObservedTest
	Infra     string
	InfraKind string // InfraNoResults, InfraBuild or InfraCancelled
	Tests     map[string]ObservedTest
	Notes     []string // e.g. ambiguous name matches, reported not guessed
}

// Refs are the breaker's tags as the remote (or the local repository) has
// them, keyed by slice id: greenlight/checkpoint/{slice} → commit SHA.
// They are conveniences, shown and compared, never evidence: a reset is a
// ledger record (Push.Reset), never a tag.
type Refs struct {
	Checkpoints map[string]string
}

// Policy is the set of rules Evaluate applies. DefaultPolicy is Greenlight's.
type Policy struct {
	Name          string // "greenlight"
	PerTestLimit  int    // trips when one test reaches this many failed attempts
	SliceLimit    int    // trips when the slice reaches this many failed attempts
	TrailerPrefix string // "Greenlight-"
	TagPrefix     string // "greenlight/"
	// NoProgressLimit trips the slice after this many failed pushes in a
	// row (the evidence floor, DESIGN §2).
	NoProgressLimit int
}

// DefaultPolicy returns the greenlight policy of seeds 000 and 001: 3 failed
// attempts on one test or 7 in a slice.
func DefaultPolicy() Policy {
	return Policy{
		Name:            "greenlight",
		PerTestLimit:    3,
		SliceLimit:      7,
		TrailerPrefix:   DefaultTrailerPrefix,
		TagPrefix:       DefaultTagPrefix,
		NoProgressLimit: 3,
	}
}

// Input is everything Evaluate needs. Commits are base..head (every commit
// reachable from Head and not from the base, merges included), oldest
// first, no commit before its parents.
type Input struct {
	Policy      Policy
	Commits     []Commit
	Observation Observation
	Refs        Refs
	Slice       string      // requested slice (--slice / input); "" = the newest attempt's
	Branch      string      // branch name, for the S-<n> fallback
	Scope       ScopeSource // may be nil: scope lock off
	Force       bool        // a human pulled the cord: build the diagnostic whatever the counts
	// Pushes are CI's observations of the pushed heads (the ledger, then
	// this run's), oldest first. Without them only this run's Observation
	// and the trailers are evidence.
	Pushes []Push
	// Carry, when set, is the fold of the slice's pushes before Pushes (a
	// ledger entry's: Decision.Carry), and Pushes are the ones after it: the
	// same decision as every push from the start, for the greenlight rules
	// of a line whose commits declare no attempts (Carryable).
	Carry  *Carry
	Ledger LedgerInfo // where Pushes came from, and whether they verified
	Base   Base       // the base the branch was read from

	Phase     string    // prp: the phase when no commit names one (--phase)
	Threshold int       // bmad: consecutive failed sessions that trigger (--threshold); 0 = 5
	Anomalies []Anomaly // liza: the anomalies the agents logged (.liza/state.yaml)
	// BaseFailing are the tests CI saw failing on the base commit (the
	// breaker's own observation of the base branch): the base's failures,
	// shown and never counted as a push's. nil when the base was not
	// observed; BaseObserved says it was (with nothing failing, empty).
	BaseFailing  map[string]bool
	BaseObserved bool
	// Elsewhere are the other lines of work of the same agent that are
	// OPEN (elsewhere.go): this line starts OPEN while it fails a test
	// that tripped there or carries the tripped tree, until a verified
	// reset of this line.
	Elsewhere []OpenElsewhere
}

// The sources of a Base.
const (
	BaseFromFlag  = "flag"  // --base
	BaseFromLocal = "local" // the repository's default branch (origin/HEAD, main, ...)
	BaseFromEvent = "event" // the event payload (pull_request.base.sha)
	BaseFromAPI   = "api"   // GitHub's API (the pull request, the default branch)
)

// Base is the base the branch was read from: what it is called, the
// commit, and where that came from.
type Base struct {
	Ref    string
	SHA    string
	Source string
}
