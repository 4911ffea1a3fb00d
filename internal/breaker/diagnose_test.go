package breaker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// spiral is three failing attempts on TestSignup, each with the agent's
// error text and different files; the head is observed failing by CI.
func spiral(errs [3]string, more ...string) Input {
	c := chain(
		spec("Greenlight-Slice: S-3", "Greenlight-Test: TestSignup", "Greenlight-Strategy: check before insert",
			"Greenlight-Error: "+errs[0], "+internal/users/service.go"),
		spec("Greenlight-Slice: S-3", "Greenlight-Test: TestSignup", "Greenlight-Error: "+errs[1],
			"~internal/users/repo.go"),
		append(spec("Greenlight-Slice: S-3", "Greenlight-Test: TestSignup", "Greenlight-Error: "+errs[2],
			"~internal/users/errors.go", "~internal/users/repo.go"), more...),
	)
	c[1].Subject = "move the check to the repository"
	in := input(c, Observation{Head: sha(3), Tests: map[string]ObservedTest{"TestSignup": {
		Name: "TestSignup", Status: StatusFail, Message: "expected 409, got 500", Output: "signup_test.go:12: status\nFAIL"}}})
	in.Refs.Checkpoints = map[string]string{"S-3": sha(0)}
	return in
}

func TestDiagnose_PerTest(t *testing.T) {
	t.Parallel()
	d := Evaluate(spiral([3]string{"got 500", "got 500", "got 500"}))
	if len(d.Diagnostics) != 1 {
		t.Fatalf("got %d diagnostics, want 1", len(d.Diagnostics))
	}
	g := d.Diagnostics[0]
	wantLog := []LogEntry{
		{Attempt: 1, SHA: sha(1), Strategy: "check before insert", Files: []string{"internal/users/service.go"},
			Result: "fail (a later attempt followed): agent reported: got 500"},
		{Attempt: 2, SHA: sha(2), Strategy: "move the check to the repository", Files: []string{"internal/users/repo.go"},
			Result: "fail (a later attempt followed): agent reported: got 500"},
		{Attempt: 3, SHA: sha(3), Strategy: "attempt 3", Files: []string{"internal/users/errors.go", "internal/users/repo.go"},
			Result: "fail (CI): expected 409, got 500"},
	}
	if diff := cmp.Diff(wantLog, g.AttemptLog); diff != "" {
		t.Errorf("AttemptLog mismatch (-want +got):\n%s", diff)
	}
	wantFiles := []FileTouch{
		{Path: "internal/users/service.go", Change: ChangeAdded, Attempts: []int{1}},
		{Path: "internal/users/repo.go", Change: ChangeModified, Attempts: []int{2, 3}},
		{Path: "internal/users/errors.go", Change: ChangeModified, Attempts: []int{3}},
	}
	if diff := cmp.Diff(wantFiles, g.CumulativeFiles); diff != "" {
		t.Errorf("CumulativeFiles mismatch (-want +got):\n%s", diff)
	}
	checks := []struct{ field, got, want string }{
		{"Test", g.Test, "TestSignup"},
		{"ActualError", g.ActualError, "expected 409, got 500\nsignup_test.go:12: status\nFAIL"},
		{"TestExpectation", g.TestExpectation, `The test TestSignup passes`},
		{"TestExpectation", g.TestExpectation, "“expected 409, got 500”"},
		{"TestExpectation", g.TestExpectation, "does not read test source"},
		{"BestHypothesis", g.BestHypothesis, "the error changed at attempt 3"},
		{"BestHypothesis", g.BestHypothesis, "the attempts touched 3 distinct files, some repeatedly"},
		{"BestHypothesis", g.BestHypothesis, "does not guess a cause"},
		{"SpecificQuestion", g.SpecificQuestion, `The error changed at attempt 3 from "got 500" to "expected 409, got 500"`},
	}
	for _, c := range checks {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s = %q, want it to contain %q", c.field, c.got, c.want)
		}
	}
	if d.TrippedTest != "TestSignup" || g.ScopeViolations != nil {
		t.Errorf("TrippedTest %q, ScopeViolations %v", d.TrippedTest, g.ScopeViolations)
	}
}

func TestDiagnose_AgentTrailers(t *testing.T) {
	t.Parallel()
	in := spiral([3]string{"a", "b", "c"}, "Greenlight-Hypothesis: the unique index is missing",
		"Greenlight-Question: may I add a migration?")
	g := Evaluate(in).Diagnostics[0]
	got := []string{g.BestHypothesis, g.SpecificQuestion}
	want := []string{
		"The agent's hypothesis (Greenlight-Hypothesis at 0303030): the unique index is missing",
		"The agent asks (Greenlight-Question at 0303030): may I add a migration?",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hypothesis/question mismatch (-want +got):\n%s", diff)
	}
}

