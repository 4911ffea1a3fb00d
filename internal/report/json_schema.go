package report

// Schema names the version of the JSON report; it changes only when a field
// changes meaning or disappears.
const Schema = "greenlight-breaker/v1"

// Report is the JSON report, field by field (README.md). Absent
// optional values are null; lists are [] when empty, never null.
type Report struct {
	Schema              string             `json:"schema"`
	Version             string             `json:"version"` // the breaker's version`
	Policy              string             `json:"policy"`
	State               string             `json:"state"`
	Tripped             bool               `json:"tripped"`
	TripReason          *string            `json:"trip_reason"`
	TrippedTest         *string            `json:"tripped_test"`
	Slice               string             `json:"slice"`
	SliceSource         string             `json:"slice_source"`
	Head                string             `json:"head"`
	Base                ReportBase         `json:"base"`
	HeadInfra           *string            `json:"head_infra"`
	Limits              ReportLimits       `json:"limits"`
	TotalFailedAttempts int                `json:"total_failed_attempts"`
	Checkpoint          ReportCheckpoint   `json:"checkpoint"`
	Reset               *string            `json:"reset"`
	Scope               ReportScope        `json:"scope"`
	ScopeViolations     []ReportFinding    `json:"scope_violations"`
	Misreports          []ReportMisreport  `json:"misreports"`
	Tests               []ReportTest       `json:"tests"`
	PriorAttempts       []ReportAttempt    `json:"prior_attempts"`
	Diagnostics         []ReportDiagnostic `json:"diagnostics"`
	PolicyState         string             `json:"policy_state"`
	// PRP, BMAD and Liza are the policy's own state under the key of its
	// name, null unless that policy ran: the keys of schema v1, kept
	// (fields are only ever added). PolicyDetail is the same state under
	// one key whatever the policy, the one a new policy needs.
	PRP          any          `json:"prp"`
	BMAD         any          `json:"bmad"`
	Liza         any          `json:"liza"`
	PolicyDetail any          `json:"policy_detail"` // ReportPRP, ReportBMAD, ReportLiza; null under greenlight
	Pushes       []ReportPush `json:"pushes"`
	// EarlierPushes counts the observed pushes before Pushes (which holds
	// the newest breaker.Window).
	EarlierPushes ReportEarlier `json:"earlier_pushes"`
	Ledger        ReportLedger  `json:"ledger"`
	Notes         []string      `json:"notes"`
}

// ReportEarlier counts the observed pushes before the report's pushes,
// and the declared attempts they brought.
type ReportEarlier struct {
	Observed int `json:"observed"` // the ones before the reset included
	Failed   int `json:"failed"`   // of them, with results, after the reset, failed
	// Attempts are the declared attempts after the reset those pushes
	// brought (judged once, counted, not listed); FailedAttempts of them
	// failed.
	Attempts       int `json:"attempts"`
	FailedAttempts int `json:"failed_attempts"`
}

// ReportBase is the base the branch was read from.
type ReportBase struct {
	Ref    string  `json:"ref"`
	SHA    *string `json:"sha"`
	Source string  `json:"source"` // "flag", "local", "event" or "api"
}

// ReportPush is one pushed head CI observed (this run, or the ledger).
type ReportPush struct {
	Head       string   `json:"head"`
	ObservedAt *string  `json:"observed_at"` // RFC 3339, UTC
	Source     string   `json:"source"`      // "run" or "ledger"
	Infra      *string  `json:"infra"`
	Failed     bool     `json:"failed"`
	Progress   bool     `json:"progress"`
	Counted    bool     `json:"counted"`  // one toward the ceiling by evidence alone
	Prior      bool     `json:"prior"`    // before the reset: not counted
	Declared   bool     `json:"declared"` // its commits declare attempts
	Failing    []string `json:"failing"`
	Vanished   []string `json:"vanished"`
}

