package action_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
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

// forgedLinkPush makes the agent's forgery without a key: a copy of the
// first head's entry naming in its history a commit that is not there,
// changed by place, then the branch rewritten (the first head
// force-pushed away); it returns the outcome of the push after it.
func forgedLinkPush(t *testing.T, r *rig, place func(e *ledger.Entry)) outcome {
	t.Helper()
	r.git("checkout", "-q", "-b", "people/fix-login")
	pass := map[string]string{"TestLogin": "pass"}
	first := r.commit("Fix the login")
	r.results(pass)
	r.open(8, "people/fix-login")
	if o := r.push("people/fix-login"); o.state() != "CLOSED" {
		t.Fatalf("the first push: %q\n%s", o.state(), o.stdout)
	}
	e, err := ledger.Decode(r.checkRun(first).Text)
	if err != nil {
		t.Fatal(err)
	}
	e.Since = strings.Repeat("ab", 20) // in no history
	place(&e)
	block, _ := ledger.Encode(e, nil)
	r.srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: first, Conclusion: "success",
		Text: "The ledger entry of this head.\n\n" + block, AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
	r.git("reset", "-q", "--hard", "main")
	r.commit("Fix the login, from scratch")
	r.results(pass)
	r.srv.AddForcePush(8, first)
	r.open(8, "people/fix-login")
	return r.push("people/fix-login")
}

// Without a key the agent forges an entry on a head it force-pushed away,
// naming in its history a commit that is not there: the reader cannot
// follow it, and counts it tampered — a trip a maintainer's reset sets
// aside — never a run that cannot finish.
func TestReset_SetsAsideAForgedHistoryLink(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	pass := map[string]string{"TestLogin": "pass"}
	// Placed after the true entry, and keeping no carry, so that no run
	// starts from a carry and the whole line is read (a copy at the same
	// place is one push with the true entry, below).
	o := forgedLinkPush(t, r, func(e *ledger.Entry) { e.Seq++; e.Carry = nil })
	if o.Err != nil || o.state() != "OPEN" || o.Decision.TripReason != breaker.TripLedgerTampered {
		t.Fatalf("after the forged link: err %v, %q; want OPEN ledger_tampered\n%s", o.Err, o.state(), o.stdout)
	}
	if o := r.comment(8, "alice", "/breaker reset"); o.state() != "CLOSED" {
		t.Fatalf("the maintainer's reset: %q\n%s", o.state(), o.stdout)
	}
	r.commit("Tidy the login")
	r.results(pass)
	r.open(8, "people/fix-login")
	if o := r.push("people/fix-login"); o.state() != "CLOSED" {
		t.Errorf("the person's next passing push: %q; want CLOSED\n%s", o.state(), o.stdout)
	}
}

// The same forged link on a copy of the entry at its own place (one push
// with the true entry): a run that starts from the true entry's carry
// never follows it, and finishes, the person's passing push CLOSED.
func TestReset_AForgedLinkBesideTheCarryIsNotFollowed(t *testing.T) {
	t.Parallel()
	o := forgedLinkPush(t, newRig(t), func(*ledger.Entry) {})
	if o.Err != nil || o.state() != "CLOSED" || !strings.Contains(o.stdout, "the newest entry's carry folds") {
		t.Fatalf("after the forged copy: err %v, %q; want CLOSED, started from the carry\n%s", o.Err, o.state(), o.stdout)
	}
}
