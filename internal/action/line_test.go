package action_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// The unit is the line of work, not the label (issue 29): once a slice is
// OPEN, a new slice name on the next commit, or a renamed branch, is
// judged on the OPEN slice, failed, until a maintainer resets that slice;
// the push after the reset is judged afresh.
func TestLine_ANewSliceNameDoesNotCloseTheCircuit(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "agent/S-3")
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	var o outcome
	for i := range 3 {
		r.commit("Fix the login, take "+string(rune('1'+i)), "Greenlight-Slice: S-3", "Greenlight-Test: TestLogin")
		r.results(fail)
		r.open(7, "agent/S-3")
		o = r.push("agent/S-3")
	}
	if o.state() != "OPEN" || o.Decision.Slice != "S-3" {
		t.Fatalf("the third failing attempt: state %q slice %v; want OPEN on S-3\n%s", o.state(), o.Decision, o.stdout)
	}
	for _, hop := range []string{"S-4", "S-5"} {
		head := r.commit("Start on the next slice", "Greenlight-Slice: "+hop, "Greenlight-Test: TestSignup")
		r.results(fail)
		r.open(7, "agent/S-3")
		o = r.push("agent/S-3")
		if o.state() != "OPEN" || o.Decision.Slice != "S-3" || o.Decision.SliceSource != breaker.SliceFromOpen {
			t.Fatalf("a push naming %s: state %q, slice %q from %q; want OPEN on S-3, left open\n%s", hop, o.state(), o.Decision.Slice, o.Decision.SliceSource, o.stdout)
		}
		if cr := r.checkRun(head); cr.Conclusion != "failure" || !strings.Contains(cr.Title, "S-3") {
			t.Errorf("the check run of the %s push: %s %q; want failure naming S-3", hop, cr.Conclusion, cr.Title)
		}
		if !strings.Contains(strings.Join(o.Decision.Notes, "\n"), "slice S-3 was left OPEN") {
			t.Errorf("no note says why S-3 is judged:\n%s", strings.Join(o.Decision.Notes, "\n"))
		}
	}
	if o := r.comment(7, "alice", "/breaker reset S-3"); o.state() != "CLOSED" || o.Err != nil {
		t.Fatalf("the maintainer's reset: state %q, err %v\n%s", o.state(), o.Err, o.stdout)
	}
	r.commit("Signup, take 2", "Greenlight-Slice: S-5", "Greenlight-Test: TestSignup")
	r.results(fail)
	r.open(7, "agent/S-3")
	o = r.push("agent/S-3")
	if o.state() != "CLOSED" || o.Decision.Slice != "S-5" {
		t.Errorf("after the reset: state %q slice %q; want S-5 judged afresh, CLOSED\n%s", o.state(), o.Decision.Slice, o.stdout)
	}
}

// Without trailers the branch is the slice: renaming the branch (GitHub
// moves the open pull request with it) after a trip keeps the circuit
// OPEN on the old branch's slice.
func TestLine_RenamingTheBranchDoesNotCloseTheCircuit(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	fail := map[string]string{"TestLogin": "fail"}
	var o outcome
	for range 3 {
		r.commit("Fix the login")
		r.results(fail)
		r.open(7, "copilot/fix-login")
		o = r.push("copilot/fix-login")
	}
	if o.state() != "OPEN" || o.Decision.TripReason != breaker.TripNoProgress {
		t.Fatalf("three failing pushes: %q %v; want OPEN no_progress\n%s", o.state(), o.Decision, o.stdout)
	}
	r.git("branch", "-q", "-m", "copilot/fix-login-v2")
	for range 2 {
		r.commit("Fix the login another way")
		r.results(fail)
		r.open(7, "copilot/fix-login-v2")
		o = r.push("copilot/fix-login-v2")
		if o.state() != "OPEN" || o.Decision.Slice != "copilot-fix-login" {
			t.Fatalf("a push on the renamed branch: state %q slice %q; want OPEN on copilot-fix-login\n%s", o.state(), o.Decision.Slice, o.stdout)
		}
	}
}

