package action_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/ledger"
)

// The line of work in the hardened mode (issue 29): workflow_run with a
// ledger key, honest results; after the trip on S-3 the agent's next
// commits name S-4, then S-5: each run is OPEN on S-3, a failed check.
func TestHardened_SliceHopStaysOpen(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.hardened()
	r.git("checkout", "-q", "-b", "agent/S-3")
	junit := junitOf(map[string]string{"TestLogin": "fail"})
	for i, slice := range []string{"S-3", "S-3", "S-3", "S-4", "S-5"} {
		head := r.commit("Fix the login", "Greenlight-Slice: "+slice, "Greenlight-Test: TestLogin")
		o := r.workflowRun(int64(7000+i), r.open(7, "agent/S-3"), "failure", junit)
		if i < 2 {
			continue
		}
		cr := r.checkRun(head)
		if o.state() != "OPEN" || o.Decision.Slice != "S-3" || cr.Conclusion != "failure" || !strings.Contains(cr.Title, "slice S-3") {
			t.Fatalf("run %d (slice %s): state %q, check %q %q; want OPEN on S-3, failure\n%s", i+1, slice, o.state(), cr.Conclusion, cr.Title, o.stdout)
		}
	}
}

// The tested run is the agent's workflow, which may cancel itself (issue
// 30): a run cancelled after uploading failing results is judged on them
// and the third trips; three cancelled runs that left no artifact, after
// a run that had results, trip no_results, each a failed check.
func TestHardened_ACancelledRunIsStillJudged(t *testing.T) {
	t.Parallel()
	for _, uploaded := range []bool{true, false} {
		t.Run(map[bool]string{true: "failing results uploaded", false: "no results"}[uploaded], func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.hardened()
			r.git("checkout", "-q", "-b", "agent/S-3")
			if !uploaded {
				// One honest run with results first: results missing after
				// results is what counts.
				r.commit("Fix the login")
				if o := r.workflowRun(4999, r.open(7, "agent/S-3"), "success", junitOf(map[string]string{"TestLogin": "pass"})); o.state() != "CLOSED" {
					t.Fatalf("the run with results: %q\n%s", o.state(), o.stdout)
				}
			}
			junit := ""
			if uploaded {
				junit = junitOf(map[string]string{"TestLogin": "fail"})
			}
			for i, want := range []string{"CLOSED", "CLOSED", "OPEN"} {
				head := r.commit("Fix the login again")
				o := r.workflowRun(int64(5000+i), r.open(7, "agent/S-3"), "cancelled", junit)
				if o.state() != want {
					t.Fatalf("cancelled run %d: %q, want %s\n%s", i+1, o.state(), want, o.stdout)
				}
				if c := r.checkRun(head).Conclusion; c == "neutral" || (c == "success" && !uploaded) {
					t.Errorf("cancelled run %d: check %q; a cancelled run is never neutral", i+1, c)
				}
				if i == 2 && !uploaded && o.Decision.TripReason != "no_results" {
					t.Errorf("trip reason %q, want no_results", o.Decision.TripReason)
				}
			}
		})
	}
}

// The agent's workflow cancels itself before uploading anything, from its
// very first push (issue 46): each run is a failed check saying the
// tests were cancelled, and the third trips no_results.
func TestHardened_CancelledFromTheFirstPushTrips(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.hardened()
	r.git("checkout", "-q", "-b", "agent/S-3")
	for i, want := range []string{"CLOSED", "CLOSED", "OPEN"} {
		head := r.commit("Fix the login")
		o := r.workflowRun(int64(5100+i), r.open(7, "agent/S-3"), "cancelled", "")
		if o.state() != want {
			t.Fatalf("cancelled run %d: %q, want %s\n%s", i+1, o.state(), want, o.stdout)
		}
		if c := r.checkRun(head); c.Conclusion != "failure" || !strings.Contains(c.Summary, "cancelled") {
			t.Errorf("cancelled run %d: check %q; want a failure that says the tests were cancelled\n%s", i+1, c.Conclusion, c.Summary)
		}
	}
	if o := r.workflowRun(5103, r.open(7, "agent/S-3"), "cancelled", ""); o.Decision.TripReason != "no_results" {
		t.Errorf("trip reason %q, want no_results", o.Decision.TripReason)
	}
}

// The binding deployment breaker init writes observes the base through
// the same workflow_run: the agent's CI also runs on pushes to the default
// branch, and the breaker's run on that completion records what failed
// there (kind base). A pull request's pushes that fail only that test do
// not trip; a test the agent broke still does.
func TestHardened_APushToTheDefaultBranchIsTheBase(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.hardened()
	o := r.workflowRunOfPush(6000, "main", "failure", junitOf(map[string]string{"TestFlaky": "fail", "TestLogin": "pass"}))
	if o.Err != nil {
		t.Fatalf("the run on main: %v\n%s", o.Err, o.stdout)
	}
	if e, err := ledger.Decode(r.checkRun(r.git("rev-parse", "main")).Text); err != nil || e.Kind != ledger.KindBase {
		t.Fatalf("main's entry: kind %q (%v); want %q\n%s", e.Kind, err, ledger.KindBase, o.stdout)
	}
	r.git("checkout", "-q", "-b", "agent/fix")
	for i := range 3 {
		r.commit("Fix the cache")
		pr := r.open(7, "agent/fix")
		o = r.workflowRun(int64(6001+i), pr, "failure", junitOf(map[string]string{"TestFlaky": "fail", "TestLogin": "pass"}))
		if o.state() != "CLOSED" {
			t.Fatalf("push %d failing only the base's test: %q; want CLOSED\n%s", i+1, o.state(), o.stdout)
		}
	}
	for i := range 3 {
		r.commit("Fix the login")
		o = r.workflowRun(int64(6010+i), r.open(7, "agent/fix"), "failure", junitOf(map[string]string{"TestFlaky": "fail", "TestLogin": "fail"}))
	}
	if o.state() != "OPEN" {
		t.Fatalf("three pushes failing TestLogin too: %q; want OPEN\n%s", o.state(), o.stdout)
	}
}
