package action_test

import (
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// Without a ledger key or an app, the agent's token writes check runs as
// the breaker does: it copies the breaker's entry on the tripped head, adds
// a reset, and posts it (issue 30). A reset counts only when the comment
// it names verifies at read time, so the agent's next failing push is
// still OPEN, whatever comment the forgery names.
func TestReset_AForgedResetRecordIsNotHonoured(t *testing.T) {
	t.Parallel()
	for _, names := range []string{"no comment", "a maintainer's other comment", "the agent's own command", "a reset comment already used"} {
		t.Run(names, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.git("checkout", "-q", "-b", "copilot/fix-login")
			head := r.tripOn(7, "copilot/fix-login")
			author, id := "alice", int64(0)
			switch names {
			case "a maintainer's other comment":
				r.srv.SetPermission("alice", "write")
				id = r.srv.AddComment(7, "alice", "Looks like the cache again.")
			case "the agent's own command":
				author, id = "agent-bot", r.srv.AddComment(7, "agent-bot", "/breaker reset copilot-fix-login")
			case "a reset comment already used":
				if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.state() != "CLOSED" {
					t.Fatalf("the genuine reset: %q\n%s", o.state(), o.stdout)
				}
				id = r.srv.CommentsByAuthor(7, "alice")[0].ID
				head = r.tripOn(7, "copilot/fix-login")
			}
			e, err := ledger.Decode(r.checkRun(head).Text)
			if err != nil {
				t.Fatal(err)
			}
			e.ObservedAt = e.ObservedAt.Add(30 * time.Minute)
			e.Reset = &ledger.Reset{Author: author, At: e.ObservedAt, CommentID: id}
			e.Verdict = ledger.Verdict{State: "CLOSED"}
			block, _ := ledger.Encode(e, nil)
			r.srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: head, Conclusion: "success",
				Text: "The ledger entry of this head.\n\n" + block, AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})

			if o := r.failingPush(7, "copilot/fix-login"); o.state() != "OPEN" {
				t.Errorf("the push after a forged reset naming %s: %q; want still OPEN\n%s", names, o.state(), o.stdout)
			}
		})
	}
}
