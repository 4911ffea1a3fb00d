package action_test

import (
	"fmt"
	"strings"
	"testing"
)

// A dry run records and never blocks (action.yml, dry-run): with every
// on-trip action asked for, three failing pushes, a maintainer's reset
// with a rollback and the pull request closed, the only write GitHub
// receives is the ledger's check runs; everything else is said in the log
// as what would have been done, and the verdict is the one a real run
// reaches.
func TestDryRun_WritesOnlyTheLedger(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	for k, v := range map[string]string{"dry-run": "true", "comment": "always", "on-trip-label": "breaker: stopped", "on-trip-remove-labels": "claude",
		"on-trip-unassign": "Copilot", "on-trip-request-review": "alice", "on-trip-draft": "true", "cancel-workflows": "true"} {
		r.inputs[k] = v
	}
	r.commit("Start the shop")
	r.results(map[string]string{"TestLogin": "pass"})
	r.push("main")
	r.git("checkout", "-q", "-b", "agent/fix-login")
	start := r.srv.CallCount()
	var logs strings.Builder
	var o outcome
	for i := range 3 {
		r.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		r.results(map[string]string{"TestLogin": "fail"})
		pr := r.open(7, "agent/fix-login")
		o = r.pullRequest(map[bool]string{true: "opened", false: "synchronize"}[i == 0], pr)
		if o.Err != nil || o.Decision == nil {
			t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
		}
		logs.WriteString(o.stdout)
	}
	if o.state() != "OPEN" {
		t.Errorf("the third failing push: %s; want OPEN, as a real run decides", o.state())
	}
	reset := r.comment(7, "alice", "/breaker reset --rollback")
	logs.WriteString(reset.stdout)
	r.close(7, "agent/fix-login")
	closed := r.pullRequest("closed", r.open(7, "agent/fix-login"))
	logs.WriteString(closed.stdout)
	for _, c := range r.srv.Calls()[start:] {
		write := c.Method != "GET" && c.Path != "/graphql" && !(c.Method == "POST" && strings.HasSuffix(c.Path, "/check-runs"))
		if write || c.Path == "/graphql" && strings.Contains(c.Body, "mutation") {
			t.Errorf("a dry run wrote %s %s", c.Method, c.Path)
		}
	}
	for _, want := range []string{"would create a comment", "would label", "would ask alice to review", "would convert the pull request to a draft",
		"would create a commit", "would move heads/agent/fix-login", "would mark the pull request ready for review", "the one write of a dry run"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
	}
}