// failingPush has the agent push one more fix to pull request number
// from branch while TestLogin still fails, and runs the Action on it.
func (r *rig) failingPush(number int, branch string) outcome {
	r.t.Helper()
	r.commit("Fix the login once more")
	r.results(map[string]string{"TestLogin": "fail"})
	r.open(number, branch)
	return r.push(branch)
}

// tripOn has the agent fail three pushes on pull request number from
// branch, with no trailers: OPEN, no_progress. It returns the last head.
func (r *rig) tripOn(number int, branch string) string {
	r.t.Helper()
	var o outcome
	for range 3 {
		r.commit("Fix the login")
		r.results(map[string]string{"TestLogin": "fail"})
		r.open(number, branch)
		o = r.push(branch)
	}
	if o.state() != "OPEN" {
		r.t.Fatalf("three failing pushes on #%d: %q; want OPEN\n%s", number, o.state(), o.stdout)
	}
	return r.git("rev-parse", branch)
}

// A new pull request from the tripped branch, or the tripped commits on a
// new branch, inherits the OPEN circuit: its first failing push is OPEN.
// A reset on the old pull request does not reach the new one.
func TestLine_ANewPullRequestInheritsTheOpenCircuit(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"same branch", "new branch", "reset on the old one"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.git("checkout", "-q", "-b", "copilot/fix-login")
			r.tripOn(7, "copilot/fix-login")
			branch := "copilot/fix-login"
			switch how {
			case "new branch":
				branch = "copilot/fix-login-again"
				r.git("checkout", "-q", "-b", branch)
			case "reset on the old one":
				r.open(8, branch) // opened beside #7, at the tripped head
				if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.state() != "CLOSED" {
					t.Fatalf("the reset on #7: %q\n%s", o.state(), o.stdout)
				}
			}
			r.close(7, "copilot/fix-login")
			r.commit("Fix the login on a fresh pull request")
			r.results(map[string]string{"TestLogin": "fail"})
			r.open(8, branch)
			o := r.push(branch)
			if o.state() != "OPEN" {
				t.Fatalf("the new pull request's first failing push: %q; want OPEN\n%s", o.state(), o.stdout)
			}
			if cr := r.checkRun(r.git("rev-parse", branch)); cr.Conclusion != "failure" {
				t.Errorf("its check run concluded %q, want failure", cr.Conclusion)
			}
		})
	}
}

// A line of work merged into the base reaches no pull request after it:
// its commits are the base's now, never a new pull request's own.
func TestLine_AMergedLineReachesNoLaterPullRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	r.tripOn(7, "copilot/fix-login")
	r.git("checkout", "-q", "main")
	r.git("merge", "-q", "--no-ff", "-m", "Merge the login work", "copilot/fix-login")
	r.srv.SetDefaultBranch("main", r.git("rev-parse", "main"))
	r.srv.MergePullRequest(7)
	r.git("checkout", "-q", "-b", "copilot/fix-signup")
	r.commit("Fix the signup")
	r.results(map[string]string{"TestLogin": "fail"})
	r.open(8, "copilot/fix-signup")
	if o := r.push("copilot/fix-signup"); o.state() != "CLOSED" || o.Decision.TotalFailed != 1 {
		t.Fatalf("the next pull request's first failing push: %q, %d failed; want CLOSED, 1\n%s", o.state(), o.Decision.TotalFailed, o.stdout)
	}
}

