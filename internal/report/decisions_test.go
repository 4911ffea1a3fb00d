package report

import (
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Hand-built decisions, shaped as the engine fills them, one per state the
// renderers must handle. sha(n) gives a stable 40-hex commit id.

func sha(n int) string {
	return strings.Repeat(string("0123456789abcdef"[n%16]), 6) + "1f2e3d4c5b6a7980a1b2c3d4e5f6a7b8c9"
}

var limits = breaker.Limits{PerTest: 3, Slice: 7}

var scopeOn = breaker.ScopeInfo{Enabled: true, Source: "graph", Note: "packages and deliverables of S-3"}

func checkpoint() breaker.Checkpoint {
	return breaker.Checkpoint{Tag: "greenlight/checkpoint/S-3", SHA: sha(0)}
}

func recovery() []breaker.RecoveryOption {
	return []breaker.RecoveryOption{
		{Option: "Roll back to the checkpoint", Risk: "low: work since the checkpoint is kept in history",
			Command: "git checkout greenlight/checkpoint/S-3"},
		{Option: "Give guidance and reset the counters", Risk: "low", Command: "/breaker reset S-3 <guidance>"},
		{Option: "Re-scope this slice (the contract may need adjusting)", Risk: "medium: changes the plan"},
		{Option: "Skip this test and continue with the others", Risk: "high: the behaviour stays unverified"},
	}
}

const dupOutput = `--- FAIL: TestSignup_DuplicateEmail (0.01s)
    signup_test.go:42: status = 500, want 409
    signup_test.go:43: body = {"error":"internal"}, want {"error":"email_already_exists"}
FAIL
exit status 1`

func attempt(n int, test, strategy, result, errText string, files ...breaker.FileChange) breaker.Attempt {
	return breaker.Attempt{
		Number: n, SHA: sha(n), Test: test, Strategy: strategy, Files: files,
		Result: breaker.Outcome(result), Source: breaker.SourceLaterAttempt, Error: errText,
	}
}

func mod(p string) breaker.FileChange {
	return breaker.FileChange{Path: p, Change: breaker.ChangeModified}
}
func add(p string) breaker.FileChange {
	return breaker.FileChange{Path: p, Change: breaker.ChangeAdded}
}

// perTestDecision: TestSignup_DuplicateEmail failed three times; attempt 3
// touched a shared file with a justification and another without one.
func perTestDecision() breaker.Decision {
	const test = "TestSignup_DuplicateEmail"
	as := []breaker.Attempt{
		attempt(1, test, "Check for a duplicate email before insert", "fail",
			"status = 500, want 409", mod("internal/users/service.go")),
		attempt(2, test, "Move the check into the repository layer", "fail",
			"body = {\"error\":\"duplicate_email\"}, want {\"error\":\"email_already_exists\"}",
			mod("internal/users/repository.go"), add("internal/users/errors.go")),
		attempt(3, test, "Unify error keys through an error factory", "fail", dupOutput,
			mod("internal/users/errors.go"), mod("internal/shared/errors.go"), mod("go.mod")),
	}
	as[2].Source = breaker.SourceCI
	as[2].AgentError = "still 500"
	as[2].Hypothesis = "The contract and the fixture disagree on the error key."
	as[2].Question = "Is the canonical key email_already_exists or duplicate_email?"
	findings := []breaker.ScopeFinding{
		{File: "internal/shared/errors.go", SHA: sha(3), Test: test,
			Justification: "the shared error factory builds the 409 body the test asserts", Verdict: "justified"},
		{File: "go.mod", SHA: sha(3), Test: test, Verdict: "violation"},
	}
	return breaker.Decision{
		Policy: "greenlight", State: breaker.StateOpen, Tripped: true, TripReason: breaker.TripPerTest,
		TrippedTest: test, Slice: "S-3", SliceSource: "trailer", Head: sha(3), Limits: limits, TotalFailed: 4,
		Checkpoint: checkpoint(),
		Tests: []breaker.TestSummary{
			{Name: test, FailedAttempts: 3, Status: "fail", Attempts: as},
			{Name: "TestSignup_Valid", FailedAttempts: 1, Status: "pass",
				Attempts: []breaker.Attempt{attempt(4, "TestSignup_Valid", "Trim the email", "fail", "got 400")}},
		},
		Attempts: as, Scope: scopeOn, Violations: findings,
		Diagnostics: []breaker.Diagnostic{perTestDiagnostic(as, findings)},
	}
}

// perTestDiagnostic is the diagnostic of perTestDecision's tripped test.
func perTestDiagnostic(as []breaker.Attempt, findings []breaker.ScopeFinding) breaker.Diagnostic {
	const test = "TestSignup_DuplicateEmail"
	return breaker.Diagnostic{
		Test:            test,
		TestExpectation: "POST /signup with an email already registered returns 409\nwith the body {\"error\":\"email_already_exists\"}.",
		ActualError:     dupOutput,
		AttemptLog: []breaker.LogEntry{
			{Attempt: 1, SHA: sha(1), Strategy: as[0].Strategy, Files: []string{"internal/users/service.go"}, Result: "fail: status = 500, want 409"},
			{Attempt: 2, SHA: sha(2), Strategy: as[1].Strategy, Files: []string{"internal/users/repository.go", "internal/users/errors.go"}, Result: "fail: body has duplicate_email"},
			{Attempt: 3, SHA: sha(3), Strategy: as[2].Strategy, Files: []string{"internal/users/errors.go", "internal/shared/errors.go", "go.mod"}, Result: "fail: status = 500, want 409"},
		},
		CumulativeFiles: []breaker.FileTouch{
			{Path: "internal/users/service.go", Change: breaker.ChangeModified, Attempts: []int{1}},
			{Path: "internal/users/repository.go", Change: breaker.ChangeModified, Attempts: []int{2}},
			{Path: "internal/users/errors.go", Change: breaker.ChangeAdded, Attempts: []int{2, 3}},
			{Path: "internal/shared/errors.go", Change: breaker.ChangeModified, Attempts: []int{3}},
			{Path: "go.mod", Change: breaker.ChangeModified, Attempts: []int{3}},
		},
		ScopeViolations:  findings,
		BestHypothesis:   as[2].Hypothesis,
		SpecificQuestion: as[2].Question,
		RecoveryOptions:  recovery(),
	}
}

// sliceCeilingDecision: failures spread 2+2+2+1 over four tests reach 7.
func sliceCeilingDecision() breaker.Decision {
	names := []string{"TestCart_Add", "TestCart_Remove", "TestCart_Total", "TestCart_Empty"}
	counts := []int{2, 2, 2, 1}
	status := []string{"fail", "pass", "fail", "pass"}
	var tests []breaker.TestSummary
	var all []breaker.Attempt
	n := 0
	for i, name := range names {
		var as []breaker.Attempt
		for range counts[i] {
			n++
			as = append(as, attempt(n, name, "Adjust rounding in "+name, "fail", "", mod("cart/cart.go")))
		}
		all = append(all, as...)
		tests = append(tests, breaker.TestSummary{Name: name, FailedAttempts: counts[i], Status: status[i], Attempts: as})
	}
	diag := func(name, out string, nums ...int) breaker.Diagnostic {
		var log []breaker.LogEntry
		for _, k := range nums {
			log = append(log, breaker.LogEntry{Attempt: k, SHA: sha(k), Strategy: "Adjust rounding in " + name,
				Files: []string{"cart/cart.go"}, Result: "fail"})
		}
		return breaker.Diagnostic{
			Test: name, TestExpectation: name + " expects totals in cents.", ActualError: out, AttemptLog: log,
			CumulativeFiles:  []breaker.FileTouch{{Path: "cart/cart.go", Change: breaker.ChangeModified, Attempts: nums}},
			BestHypothesis:   "The error did not change across attempts: the change to cart/cart.go does not reach the failing path.",
			SpecificQuestion: "Are totals meant to be rounded per line or per cart?",
			RecoveryOptions:  recovery()[:2],
		}
	}
	return breaker.Decision{
		Policy: "greenlight", State: breaker.StateOpen, Tripped: true, TripReason: breaker.TripSliceCeiling,
		Slice: "S-3", SliceSource: "flag", Head: sha(7), Limits: limits, TotalFailed: 7,
		Checkpoint: breaker.Checkpoint{Tag: "greenlight/checkpoint/S-3", SHA: sha(0), Exists: true, ExistingSHA: sha(0)},
		Tests:      tests, Attempts: all, Scope: scopeOn,
		Diagnostics: []breaker.Diagnostic{
			diag("TestCart_Add", "cart_test.go:12: total = 1099, want 1100", 1, 2),
			diag("TestCart_Total", "cart_test.go:30: total = 2.9999, want 3", 5, 6),
		},
	}
}

// manualDecision: a human pulled the cord on a CLOSED slice.
func manualDecision() breaker.Decision {
	d := perTestDecision()
	d.State, d.Tripped, d.TripReason, d.TrippedTest = breaker.StateClosed, false, breaker.TripManual, ""
	d.TotalFailed = 2
	d.Tests[0].FailedAttempts = 1
	d.Diagnostics[0].AttemptLog = d.Diagnostics[0].AttemptLog[2:]
	d.Diagnostics[0].CumulativeFiles = d.Diagnostics[0].CumulativeFiles[2:]
	return d
}

// closedDecision: two failed attempts, nothing tripped.
func closedDecision() breaker.Decision {
	d := perTestDecision()
	d.State, d.Tripped, d.TripReason, d.TrippedTest = breaker.StateClosed, false, breaker.TripNone, ""
	d.TotalFailed = 2
	d.Tests[0].FailedAttempts = 1
	d.Diagnostics = nil
	d.Violations = d.Violations[1:]
	d.Notes = []string{"TestSignup_Valid matched signup/TestSignup_Valid in the results by suffix"}
	return d
}

// scopeOffDecision: a per-test trip without a slice graph.
func scopeOffDecision() breaker.Decision {
	d := perTestDecision()
	d.Scope = breaker.ScopeInfo{Source: "none", Note: "no GRAPH.json at .greenlight/GRAPH.json"}
	d.Violations = nil
	d.Diagnostics[0].ScopeViolations = nil
	return d
}

// misreportDecision: attempt 3 claimed a pass that CI contradicted.
func misreportDecision() breaker.Decision {
	d := perTestDecision()
	d.Attempts[2].Claimed, d.Attempts[2].Misreported = "pass", true
	d.Misreports = []breaker.Misreport{{SHA: sha(3), Test: d.TrippedTest, Claimed: "pass", Observed: breaker.StatusFail}}
	return d
}

// infraHeadDecision: the head's tests did not run.
func infraHeadDecision() breaker.Decision {
	d := closedDecision()
	d.HeadInfra = "no result file matched test-results/*.xml"
	d.Tests[0].Status, d.Tests[1].Status = "infra", "infra"
	d.Notes = append(d.Notes, "the head's build failed before any test ran")
	return d
}

// resetDecision: a human reset the slice; three attempts were tried before.
func resetDecision() breaker.Decision {
	d := perTestDecision()
	prior := d.Attempts
	const test = "TestSignup_DuplicateEmail"
	again := attempt(5, test, "Use the contract's key email_already_exists", "fail", "want 409, got 400",
		mod("internal/users/errors.go"))
	d.State, d.Tripped, d.TripReason, d.TrippedTest = breaker.StateClosed, false, breaker.TripNone, ""
	d.ResetSHA, d.Head, d.TotalFailed = sha(4), sha(5), 1
	d.Checkpoint.Exists, d.Checkpoint.ExistingSHA = true, sha(9)
	d.Tests = []breaker.TestSummary{{Name: test, FailedAttempts: 1, Status: "fail", Attempts: []breaker.Attempt{again}}}
	d.Attempts, d.Prior, d.Violations, d.Diagnostics = []breaker.Attempt{again}, prior, nil, nil
	return d
}
