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
