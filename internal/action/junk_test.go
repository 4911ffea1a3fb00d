package action_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// A check run of the breaker's name that holds no entry, written on a
// person's head (the agent's token shares the breaker's identity; check
// runs cannot be deleted), trips ledger_tampered; a maintainer's reset
// sets it aside, naming it, and the person's next passing push is green
// (issue 30). Without the reset it would be a permanent lock.
func TestReset_SetsAsideAJunkCheckRunBeforeIt(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["ledger-key"] = "a-ledger-key-of-the-rig-0123"
	r.git("checkout", "-q", "-b", "people/fix-login")
	pass := map[string]string{"TestLogin": "pass"}
	head := r.commit("Fix the login")
	r.results(pass)
	r.open(8, "people/fix-login")
	if o := r.push("people/fix-login"); o.state() != "CLOSED" {
		t.Fatalf("the person's push: %q\n%s", o.state(), o.stdout)
	}
	r.srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: head, Conclusion: "success", Text: "nothing to see",
		AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
	r.commit("Tidy the login")
	r.results(pass)
	r.open(8, "people/fix-login")
	if o := r.push("people/fix-login"); o.state() != "OPEN" || o.Decision.TripReason != breaker.TripLedgerTampered {
		t.Fatalf("after the junk check run: %q %v; want OPEN ledger_tampered\n%s", o.state(), o.Decision, o.stdout)
	}
	if o := r.comment(8, "alice", "/breaker reset"); o.state() != "CLOSED" {
		t.Fatalf("the maintainer's reset: %q\n%s", o.state(), o.stdout)
	}
	next := r.commit("Tidy the login again")
	r.results(pass)
	r.open(8, "people/fix-login")
	o := r.push("people/fix-login")
	if o.state() != "CLOSED" {
		t.Fatalf("the person's next passing push: %q; want CLOSED\n%s", o.state(), o.stdout)
	}
	if cr := r.checkRun(next); cr.Conclusion != "success" {
		t.Errorf("its check run concluded %q, want success", cr.Conclusion)
	}
	if !strings.Contains(strings.Join(o.Decision.Notes, "\n"), "set aside") {
		t.Errorf("no note names the junk set aside:\n%s", strings.Join(o.Decision.Notes, "\n"))
	}
}
