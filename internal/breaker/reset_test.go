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
			// The branch no longer has the reset head (rewritten): the pushes
			// observed before the reset stay reset, every attempt on the
			// branch counts, and a note says so.
			name:    "a reset at a head the branch no longer has",
			reset:   sha(99),
			want:    verdict{State: StateOpen, Reason: TripPerTest, Test: "TestA", Total: 4, PerTest: map[string]int{"TestA": 4}, Results: resultsN(3, 1)},
			resetAt: sha(99),
			note:    "no longer has",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(commits, observe(sha(4), "TestA=fail"))
			// A reset is a ledger record of the slice (another slice's is
			// not this one's).
			in.Pushes = []Push{{Head: sha(1), Slice: "S-9", Reset: &ResetRecord{Author: "alice"}}}
			if tt.reset != "" {
				in.Pushes = append(in.Pushes, Push{Head: tt.reset, Slice: "S-3", Reset: &ResetRecord{Author: "alice"}})
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
	in.Pushes = []Push{{Head: sha(2), Slice: "S-3", Reset: &ResetRecord{Author: "alice"}}}
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
	in.Pushes = []Push{{Head: sha(1), Slice: "S-3", Reset: &ResetRecord{Author: "alice"}}}
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

// A reset ends the pushes observed before it in the ledger's order, and
// only those: failing pushes after it count, wherever their heads went (a
// force push back onto the reset commit takes nothing away; the reset head
// itself, observed again, stays the head that was reset).
func TestEvaluate_ResetEndsOnlyThePushesBeforeIt(t *testing.T) {
	t.Parallel()
	commits := chain(spec("fix the login", "~internal/auth/login.go"), spec("fix it again", "~internal/auth/login.go"))
	failing := func(head string) Push {
		return Push{Head: head, Source: PushFromLedger, Tests: map[string]PushTest{"TestLogin": {Status: StatusFail}}}
	}
	in := input(commits, observe(sha(2), "TestLogin=fail"))
	in.Pushes = []Push{
		failing(sha(90)), failing(sha(91)), failing(sha(1)),
		{Head: sha(1), Slice: "S-3", Reset: &ResetRecord{Author: "alice"}, Source: PushFromLedger,
			Tests: map[string]PushTest{"TestLogin": {Status: StatusFail}}},
		failing(sha(92)), failing(sha(93)), // after the reset, force-pushed away since
		failing(sha(1)), // back onto the reset commit
		{Head: sha(2), Source: PushFromRun, Complete: true, Tests: map[string]PushTest{"TestLogin": {Status: StatusFail}}},
	}
	in.Slice = "S-3"
	d := Evaluate(in)
	if d.State != StateOpen || d.TripReason != TripNoProgress {
		t.Fatalf("state %s (%s), want OPEN (no_progress): the three failing pushes after the reset count\n%v", d.State, d.TripReason, d.Pushes)
	}
	prior, counted := 0, 0
	for _, p := range d.Pushes {
		if p.Prior {
			prior++
		} else if p.Failed {
			counted++
		}
	}
	if prior != 3 || counted != 3 {
		t.Errorf("%d prior and %d failed pushes after the reset, want 3 and 3: %+v", prior, counted, d.Pushes)
	}
	if d.ResetSHA != sha(1) {
		t.Errorf("ResetSHA = %q, want the reset record's head", d.ResetSHA)
	}
}
