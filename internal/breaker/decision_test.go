package breaker

import "testing"

// TripsLeft is the distance to the nearest trip over the counts that have
// started, and what the report's "one more failed push stops it" reads.
func TestDecision_TripsLeft(t *testing.T) {
	t.Parallel()
	lim := Limits{PerTest: 3, Slice: 7, NoProgress: 3}
	tests := []struct {
		name string
		d    Decision
		want int
	}{
		{"nothing failed yet", Decision{Limits: lim}, -1},
		{"tripped", Decision{Limits: lim, Tripped: true, FailedInARow: 5}, 0},
		{"two failed pushes in a row: one left", Decision{Limits: lim, FailedInARow: 2, TotalFailed: 2}, 1},
		{"a test at two attempts is nearer than the slice", Decision{Limits: lim, TotalFailed: 5, Tests: []TestSummary{{Name: "A", FailedAttempts: 2}, {Name: "B", FailedAttempts: 1}}}, 1},
		{"the slice nearer than any test", Decision{Limits: lim, TotalFailed: 6, Tests: []TestSummary{{Name: "A", FailedAttempts: 1}}}, 1},
		{"counts past a limit never go below zero", Decision{Limits: lim, FailedInARow: 4}, 0},
	}
	for _, tt := range tests {
		if got := tt.d.TripsLeft(); got != tt.want {
			t.Errorf("%s: TripsLeft() = %d, want %d", tt.name, got, tt.want)
		}
	}
}
