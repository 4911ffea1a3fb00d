package cli

import (
	"strings"
	"testing"
)

// Progress that is real, through the Action over the ledger (an agent
// without trailers): the chi flip-flop and the logrus flaky suite trip; a
// real fix closes. Every result of every push is JUnit, as CI wrote it.
func TestProgress_ThroughTheAction(t *testing.T) {
	t.Parallel()
	seq := func(universe []string, failing ...[]string) []map[string]string {
		var out []map[string]string
		for _, f := range failing {
			m := map[string]string{}
			for _, u := range universe {
				m[u] = "pass"
			}
			for _, x := range f {
				m[x] = "fail"
			}
			out = append(out, m)
		}
		return out
	}
	chi := []string{"TestRoutes/a", "TestRoutes/b", "TestRoutes/c", "TestRoutes/d", "TestMux"}
	a, b, c, d := chi[0], chi[1], chi[2], chi[3]
	logrus := []string{"TestEntryPanic", "TestOrderDependent", "TestFormatter"}
	for _, tc := range []struct {
		name   string
		pushes []map[string]string
		want   []int
		flaky  string // named flaky in the last push's summary
	}{
		{"chi flip-flop, subtests failing 1, 4, 3, 4, 3, 4, 3",
			seq(chi, []string{a}, []string{a, b, c, d}, []string{a, b, c}, []string{a, b, c, d}, []string{a, b, c}, []string{a, b, c, d}, []string{a, b, c}),
			[]int{ExitClosed, ExitClosed, ExitTripped, ExitTripped, ExitTripped, ExitTripped, ExitTripped}, ""},
		{"logrus: stuck on one test while an order-dependent test flips",
			seq(logrus, []string{logrus[0], logrus[1]}, []string{logrus[0]}, []string{logrus[0], logrus[1]}, []string{logrus[0]}, []string{logrus[0], logrus[1]}, []string{logrus[0]}),
			[]int{ExitClosed, ExitClosed, ExitClosed, ExitClosed, ExitTripped, ExitTripped}, "TestOrderDependent"},
		{"a real fix closes",
			seq(logrus, []string{logrus[0]}, []string{logrus[0]}, nil),
			[]int{ExitClosed, ExitClosed, ExitClosed}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLedgerRun(t, "agent/fix")
			l.h.advance = true
			var res actionResult
			for i, statuses := range tc.pushes {
				res, _ = l.push(statuses)
				if res.code != tc.want[i] {
					t.Fatalf("push %d: exit %d, want %d (trip %q)\n%s", i+1, res.code, tc.want[i], res.outputs["trip-reason"], res.stdout)
				}
			}
			if tc.flaky != "" && !strings.Contains(res.summary, "flaky across pushes") {
				t.Errorf("the summary does not name the flaky test %s:\n%s", tc.flaky, res.summary)
			}
		})
	}
}

// An agent that claims a pass (Greenlight-Result: pass) on every push while
// CI sees TestLogin failing (its result named users.TestLogin): the claims
// from the ledger's pushes are misreports like this run's, and TestLogin
// reaches 3/3 at the third push.
func TestProgress_LyingPassClaimsFromTheLedger(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/S-3")
	l.h.advance = true
	var res actionResult
	for i := range 3 {
		res, _ = l.push(map[string]string{"TestLogin": "fail", "TestLogout": "pass"},
			"Greenlight-Slice: S-3", "Greenlight-Test: TestLogin", "Greenlight-Result: pass")
		if i < 2 && res.code != ExitClosed {
			t.Fatalf("push %d: exit %d\n%s", i+1, res.code, res.stdout)
		}
	}
	if res.code != ExitTripped || res.outputs["trip-reason"] != "per_test" {
		t.Fatalf("third push: exit %d, trip %q; want 42 per_test\n%s", res.code, res.outputs["trip-reason"], res.stdout)
	}
	rep := l.report()
	if len(rep.Misreports) != 3 {
		t.Errorf("%d misreports, want each of the three claims", len(rep.Misreports))
	}
}
