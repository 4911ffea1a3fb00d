package report

import "github.com/greenlight-ci/breaker/internal/breaker"

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
