package action_test

import (
	"fmt"
	"strings"
	"testing"
)

// Every kind of comment the breaker posts, as a reviewer first sees it
// (issue 33): the one-short warning, a reset's acknowledgement, the
// diagnostic asked for with /breaker debug, a push whose tests did not
// run, and each other policy's trip, each a golden file made through
// action.Run. bench/comment-height.sh measures how tall each renders on
// GitHub (docs/comments.md keeps the figures).
func TestComment_GoldenEveryKind(t *testing.T) {
	t.Parallel()
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	push := func(r *rig, i int, statuses map[string]string) {
		r.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		r.results(statuses)
		r.open(7, "copilot/fix-login")
		r.push("copilot/fix-login")
	}
	cases := []struct {
		name   string
		inputs map[string]string
		run    func(r *rig)
	}{
		{"warning", nil, func(r *rig) {
			for i := range 2 {
				push(r, i, fail)
			}
		}},
		{"reset", nil, func(r *rig) {
			for i := range 3 {
				push(r, i, fail)
			}
			if o := r.comment(7, "alice", "/breaker reset copilot-fix-login the session store is shared; mock it"); o.Err != nil {
				r.t.Fatalf("the reset: %v", o.Err)
			}
		}},
		{"debug", nil, func(r *rig) {
			push(r, 0, fail)
			if o := r.comment(7, "alice", "/breaker debug"); o.Err != nil {
				r.t.Fatalf("the debug: %v", o.Err)
			}
		}},
		{"infra", nil, func(r *rig) {
			push(r, 0, fail)
			r.inputs["results"] = "missing.xml" // the tests wrote nothing this time
			push(r, 1, fail)
		}},
		{"prp", map[string]string{"policy": "prp"}, func(r *rig) {
			for i := range 4 {
				push(r, i, fail)
			}
		}},
		{"bmad", map[string]string{"policy": "bmad", "threshold": "3"}, func(r *rig) {
			for i := range 3 {
				push(r, i, fail)
			}
		}},
		{"liza", map[string]string{"policy": "liza"}, func(r *rig) {
			// Three tests failing at three pushes with one error: seed 004's
			// retry_cluster.
			for i := range 3 {
				push(r, i, map[string]string{"TestLogin": "fail", "TestLogout": "fail", "TestSignup": "fail"})
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			for k, v := range tc.inputs {
				r.inputs[k] = v
			}
			r.git("checkout", "-q", "-b", "copilot/fix-login")
			tc.run(r)
			var ours []string // the breaker's, not the maintainer's command
			for _, c := range r.srv.Comments(7) {
				if strings.HasPrefix(c.Body, "<!-- greenlight-breaker") {
					ours = append(ours, c.Body)
				}
			}
			if len(ours) != 1 {
				t.Fatalf("%d comments of the breaker, want 1", len(ours))
			}
			body := ours[0]
			if strings.Count(body, "<details>") != strings.Count(body, "</details>") {
				t.Errorf("a <details> is not closed")
			}
			if tc.inputs["policy"] != "" && !strings.Contains(body, "## Stopped: ") {
				t.Errorf("the %s policy did not trip:\n%s", tc.inputs["policy"], body)
			}
			// What a reviewer reads first, as GitHub renders it (the marker
			// and code fences draw nothing): the title, the test on line
			// 2, CI's error by line 6.
			var lines []string
			for _, l := range strings.Split(body, "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "<!--") && !strings.HasPrefix(l, "```") {
					lines = append(lines, l)
				}
			}
			lead := "users.TestLogin"
			if len(lines) < 6 || !strings.Contains(lines[1], lead) || !strings.Contains(strings.Join(lines[:6], "\n"), "expected 409, got 500") {
				t.Errorf("the first lines do not name the test on line 2 and CI's error by line 6:\n%s", strings.Join(lines[:min(6, len(lines))], "\n"))
			}
			if strings.Contains(body, "**CLOSED**") {
				t.Errorf("a bold CLOSED under a Running title:\n%s", body)
			}
			matchGolden(t, "comments/"+tc.name+".md", body)
		})
	}
}
