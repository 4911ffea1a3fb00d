package breaker

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvaluate_Checkpoint(t *testing.T) {
	t.Parallel()
	commits := chain(
		spec("Greenlight-Slice: S-2", "Greenlight-Test: TestZ"),
		spec("not an attempt"),
		attempt("TestA"), attempt("TestA"),
	)
	tests := []struct {
		name string
		refs Refs
		want Checkpoint
	}{
		{"no tag yet", Refs{}, Checkpoint{Tag: "greenlight/checkpoint/S-3", SHA: sha(2)}},
		{"existing tag elsewhere", Refs{Checkpoints: map[string]string{"S-3": sha(1), "S-2": sha(0)}},
			Checkpoint{Tag: "greenlight/checkpoint/S-3", SHA: sha(2), Exists: true, ExistingSHA: sha(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(commits, observe(sha(4), "TestA=fail"))
			in.Refs = tt.refs
			if diff := cmp.Diff(tt.want, Evaluate(in).Checkpoint); diff != "" {
				t.Errorf("Checkpoint mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluate_Force(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		commits []Commit
		state   State
		tripped bool
		reason  TripReason
		diags   []string
	}{
		{"not tripped: manual, still CLOSED", chain(attempt("TestA"), attempt("TestB")), StateClosed, false, TripManual, []string{"TestA"}},
		{"all passing: the newest attempt's test", chain(attempt("TestB"), attempt("TestB")), StateClosed, false, TripManual, []string{"TestB"}},
		{"already tripped keeps its reason", chain(attempt("TestA"), attempt("TestA"), attempt("TestA")), StateOpen, true, TripPerTest, []string{"TestA"}},
		{"no attempts still yields one diagnostic", nil, StateClosed, false, TripManual, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(tt.commits, observe(sha(len(tt.commits)), "TestA=fail", "TestB=pass"))
			in.Force = true
			d := Evaluate(in)
			var diags []string
			for _, g := range d.Diagnostics {
				diags = append(diags, g.Test)
			}
			got := []any{d.State, d.Tripped, d.TripReason, diags}
			want := []any{tt.state, tt.tripped, tt.reason, tt.diags}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Evaluate(Force) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluate_NoDiagnosticsWhenClosed(t *testing.T) {
	t.Parallel()
	d := Evaluate(input(chain(attempt("TestA")), observe(sha(1), "TestA=fail")))
	if d.State != StateClosed || d.TripReason != TripNone || len(d.Diagnostics) != 0 {
		t.Errorf("got State %s, TripReason %q, %d diagnostics; want CLOSED, none, 0", d.State, d.TripReason, len(d.Diagnostics))
	}
}

func TestEvaluate_Misreport(t *testing.T) {
	t.Parallel()
	in := input(chain(attempt("TestA", "Greenlight-Result: Pass")), observe(sha(1), "TestA=fail"))
	d := Evaluate(in)
	want := []Misreport{{SHA: sha(1), Test: "TestA", Claimed: "Pass", Observed: StatusFail}}
	if diff := cmp.Diff(want, d.Misreports); diff != "" {
		t.Errorf("Misreports mismatch (-want +got):\n%s", diff)
	}
	if !d.Attempts[0].Misreported || d.TotalFailed != 1 {
		t.Errorf("attempt = %+v, total %d; want a counted misreport", d.Attempts[0], d.TotalFailed)
	}
}

func TestEvaluate_Notes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{"infra head said plainly", input(chain(attempt("TestA")), Observation{Head: sha(1), Infra: "no result files"}),
			[]string{"did not run", "no result files"}},
		{"observed head not on the branch", input(chain(attempt("TestA")), observe(sha(50), "TestA=fail")),
			[]string{"not on the branch"}},
		{"observation notes carried", input(chain(attempt("TestA")), Observation{Head: sha(1), Notes: []string{"ambiguous name TestA"}}),
			[]string{"ambiguous name TestA"}},
		{"no attempts", input(chain(spec("hello")), Observation{}), []string{"no attempts", "no slice id"}},
		{"bad Result value", input(chain(attempt("TestA", "Greenlight-Result: dunno")), Observation{}), []string{`"dunno"`}},
		{"untaggable slice", input(chain(spec("Greenlight-Slice: S 3", "Greenlight-Test: TestA")), Observation{}),
			[]string{"cannot name a git tag, so there is no checkpoint tag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Evaluate(tt.in)
			got := strings.Join(d.Notes, "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Notes = %q, want one containing %q", got, w)
				}
			}
		})
	}
}

func TestEvaluate_HeadInfra(t *testing.T) {
	t.Parallel()
	d := Evaluate(input(chain(attempt("TestA")), Observation{Head: sha(1), Infra: "build failed"}))
	got := []any{d.HeadInfra, d.Head, d.Tests[0].Status, d.Attempts[0].Result, d.TotalFailed}
	want := []any{"build failed", sha(1), "infra", OutcomeInfra, 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestEvaluate_TestSummaries(t *testing.T) {
	t.Parallel()
	in := input(chain(attempt("TestA"), attempt("TestB"), attempt("TestA"), attempt("TestC")),
		observe(sha(4), "TestA=error", "TestC=skip"))
	d := Evaluate(in)
	var got [][3]any
	for _, s := range d.Tests {
		got = append(got, [3]any{s.Name, s.FailedAttempts, s.Status})
	}
	want := [][3]any{{"TestA", 2, "error"}, {"TestB", 0, "unknown"}, {"TestC", 0, "skip"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tests mismatch (-want +got):\n%s", diff)
	}
	if n := len(d.Tests[0].Attempts); n != 2 {
		t.Errorf("TestA has %d attempts, want 2", n)
	}
}

// Every commit's changed paths are read: an attempt's for the scope lock,
// any push's for the evidence diagnostic of an agent without trailers.
func TestPolicy_NeedsFiles(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	for _, trailers := range [][]Trailer{{{Key: "greenlight-test", Value: "TestA"}}, {{Key: "Agent-Test", Value: "TestA"}}, nil} {
		if !p.NeedsFiles(trailers) {
			t.Errorf("NeedsFiles(%v) = false, want true", trailers)
		}
	}
}

func TestTrailerHelpers(t *testing.T) {
	t.Parallel()
	tr := []Trailer{{Key: "Greenlight-Result", Value: "fail"}, {Key: "GREENLIGHT-RESULT", Value: " pass "},
		{Key: "Greenlight-Infra", Value: ""}, {Key: "Signed-off-by", Value: "x"}}
	v, ok := TrailerValue(tr, "greenlight-result")
	got := []any{TrailerValues(tr, "Greenlight-Result"), v, ok, HasTrailer(tr, "greenlight-infra"),
		HasTrailer(tr, "Greenlight-Test"), DefaultPolicy().Key(TrailerJustify)}
	want := []any{[]string{"fail", "pass"}, "pass", true, true, false, "Greenlight-Justify"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trailer helpers mismatch (-want +got):\n%s", diff)
	}
}
