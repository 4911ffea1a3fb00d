package action_test

import (
	"fmt"
	"testing"
)

// A matrix hides no platform's failure (issue 50): two breaker runs on
// one head — a matrix's legs, which share the workflow run and its
// attempt, or two workflows — one reading a failing result and the one
// finishing later a passing one: the push is failing, and three such
// pushes trip. A re-run (a higher attempt of the run) still replaces what
// it re-runs, as a re-run of a flaky test may.
func TestMatrix_AFailingLegIsNeverHiddenByALaterPass(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"matrix legs", "two workflows", "a re-run"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.git("checkout", "-q", "-b", "agent/fix-login")
			var o outcome
			for push := range 3 {
				r.commit(fmt.Sprintf("Fix the login, take %d", push+1))
				pr := r.open(7, "agent/fix-login")
				run := 9100 + push
				for leg, status := range []string{"fail", "pass"} {
					switch how {
					case "matrix legs":
						r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"] = fmt.Sprint(run), "1"
					case "two workflows":
						r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"] = fmt.Sprint(run*10+leg), "1"
					case "a re-run":
						r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"] = fmt.Sprint(run), fmt.Sprint(leg+1)
					}
					r.results(map[string]string{"TestLogin": status, "TestLogout": "pass"})
					event := "synchronize"
					if push == 0 && leg == 0 {
						event = "opened"
					}
					o = r.pullRequest(event, pr)
					if o.Err != nil || o.Decision == nil {
						t.Fatalf("push %d, leg %d: %v\n%s", push+1, leg+1, o.Err, o.stdout)
					}
				}
			}
			want := map[string]string{"matrix legs": "OPEN", "two workflows": "OPEN", "a re-run": "CLOSED"}[how]
			if o.state() != want {
				t.Fatalf("after three pushes, each failing on one leg and passing on the one that finished later: %q, want %s\n%s", o.state(), want, o.stdout)
			}
		})
	}
}