func TestDiagnose_Recovery(t *testing.T) {
	t.Parallel()
	g := Evaluate(spiral([3]string{"a", "a", "a"})).Diagnostics[0]
	var commands []string
	for _, o := range g.RecoveryOptions {
		commands = append(commands, o.Command)
		if o.Option == "" || o.Risk == "" {
			t.Errorf("option %+v lacks text or risk", o)
		}
	}
	want := []string{"git checkout greenlight/checkpoint/S-3", "/breaker reset S-3 <guidance>", "", ""}
	if diff := cmp.Diff(want, commands); diff != "" {
		t.Errorf("recovery commands mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(g.RecoveryOptions[0].Option, "/breaker reset S-3 --rollback") {
		t.Errorf("rollback option %q does not mention the --rollback comment", g.RecoveryOptions[0].Option)
	}
}

func TestDiagnose_SliceCeiling(t *testing.T) {
	t.Parallel()
	c := chain(attempt("TestA"), attempt("TestA"), attempt("TestB"), attempt("TestB"),
		attempt("TestC"), attempt("TestC"), attempt("TestD"), attempt("TestD", "Greenlight-Result: fail"), attempt("TestE"))
	d := Evaluate(input(c, observe(sha(9), "TestA=fail", "TestB=pass", "TestC=error", "TestE=pass")))
	var got []string
	for _, g := range d.Diagnostics {
		got = append(got, g.Test)
	}
	if diff := cmp.Diff([]string{"TestA", "TestC", "TestD"}, got); diff != "" {
		t.Errorf("diagnosed tests mismatch (-want +got):\n%s", diff)
	}
	if d.TripReason != TripSliceCeiling {
		t.Errorf("TripReason = %q, want slice_ceiling", d.TripReason)
	}
}

func TestDiagnose_Evidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       Input
		hyp, que string
	}{
		{
			name: "unchanged error",
			in:   spiralNoCI([3]string{"boom", "boom", "boom"}, "~a.go", "~b.go", "~c.go"),
			hyp:  "the error did not change across the 3 attempts that recorded one; each attempt touched different files",
			que:  `The error "boom" did not change across 3 attempts`,
		},
		{
			name: "same files every time",
			in:   spiralNoCI([3]string{"boom", "bang", "boom"}, "~a.go", "~a.go", "~a.go"),
			hyp:  "the error changed at attempt 2; every attempt touched the same files: a.go",
			que:  `The error changed at attempt 2 from "boom" to "bang"`,
		},
		{
			name: "no error text",
			in:   spiralNoCI([3]string{"", "", ""}, "~a.go", "~b.go", "~a.go"),
			hyp:  "no error text was recorded",
			que:  "Neither CI nor the agent recorded a failure output",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Evaluate(tt.in)
			if len(d.Diagnostics) != 1 {
				t.Fatalf("got %d diagnostics, want 1 (trip %q)", len(d.Diagnostics), d.TripReason)
			}
			g := d.Diagnostics[0]
			if !strings.Contains(g.BestHypothesis, tt.hyp) {
				t.Errorf("BestHypothesis = %q, want it to contain %q", g.BestHypothesis, tt.hyp)
			}
			if !strings.Contains(g.SpecificQuestion, tt.que) {
				t.Errorf("SpecificQuestion = %q, want it to contain %q", g.SpecificQuestion, tt.que)
			}
		})
	}
}

// spiralNoCI is three attempts on TestA with the agent's errors and one
// file each, judged by the agent's Result trailer (CI saw nothing).
func spiralNoCI(errs [3]string, files ...string) Input {
	var specs [][]string
	for i, e := range errs {
		s := spec("Greenlight-Slice: S-3", "Greenlight-Test: TestA", "Greenlight-Result: fail", files[i])
		if e != "" {
			s = append(s, "Greenlight-Error: "+e)
		}
		specs = append(specs, s)
	}
	return input(chain(specs...), Observation{Head: sha(3)})
}

func TestDiagnose_ActualErrorSources(t *testing.T) {
	t.Parallel()
	agent := spiralNoCI([3]string{"x", "y", "the agent saw this"}, "~a", "~b", "~c")
	none := spiralNoCI([3]string{"", "", ""}, "~a", "~b", "~c")
	infra := spiralNoCI([3]string{"", "", ""}, "~a", "~b", "~c")
	infra.Observation.Infra = "runner crashed"
	infra.Force = true
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"agent's account, marked", agent, "The agent's account (Greenlight-Error at 0303030), not CI output:\nthe agent saw this"},
		{"nothing captured", none, "No output was captured"},
		{"tests did not run", infra, "The tests did not run in this run (runner crashed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Evaluate(tt.in)
			if len(d.Diagnostics) == 0 {
				t.Fatal("no diagnostics")
			}
			if got := d.Diagnostics[0].ActualError; !strings.Contains(got, tt.want) {
				t.Errorf("ActualError = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

func TestDiagnose_ScopeViolationInDiagnostic(t *testing.T) {
	t.Parallel()
	in := input(chain(attempt("TestA", "~routes.go")), observe(sha(1), "TestA=pass"))
	in.Scope, in.Force = fakeScope{prefix: "internal/"}, true
	g := Evaluate(in).Diagnostics[0]
	want := []ScopeFinding{{File: "routes.go", SHA: sha(1), Test: "TestA", Verdict: VerdictViolation}}
	if diff := cmp.Diff(want, g.ScopeViolations); diff != "" {
		t.Errorf("ScopeViolations mismatch (-want +got):\n%s", diff)
	}
	for _, s := range []string{g.BestHypothesis, g.SpecificQuestion} {
		if !strings.Contains(s, "routes.go") {
			t.Errorf("%q does not name the out-of-scope file", s)
		}
	}
}
