package breaker

import "slices"

// State is the breaker's state for a slice.
type State string

// The two states a slice can be in.
const (
	StateClosed   State = "CLOSED"
	StateOpen     State = "OPEN"
	StateHalfOpen State = "HALF_OPEN" // the prp policy's warning state: not tripped

)

// TripReason says why the breaker is OPEN, or that a human forced the diagnostic.
type TripReason string

// The trip reasons. TripNone marshals as JSON null in the report.
const (
	TripNone         TripReason = ""
	TripPerTest      TripReason = "per_test"
	TripSliceCeiling TripReason = "slice_ceiling"
	// TripNoProgress: failed pushes in a row, judged by CI's evidence alone.
	TripNoProgress TripReason = "no_progress"
	// TripNoResults: pushes in a row whose results were missing, after
	// pushes that had results.
	TripNoResults TripReason = "no_results"
	// TripLedgerTampered: a ledger entry's MAC did not verify.
	TripLedgerTampered TripReason = "ledger_tampered"
	// The other policies' reasons.
	TripSameError           TripReason = "same_error"           // prp: the same error at the phase's threshold
	TripConsecutiveFailures TripReason = "consecutive_failures" // bmad: failed sessions in a row
	TripPattern             TripReason = "anomaly_pattern"      // liza: an anomaly pattern matched
	TripManual              TripReason = "manual"
)

// Outcome is the result of one attempt, after the priority rules of DESIGN §1.
type Outcome string

// The outcomes of an attempt. Only OutcomeFail is counted.
const (
	OutcomePass    Outcome = "pass"
	OutcomeFail    Outcome = "fail"
	OutcomeInfra   Outcome = "infra"
	OutcomeUnknown Outcome = "unknown"
)

// OutcomeSource says which rule decided an attempt's outcome.
type OutcomeSource string

// The sources of an outcome, in DESIGN §1 priority order.
const (
	SourceCI           OutcomeSource = "ci"            // CI's observation of the head
	SourceTrailer      OutcomeSource = "trailer"       // Greenlight-Result
	SourceLaterAttempt OutcomeSource = "later_attempt" // a later attempt on the same test exists
	SourceResults      OutcomeSource = "results"       // the test's status in this run
	SourceScope        OutcomeSource = "scope"         // an unjustified out-of-scope file
	SourceNone         OutcomeSource = "none"
)

// Attempt is one (commit, test) attempt of the slice.
type Attempt struct {
	Number      int // 1-based, per slice, in commit order (counted from the reset point)
	SHA         string
	Test        string
	Strategy    string // Greenlight-Strategy, else the subject
	Files       []FileChange
	Result      Outcome
	Source      OutcomeSource
	Error       string // CI's exact output when observed, else the agent's Greenlight-Error
	AgentError  string // Greenlight-Error, kept as the agent's account
	Claimed     string // Greenlight-Result as written, "" if absent
	Misreported bool   // claimed pass, CI observed a failure
	Hypothesis  string
	Question    string
}

// TestSummary is the per-test view of the slice.
type TestSummary struct {
	Name           string
	FailedAttempts int    // failed attempts since the test last passed (after the reset)
	Status         string // this run: pass|fail|error|skip|unknown|infra
	Attempts       []Attempt
}

// Checkpoint is the rollback point of the slice: the parent of its first attempt.
type Checkpoint struct {
	Tag    string // greenlight/checkpoint/{slice}
	SHA    string
	Exists bool // the tag is already in the repository (at ExistingSHA)
	// ExistingSHA is where an existing tag points; it may differ from SHA.
	ExistingSHA string
}

// ScopeFinding is one out-of-scope file touched by an attempt.
type ScopeFinding struct {
	File          string
	SHA           string
	Test          string
	Justification string
	Verdict       string // "violation" or "justified"
}

// Misreport is an attempt whose claimed pass CI contradicted.
type Misreport struct {
	SHA      string
	Test     string
	Claimed  string
	Observed TestStatus
}

// LogEntry is one line of a diagnostic's attempt log.
type LogEntry struct {
	Attempt  int
	SHA      string
	Strategy string
	Files    []string
	Result   string
}

// FileTouch is one row of the cumulative files table.
type FileTouch struct {
	Path     string
	Change   ChangeType // the first change type seen ("created" renders for added)
	Attempts []int
}

// RecoveryOption is one recovery option with its risk and, when it has one,
// the exact command to run.
type RecoveryOption struct {
	Option  string
	Risk    string
	Command string
}

// Diagnostic is the structured diagnostic of seed 001 §4 for one test.
type Diagnostic struct {
	Test             string
	TestExpectation  string
	ActualError      string
	AttemptLog       []LogEntry
	CumulativeFiles  []FileTouch
	ScopeViolations  []ScopeFinding
	BestHypothesis   string
	SpecificQuestion string
	RecoveryOptions  []RecoveryOption
}

