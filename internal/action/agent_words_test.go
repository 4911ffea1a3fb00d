package action_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/golden"
)

// matchGolden compares got with testdata/<name>, rewriting it under -update.
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Match(t, filepath.Join("testdata", name), got)
}

// Words for the agent (issue 32): the check run's text, where an agent
// that iterates on CI reads a failed check, and the job's log carry a
// block addressed to it: at the second of three failing pushes, that one
// more failed push stops the pull request and what the next push should
// be; at the trip, seed 000's rule — stop, do not push, write the
// diagnosis, wait for a human. The test's name comes from the results,
// which the agent writes: it stays inside the code block.
func TestAgentWords_InTheCheckAndTheLog(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	golden := map[int]string{2: "agent-words-push2.golden", 3: "agent-words-trip.golden"}
	for i := 1; i <= 3; i++ {
		head := r.commit("Fix the login", "Greenlight-Test: TestLogin")
		r.results(map[string]string{"TestLogin": "fail", "TestLogout": "pass"})
		r.open(7, "copilot/fix-login")
		o := r.push("copilot/fix-login")
		text := r.checkRun(head).Text
		block, _, found := strings.Cut(text, "\nThe ledger entry of this head")
		if name, ok := golden[i]; ok {
			if !found || !strings.HasPrefix(block, "```text\nTo the agent") {
				t.Fatalf("push %d: the check run's text does not start with the agent's block:\n%s", i, text)
			}
			matchGolden(t, name, block)
			first := strings.SplitN(strings.TrimPrefix(block, "```text\n"), "\n", 2)[0]
			if !strings.Contains(o.stdout, first) {
				t.Errorf("push %d: the log does not carry the agent's block:\n%s", i, o.stdout)
			}
		}
	}
}
