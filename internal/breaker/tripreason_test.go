package breaker

import (
	"strings"
	"testing"
)

// The trip's reason stays the reason it tripped for (issue 33): once an
// earlier push recorded the slice OPEN, the pushes after it keep it OPEN
// for that reason, whatever they add. As data: the pushes since the last
// reset, oldest first — "fail" (TestLogin fails), "none" (no results),
// "open:<reason>" (a ledger push that recorded OPEN for that reason, with
// TestLogin failing) — and the reason the run must state.
func TestEvaluate_TheTripReasonStays(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name   string
		pushes string
		want   TripReason
	}{
		{"tripped on no progress, then results missing", "fail open:no_progress ; none ; none ; none", TripNoProgress},
		{"tripped on no progress, then failing again", "fail open:no_progress ; fail ; fail", TripNoProgress},
		{"tripped on missing results, then failing", "none open:no_results ; fail ; fail ; fail", TripNoResults},
		{"no recorded trip: the fold says why", "fail ; fail ; fail", TripNoProgress},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			commits := chain(spec("fix the login", "~internal/auth/login.go"))
			in := input(commits, observe(sha(1), "TestLogin=fail"))
			in.Slice = "S-3"
			var ps []Push
			steps := strings.Split(row.pushes, ";")
			for i, step := range steps {
				f := strings.Fields(step)
				p := Push{Head: sha(50 + i), Slice: "S-3", Source: PushFromLedger, Complete: true,
					Tests: map[string]PushTest{"TestLogin": {Status: StatusFail}}}
				if i == len(steps)-1 {
					p.Head, p.Source, p.Slice = sha(1), PushFromRun, ""
				}
				if f[0] == "none" {
					p.Tests, p.Infra, p.InfraKind = nil, "no result files", InfraNoResults
				}
				if len(f) > 1 {
					reason := TripReason(strings.TrimPrefix(f[1], "open:"))
					p.Verdict = &Verdict{State: StateOpen, TripReason: reason, TotalFailed: 1}
				}
				ps = append(ps, p)
			}
			// A push with results before them all: missing results after
			// results count.
			in.Pushes = append([]Push{{Head: sha(40), Slice: "S-3", Source: PushFromLedger, Complete: true,
				Tests: map[string]PushTest{"TestLogin": {Status: StatusPass}}}}, ps...)
			d := Evaluate(in)
			if d.State != StateOpen || d.TripReason != row.want {
				t.Errorf("state %s, reason %q; want OPEN, %q", d.State, d.TripReason, row.want)
			}
		})
	}
}