// Decision is the verdict for one slice.
type Decision struct {
	Policy string
	// TrailerPrefix is the policy's trailer key prefix (e.g. "Greenlight-"),
	// so every sentence a person reads names the keys they configured.
	TrailerPrefix string
	State         State
	Tripped       bool
	TripReason    TripReason
	TrippedTest   string // for per_test
	// LeadError is CI's output for LeadTest(), "" when no run kept one:
	// what every comment shows in its first lines.
	LeadError string
	// TripCount is the tripped test's failed attempts when it tripped: a
	// later pass zeroes its current count, not the reason the slice is OPEN.
	TripCount   int
	Slice       string
	SliceSource string // "flag", "trailer", "branch", "open"
	Head        string
	HeadInfra   string // why the head's tests did not run, "" when they did
	// HeadPasses says the tests ran at the head and none failed: while
	// OPEN, the breaker waits for a reset, and advice to roll back or skip
	// would discard the fix.
	HeadPasses bool
	// FailedInARow is how many of the newest observed pushes failed in a
	// row (the no_progress count, against Limits.NoProgress).
	FailedInARow int
	// HeadInfraKind is what kind of reason HeadInfra is (InfraNoResults,
	// InfraBuild, InfraCancelled).
	HeadInfraKind string
	// BaseUnobserved says the breaker never saw the base commit while
	// pushes failed: a test failing on the base too was counted as the
	// branch's (the Action records the base on pushes to the default
	// branch).
	BaseUnobserved bool
	Limits         Limits
	TotalFailed    int
	Checkpoint     Checkpoint
	ResetSHA       string // the reset point in effect, "" if none
	Tests          []TestSummary
	Attempts       []Attempt // the slice's attempts since the reset, in order
	Prior          []Attempt // attempts before the reset: what was already tried
	Scope          ScopeInfo
	Violations     []ScopeFinding // every out-of-scope file (violation or justified)
	Misreports     []Misreport
	Diagnostics    []Diagnostic
	// PolicyState is the state in the policy's own words: CLOSED, HALF_OPEN
	// or OPEN (greenlight, prp), HEALTHY, TRIGGERED or COMPLETE (bmad), OK
	// or TRIGGERED (liza).
	PolicyState string
	// Detail is the chosen policy's own state (*PRPState, *BMADState,
	// *LizaState); nil under greenlight.
	Detail PolicyDetail
	// Pushes are the slice's newest observed pushes (at most Window),
	// oldest first; Earlier counts the ones before them.
	Pushes  []PushSummary
	Earlier Earlier
	// Carry is the fold of every observed push of the slice but the newest
	// Window-1: what this run's ledger entry keeps, so the next run needs
	// the newest entries, not every one. nil when a carry cannot hold the
	// decision's rules (another policy, a declared attempt, a reset, a
	// record that did not verify): the next run reads the whole line.
	Carry  *Carry `json:"-"`
	Ledger LedgerInfo
	Base   Base
	Notes  []string
}

// Earlier counts the observed pushes before Decision.Pushes, and the
// attempts they brought.
type Earlier struct {
	Pushes int // observed, the ones before the reset included
	Failed int // of them, with results, after the reset, failed
	// Attempts are the declared attempts after the reset those pushes
	// brought: judged when their push left the window, counted, not
	// listed; FailedAttempts of them failed.
	Attempts, FailedAttempts int
}

// Limits are the thresholds the policy applied.
type Limits struct {
	PerTest    int
	Slice      int
	NoProgress int
}

// TripsLeft is how many more failures the slice takes before its nearest
// trip: the fewest of the per-test, slice and failed-push limits minus
// their counts, over the counts that have started; -1 when nothing has
// failed yet. 0 once tripped.
func (d Decision) TripsLeft() int {
	if d.Tripped {
		return 0
	}
	left := -1
	take := func(n int) {
		if left < 0 || n < left {
			left = max(n, 0)
		}
	}
	if d.FailedInARow > 0 {
		take(d.Limits.NoProgress - d.FailedInARow)
	}
	worst := 0
	for _, t := range d.Tests {
		worst = max(worst, t.FailedAttempts)
	}
	if worst > 0 {
		take(d.Limits.PerTest - worst)
	}
	if d.TotalFailed > 0 {
		take(d.Limits.Slice - d.TotalFailed)
	}
	return left
}

// LeadTest is the test a reader should see first: the one that tripped,
// else the first diagnostic's, else of the tests failing at the newest
// push that had failing tests the one with the most failed attempts (then
// by name); "" when no push had a failing test.
func (d Decision) LeadTest() string {
	if d.TrippedTest != "" {
		return d.TrippedTest
	}
	for _, g := range d.Diagnostics {
		if g.Test != "" {
			return g.Test
		}
	}
	var failing []string
	for i := len(d.Pushes) - 1; i >= 0 && len(failing) == 0; i-- {
		failing = d.Pushes[i].Failing // the newest push with failing tests
	}
	attempts := map[string]int{}
	for _, t := range d.Tests {
		attempts[t.Name] = t.FailedAttempts
	}
	lead := ""
	for _, n := range failing {
		if lead == "" || attempts[n] > attempts[lead] || (attempts[n] == attempts[lead] && n < lead) {
			lead = n
		}
	}
	return lead
}

// FailedAt counts the observed pushes with results and those at which test
// failed: since the reset, or, with prior, the pushes before it too.
func (d Decision) FailedAt(test string, prior bool) (failed, pushes int) {
	for _, s := range d.Pushes {
		if (s.Prior && !prior) || s.Infra != "" {
			continue
		}
		pushes++
		if slices.Contains(s.Failing, test) {
			failed++
		}
	}
	return failed, pushes
}
