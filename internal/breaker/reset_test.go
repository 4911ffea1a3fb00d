package breaker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvaluate_Reset(t *testing.T) {
	t.Parallel()
	commits := chain(attempt("TestA"), attempt("TestA"), attempt("TestA"), attempt("TestA"))
	tests := []struct {
		name    string
		reset   string
		want    verdict
		prior   int
		resetAt string
		note    string
	}{
		{
			name:  "no reset: tripped",
			want:  verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 4, PerTest: map[string]int{"TestA": 4}, Results: resultsN(3, 1)},
			prior: 0,
		},
		{
			name:    "a reset restarts the counts and keeps prior attempts",
			reset:   strings.ToUpper(sha(3)),
			want:    verdict{State: StateClosed, Total: 1, PerTest: map[string]int{"TestA": 1}, Results: []string{"TestA=fail/ci"}},
			prior:   3,
			resetAt: sha(3),
		},
		{
			name:    "a reset at the fork point counts everything",
			reset:   sha(0),
			want:    verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 4, PerTest: map[string]int{"TestA": 4}, Results: resultsN(3, 1)},
			resetAt: sha(0),
		},
		{
			name:  "an unverifiable reset is ignored with a note",
			reset: sha(99),
			want:  verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 4, PerTest: map[string]int{"TestA": 4}, Results: resultsN(3, 1)},
			note:  "could not be verified",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(commits, observe(sha(4), "TestA=fail"))
			if tt.reset != "" {
				in.Refs.Resets = map[string]string{"S-3": tt.reset, "S-9": sha(1)}
			}
			d := Evaluate(in)
			if diff := cmp.Diff(tt.want, verdictOf(d)); diff != "" {
				t.Errorf("verdict mismatch (-want +got):\n%s", diff)
			}
			if got := len(d.Prior); got != tt.prior {
				t.Errorf("len(Prior) = %d, want %d", got, tt.prior)
			}
			if d.ResetSHA != tt.resetAt {
				t.Errorf("ResetSHA = %q, want %q", d.ResetSHA, tt.resetAt)
			}
			if got := strings.Join(d.Notes, "\n"); !strings.Contains(got, tt.note) || (tt.note == "" && got != "") {
				t.Errorf("Notes = %q, want one containing %q", got, tt.note)
			}
			if d.Checkpoint.SHA != sha(0) {
				t.Errorf("Checkpoint.SHA = %q, want the parent of the first attempt %q", d.Checkpoint.SHA, sha(0))
			}
		})
	}
}

// resultsN is n later-attempt failures on TestA then m CI failures.
func resultsN(n, m int) []string {
	var out []string
	for range n {
		out = append(out, "TestA=fail/later_attempt")
	}
	for range m {
		out = append(out, "TestA=fail/ci")
	}
	return out
}

func TestEvaluate_ResetNumbersFromOne(t *testing.T) {
	t.Parallel()
	in := input(chain(attempt("TestA"), attempt("TestA"), attempt("TestB"), attempt("TestA")), observe(sha(4), "TestA=fail"))
	in.Refs.Resets = map[string]string{"S-3": sha(2)}
	d := Evaluate(in)
	var got [][2]int
	for _, a := range d.Prior {
		got = append(got, [2]int{0, a.Number})
	}
	for _, a := range d.Attempts {
		got = append(got, [2]int{1, a.Number})
	}
	want := [][2]int{{0, 1}, {0, 2}, {1, 1}, {1, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempt numbers mismatch (-want +got):\n%s", diff)
	}
	if d.Tests[0].Name != "TestB" || d.Tests[1].FailedAttempts != 1 {
		t.Errorf("Tests = %+v, want TestB then TestA with 1 failure since the reset", d.Tests)
	}
}

func TestEvaluate_ResetBeforeEveryAttemptNotes(t *testing.T) {
	t.Parallel()
	in := input(chain(attempt("TestA")), observe(sha(1), "TestA=fail"))
	in.Refs.Resets = map[string]string{"S-3": sha(1)}
	in.Force = true
	d := Evaluate(in)
	if len(d.Attempts) != 0 || len(d.Prior) != 1 {
		t.Fatalf("Attempts, Prior = %d, %d, want 0, 1", len(d.Attempts), len(d.Prior))
	}
	if len(d.Diagnostics) != 1 || !strings.Contains(d.Diagnostics[0].ActualError, "before the reset") {
		t.Errorf("Diagnostics = %+v, want one saying every attempt is before the reset", d.Diagnostics)
	}
	if got := strings.Join(d.Notes, "\n"); !strings.Contains(got, "nothing is counted yet") {
		t.Errorf("Notes = %q, want nothing counted yet", got)
	}
}