// ReportLedger says where the earlier observations came from.
type ReportLedger struct {
	Entries  int      `json:"entries"`
	Folded   int      `json:"folded"` // pushes the carry the read started from stands for
	Signed   bool     `json:"signed"`
	Verified bool     `json:"verified"`
	Source   string   `json:"source"`
	Tampered []string `json:"tampered"`
}

// ReportLimits are the thresholds the policy applied.
type ReportLimits struct {
	PerTest    int `json:"per_test"`
	Slice      int `json:"slice"`
	NoProgress int `json:"no_progress"`
}

// ReportCheckpoint is the slice's rollback point.
type ReportCheckpoint struct {
	Tag         string  `json:"tag"`
	SHA         string  `json:"sha"`
	Exists      bool    `json:"exists"`
	ExistingSHA *string `json:"existing_sha"`
}

// ReportScope says whether the scope lock applied and why.
type ReportScope struct {
	Enabled bool   `json:"enabled"`
	Source  string `json:"source"`
	Note    string `json:"note"`
}

// ReportFinding is one out-of-scope file touched by an attempt.
type ReportFinding struct {
	File          string `json:"file"`
	SHA           string `json:"sha"`
	Test          string `json:"test"`
	Justification string `json:"justification"`
	Verdict       string `json:"verdict"`
}

// ReportMisreport is an attempt whose claimed result CI contradicted.
type ReportMisreport struct {
	SHA      string `json:"sha"`
	Test     string `json:"test"`
	Claimed  string `json:"claimed"`
	Observed string `json:"observed"`
}

// ReportTest is one test's count and attempts.
type ReportTest struct {
	Name           string          `json:"name"`
	FailedAttempts int             `json:"failed_attempts"`
	Status         string          `json:"status"`
	Attempts       []ReportAttempt `json:"attempts"`
}

// ReportAttempt is one (commit, test) attempt.
type ReportAttempt struct {
	Number       int                `json:"number"`
	SHA          string             `json:"sha"`
	Test         string             `json:"test"`
	Strategy     string             `json:"strategy"`
	Files        []string           `json:"files"`
	Changes      []ReportFileChange `json:"changes"`
	Result       string             `json:"result"`
	ResultSource string             `json:"result_source"`
	Error        string             `json:"error"`
	AgentError   string             `json:"agent_error"`
	Claimed      *string            `json:"claimed"`
	Misreported  bool               `json:"misreported"`
	Hypothesis   string             `json:"hypothesis"`
	Question     string             `json:"question"`
}

// ReportFileChange is one changed path of an attempt.
type ReportFileChange struct {
	Path   string  `json:"path"`
	Change string  `json:"change"`
	From   *string `json:"from"`
}

// ReportDiagnostic is the seed 001 §4 diagnostic for one test: the eight
// required fields plus the test's name.
type ReportDiagnostic struct {
	Test                    string            `json:"test"`
	TestExpectation         string            `json:"test_expectation"`
	ActualError             string            `json:"actual_error"`
	AttemptLog              []ReportLogEntry  `json:"attempt_log"`
	CumulativeFilesModified []ReportFileTouch `json:"cumulative_files_modified"`
	ScopeViolations         []ReportFinding   `json:"scope_violations"`
	BestHypothesis          string            `json:"best_hypothesis"`
	SpecificQuestion        string            `json:"specific_question"`
	RecoveryOptions         []ReportRecovery  `json:"recovery_options"`
}

// ReportLogEntry is one line of a diagnostic's attempt log.
type ReportLogEntry struct {
	Attempt  int      `json:"attempt"`
	SHA      string   `json:"sha"`
	Strategy string   `json:"strategy"`
	Files    []string `json:"files"`
	Result   string   `json:"result"`
}

// ReportFileTouch is one row of the cumulative files table.
type ReportFileTouch struct {
	File     string `json:"file"`
	Change   string `json:"change"`
	Attempts []int  `json:"attempts"`
}

// ReportRecovery is one recovery option; Command is null when it has none.
type ReportRecovery struct {
	Option  string  `json:"option"`
	Risk    string  `json:"risk"`
	Command *string `json:"command"`
}