// An agent that claims a pass on every push while CI sees the named test
// fail: the count is CI's, three failed attempts on TestLogin, OPEN. The
// claims only add detail (three misreports).
func TestLine_LyingPassTrailersNeverLowerACount(t *testing.T) {
	t.Parallel()
	for _, shape := range []string{"one commit a push", "two commits a push"} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.git("checkout", "-q", "-b", "agent/login")
			var o outcome
			for i := range 3 {
				if shape == "two commits a push" {
					r.commit("Tidy up before the fix")
				}
				r.commit("Fix the login, take "+string(rune('1'+i)), "Greenlight-Test: TestLogin", "Greenlight-Result: pass")
				r.results(map[string]string{"TestLogin": "fail", "TestLogout": "pass"})
				r.open(7, "agent/login")
				o = r.push("agent/login")
			}
			if o.state() != "OPEN" {
				t.Fatalf("three CI failures under pass claims: %q; want OPEN\n%s", o.state(), o.stdout)
			}
			count := -1
			for _, ts := range o.Decision.Tests {
				if ts.Name == "TestLogin" {
					count = ts.FailedAttempts
				}
			}
			if count != 3 || len(o.Decision.Misreports) != 3 {
				t.Errorf("TestLogin: %d failed attempts, %d misreports; want 3 and 3 (tests %+v)", count, len(o.Decision.Misreports), o.Decision.Tests)
			}
		})
	}
}

// A line of forty force pushes on a branch without a pull request (each
// attempt amended onto the base, so no earlier head stays in the branch's
// history, and no pull request's timeline lists them): the newest entry
// names a skip list of a few heads, and the run still reads every earlier
// entry through it — the test that failed only at the first push is in the
// newest entry, with its status now (issue 29: an entry's size no longer
// grows with the line).
func TestLine_ALongLineOfForcePushesIsReadWhole(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "agent/fix-login")
	var o outcome
	for i := range 40 {
		r.git("reset", "-q", "--hard", "main")
		r.commit(fmt.Sprintf("Fix the login, take %d", i+1))
		statuses := map[string]string{"TestLogin": "fail", "TestOld": "pass"}
		if i == 0 {
			statuses = map[string]string{"TestLogin": "pass", "TestOld": "fail"}
		}
		r.results(statuses)
		o = r.push("agent/fix-login")
	}
	e, err := ledger.Decode(r.checkRun(r.git("rev-parse", "agent/fix-login")).Text)
	if err != nil {
		t.Fatal(err)
	}
	if e.Seq != 40 || len(e.PrevHeads) > 3*ledger.SkipBase {
		t.Errorf("the 40th entry: seq %d, names %d earlier heads; want seq 40 and at most %d", e.Seq, len(e.PrevHeads), 3*ledger.SkipBase)
	}
	found := false
	for _, tc := range e.Tests {
		found = found || tc.Name == "TestOld"
	}
	if !found || o.state() != "OPEN" {
		t.Fatalf("the 40th push: state %q, TestOld (failed only at the first push) kept: %v; want OPEN and kept\n%s", o.state(), found, o.stdout)
	}
}

// A push is a push (issue 46): the agent force-pushes between two failing
// commits, A B A B A B. Each push back to a head CI saw before is a new
// failed push, never "a re-run", so the third trips; and the comment's
// "one more failed push stops it" is kept.
func TestLine_PingPongBetweenTwoFailingCommitsTrips(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.git("checkout", "-q", "-b", "agent/fix-login")
	r.results(map[string]string{"TestLogin": "fail"})
	a := r.commit("Fix the login")
	r.git("checkout", "-q", "main")
	r.git("checkout", "-q", "-b", "agent/other")
	b := r.commit("Fix the login another way")
	r.git("checkout", "-q", "agent/fix-login")
	for i, head := range []string{a, b, a, b, a, b} {
		r.git("reset", "-q", "--hard", head)
		pr := r.open(7, "agent/fix-login")
		event := "synchronize"
		if i == 0 {
			event = "opened"
		}
		o := r.pullRequest(event, pr)
		want := "CLOSED"
		if i >= 2 {
			want = "OPEN"
		}
		if o.state() != want {
			t.Fatalf("push %d (%s): %q, want %s\n%s", i+1, map[string]string{a: "A", b: "B"}[head], o.state(), want, o.stdout)
		}
		if cr := r.checkRun(head); i >= 2 && cr.Conclusion != "failure" {
			t.Errorf("push %d: check %q, want failure", i+1, cr.Conclusion)
		}
	}
}
