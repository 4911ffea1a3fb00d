package action_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/ledger"
)

// What fails on the base is only what a run on a push to the default
// branch saw there (issue 30): a judged entry at the base commit never
// is. (a) The agent opens its pull request against a branch of its own
// where the test already fails: its failing pushes count and trip on the
// third. (b) A pull request from the default branch is refused with a
// failed check, and a person's pull request on the same base counts its
// own failures.
func TestBase_OnlyTheDefaultBranchsObservationIsTheBase(t *testing.T) {
	t.Parallel()
	fail := map[string]string{"TestLogin": "fail"}
	t.Run("a base branch of the agent's own", func(t *testing.T) {
		t.Parallel()
		r := newRig(t)
		r.git("checkout", "-q", "-b", "agent/base")
		r.commit("Break the login")
		r.results(fail)
		if o := r.push("agent/base"); o.state() != "CLOSED" {
			t.Fatalf("the branch run on agent/base: %q\n%s", o.state(), o.stdout)
		}
		r.git("checkout", "-q", "-b", "agent/fix")
		var o outcome
		for range 3 {
			r.commit("Fix the login")
			r.results(fail)
			o = r.pullRequest("synchronize", r.openInto(8, "agent/fix", "agent/base"))
		}
		if o.state() != "OPEN" {
			t.Fatalf("three failing pushes against the agent's own base: %q; want OPEN\n%s", o.state(), o.stdout)
		}
	})
	t.Run("a pull request from the default branch", func(t *testing.T) {
		t.Parallel()
		r := newRig(t)
		r.commit("Main moves on")
		r.git("branch", "-q", "release", "main~1")
		r.srv.SetDefaultBranch("main", r.git("rev-parse", "main"))
		r.results(fail)
		from := r.pullRequest("opened", r.openInto(9, "main", "release"))
		if from.Err == nil || !strings.Contains(from.stdout, "default branch") {
			t.Fatalf("a pull request from main: err %v; want refused, saying why\n%s", from.Err, from.stdout)
		}
		cr := r.checkRun(r.git("rev-parse", "main"))
		if cr.Conclusion != "failure" || !strings.Contains(cr.Summary, "default branch") {
			t.Errorf("its check run concluded %q saying %q; want failure, naming the default branch", cr.Conclusion, cr.Summary)
		}
		if _, err := ledger.Decode(cr.Text); !errors.Is(err, ledger.ErrNoEntry) {
			t.Errorf("the refusal's check run holds a ledger entry (%v); want none\n%s", err, cr.Text)
		}
		r.git("checkout", "-q", "-b", "people/fix")
		var o outcome
		for range 3 {
			r.commit("Fix the login")
			r.results(fail)
			o = r.pullRequest("synchronize", r.open(10, "people/fix"))
		}
		if o.state() != "OPEN" {
			t.Fatalf("a person's three failing pushes on the same base: %q; want OPEN (counted)\n%s", o.state(), o.stdout)
		}
	})
}

// A pull request into a branch other than the default one reads what
// fails on its base where that branch leaves the default branch (their
// merge base), where a run on a push to the default branch observed it:
// a test failing there too is the base's, and three such pushes do not
// trip (issue 30).
func TestBase_AnotherBaseBranchReadsItsMergeBase(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.results(map[string]string{"TestFlaky": "fail", "TestLogin": "pass"})
	if o := r.push("main"); o.Err != nil {
		t.Fatalf("the base observation on main: %v\n%s", o.Err, o.stdout)
	}
	r.git("checkout", "-q", "-b", "release")
	r.commit("Prepare the release")
	r.git("checkout", "-q", "-b", "agent/fix")
	var o outcome
	for range 3 {
		r.commit("Fix the login")
		r.results(map[string]string{"TestFlaky": "fail", "TestLogin": "pass"})
		o = r.pullRequest("synchronize", r.openInto(8, "agent/fix", "release"))
	}
	if o.state() != "CLOSED" {
		t.Fatalf("three pushes failing only the base's test: %q; want CLOSED\n%s", o.state(), o.stdout)
	}
	if !strings.Contains(strings.Join(o.Decision.Notes, "\n"), "fails on the base too") {
		t.Errorf("no note says the test fails on the base:\n%s", strings.Join(o.Decision.Notes, "\n"))
	}
}
