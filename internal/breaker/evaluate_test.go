package breaker

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvaluate_Counts(t *testing.T) {
	t.Parallel()
	three := chain(attempt("TestA"), attempt("TestA"), attempt("TestA"))
	spread := chain(attempt("TestA"), attempt("TestA"), attempt("TestB"), attempt("TestB"),
		attempt("TestC"), attempt("TestC"), attempt("TestD"))
	tests := []struct {
		name string
		in   Input
		want verdict
	}{
		{
			name: "three failures on one test trip per_test",
			in:   input(three, observe(sha(3), "TestA=fail")),
			want: verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 3,
				PerTest: map[string]int{"TestA": 3},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/later_attempt", "TestA=fail/ci"}},
		},
		{
			name: "2+2+2+1 over four tests trips the slice ceiling at 7",
			in:   input(spread, observe(sha(7), "TestA=fail", "TestB=error", "TestC=fail", "TestD=fail")),
			want: verdict{State: StateOpen, Reason: TripSliceCeiling, Total: 7,
				PerTest: map[string]int{"TestA": 2, "TestB": 2, "TestC": 2, "TestD": 1},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/results", "TestB=fail/later_attempt",
					"TestB=fail/results", "TestC=fail/later_attempt", "TestC=fail/results", "TestD=fail/ci"}},
		},
		{
			name: "per_test wins when both limits are reached at the same attempt",
			in: input(chain(attempt("TestA"), attempt("TestA"), attempt("TestB"), attempt("TestB"),
				attempt("TestC"), attempt("TestC"), attempt("TestA")), observe(sha(7), "TestA=fail", "TestB=fail", "TestC=fail")),
			want: verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 7,
				PerTest: map[string]int{"TestA": 3, "TestB": 2, "TestC": 2},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/later_attempt", "TestB=fail/later_attempt",
					"TestB=fail/results", "TestC=fail/later_attempt", "TestC=fail/results", "TestA=fail/ci"}},
		},
		{
			name: "an infra commit is not an attempt",
			in: input(chain(attempt("TestA"), attempt("TestA", "Greenlight-Infra: pin the toolchain"),
				attempt("TestA")), observe(sha(3), "TestA=fail")),
			want: verdict{State: StateClosed, Total: 2, PerTest: map[string]int{"TestA": 2},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/ci"}},
		},
		{
			name: "a head whose tests did not run is infra and not counted",
			in: input(three, Observation{Head: sha(3), Infra: "build failed",
				Tests: map[string]ObservedTest{"TestA": {Status: StatusFail}}}),
			want: verdict{State: StateClosed, Total: 2, PerTest: map[string]int{"TestA": 2},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/later_attempt", "TestA=infra/ci"}},
		},
		{
			name: "a pass resets the per-test count but not the slice total",
			in: input(chain(attempt("TestA"), attempt("TestA", "Greenlight-Result: PASS"), attempt("TestA"),
				attempt("TestA")), observe(sha(4), "TestA=fail")),
			want: verdict{State: StateClosed, Total: 3, PerTest: map[string]int{"TestA": 2},
				Results: []string{"TestA=fail/later_attempt", "TestA=pass/trailer", "TestA=fail/later_attempt", "TestA=fail/ci"}},
		},
		{
			name: "OPEN stays OPEN after a passing push",
			in:   input(chain(attempt("TestA"), attempt("TestA"), attempt("TestA"), attempt("TestA")), observe(sha(4), "TestA=pass")),
			want: verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 3,
				PerTest: map[string]int{"TestA": 0},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/later_attempt", "TestA=fail/later_attempt", "TestA=pass/ci"}},
		},
		{
			name: "the Result trailer decides when CI did not observe the commit",
			in:   input(chain(attempt("TestA", "Greenlight-Result: fail"), attempt("TestB")), observe(sha(2), "TestA=pass", "TestB=pass")),
			want: verdict{State: StateClosed, Total: 1, PerTest: map[string]int{"TestA": 1, "TestB": 0},
				Results: []string{"TestA=fail/trailer", "TestB=pass/ci"}},
		},
		{
			name: "CI's observation of the head beats the Result trailer",
			in:   input(chain(attempt("TestA", "Greenlight-Result: fail")), observe(sha(1), "TestA=pass")),
			want: verdict{State: StateClosed, PerTest: map[string]int{"TestA": 0}, Results: []string{"TestA=pass/ci"}},
		},
		{
			name: "the run's results decide an older attempt with nothing else",
			in: input(chain(attempt("TestA"), attempt("TestB"), attempt("TestC")),
				observe(sha(3), "TestA=fail", "TestC=pass")),
			want: verdict{State: StateClosed, Total: 1, PerTest: map[string]int{"TestA": 1, "TestB": 0, "TestC": 0},
				Results: []string{"TestA=fail/results", "TestB=unknown/none", "TestC=pass/ci"}},
		},
		{
			name: "a skip at the head is unknown",
			in:   input(chain(attempt("TestA", "Greenlight-Result: fail")), observe(sha(1), "TestA=skip")),
			want: verdict{State: StateClosed, PerTest: map[string]int{"TestA": 0}, Results: []string{"TestA=unknown/ci"}},
		},
		{
			name: "a claimed pass that CI contradicts counts as a failure",
			in:   input(chain(attempt("TestA", "Greenlight-Result: pass")), observe(sha(1), "TestA=error")),
			want: verdict{State: StateClosed, Total: 1, PerTest: map[string]int{"TestA": 1}, Results: []string{"TestA=fail/ci"}},
		},
		{
			name: "an unrecognised Result value falls through",
			in:   input(chain(attempt("TestA", "Greenlight-Result: maybe"), attempt("TestB")), observe(sha(2), "TestA=fail")),
			want: verdict{State: StateClosed, Total: 1, PerTest: map[string]int{"TestA": 1, "TestB": 0},
				Results: []string{"TestA=fail/results", "TestB=unknown/none"}},
		},
		{
			name: "keys are case-insensitive and a commit may name several tests",
			in: input(chain(spec("GREENLIGHT-SLICE: S-3", "greenlight-test: TestA", "Greenlight-TEST: TestB",
				"greenlight-test: TestA")), observe(sha(1), "TestA=fail", "TestB=fail")),
			want: verdict{State: StateClosed, Total: 2, PerTest: map[string]int{"TestA": 1, "TestB": 1},
				Results: []string{"TestA=fail/ci", "TestB=fail/ci"}},
		},
		{
			name: "a commit without a Test trailer is not an attempt",
			in:   input(chain(attempt("TestA"), spec("Greenlight-Slice: S-3", "~x.go"), attempt("TestA")), observe(sha(3), "TestA=fail")),
			want: verdict{State: StateClosed, Total: 2, PerTest: map[string]int{"TestA": 2},
				Results: []string{"TestA=fail/later_attempt", "TestA=fail/ci"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := verdictOf(Evaluate(tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate() verdict mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluate_CustomPolicy(t *testing.T) {
	t.Parallel()
	p := Policy{Name: "strict", PerTestLimit: 2, SliceLimit: 3, TrailerPrefix: "Agent-", TagPrefix: "gl/"}
	in := Input{Policy: p, Commits: chain(spec("Agent-Slice: S-9", "Agent-Test: TestA"),
		spec("Agent-Slice: S-9", "Agent-Test: TestA", "Greenlight-Test: TestZ")),
		Observation: observe(sha(2), "TestA=fail")}
	d := Evaluate(in)
	got := []any{d.Policy, d.State, d.TripReason, d.TotalFailed, d.Limits, d.Checkpoint.Tag}
	want := []any{"strict", StateOpen, TripPerTest, 2, Limits{PerTest: 2, Slice: 3, NoProgress: 3}, "gl/checkpoint/S-9"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Evaluate() mismatch (-want +got):\n%s", diff)
	}
}

func TestEvaluate_ZeroPolicyTakesDefaults(t *testing.T) {
	t.Parallel()
	d := Evaluate(Input{Commits: chain(attempt("TestA"), attempt("TestA"), attempt("TestA")),
		Observation: observe(sha(3), "TestA=fail")})
	got := []any{d.Policy, d.Limits, d.TripReason, d.Checkpoint.Tag}
	want := []any{"greenlight", Limits{PerTest: 3, Slice: 7, NoProgress: 3}, TripPerTest, "greenlight/checkpoint/S-3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Evaluate() mismatch (-want +got):\n%s", diff)
	}
}
