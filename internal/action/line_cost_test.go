package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// Every push along a long line costs what the steady push costs (issue
// 50): 300 pushes of two commits each (600 commits; the line's
// express-link entries end up hundreds of commits behind the head, out of
// the read of the newest 100), each judged by a run that writes its entry,
// keyed. After the first, every push reads the ledger in one GraphQL query
// of at most 5 points and makes at most 3 reads (the push's pull request,
// the ledger, the agent's other pull requests) and 5 requests in all (the
// check run, the comment kept in place; the push that first posts it reads
// the comments back once, as two runs may race to post) — the 64th,
// 128th, 192nd and 256th too, whose entries name an entry 64 below them
// (ledger.SkipBase²): the relay carries it.
func TestLineCost_EveryPushAlongA300PushLine(t *testing.T) {
	t.Parallel()
	r := lineRig(t, rigKey, "agent/fix-login")
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	const pushes = 300
	type cost struct{ queries, points, calls int }
	worst, at := cost{}, map[string]int{}
	var heads []string
	for i := range pushes {
		heads = append(heads, r.commitMany("agent/fix-login", 2))
		r.results(fail)
		r.open(7, "agent/fix-login")
		r.srv.SetGraphQLRemaining(ghfake.DefaultGraphQLLimit) // a push an hour: the budget is not what is measured
		q, calls := len(r.srv.GraphQLCosts()), r.srv.CallCount()
		o := r.push("agent/fix-login")
		if o.Err != nil || o.Decision == nil {
			t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
		}
		if i == 0 {
			continue // no before: every page
		}
		c := cost{r.graphQLSince(q), 0, r.srv.CallCount() - calls}
		for _, p := range r.srv.GraphQLCosts()[q:] {
			c.points += p
		}
		reads, posted := 0, false
		for _, call := range r.srv.Calls()[calls:] {
			switch {
			case call.Method == "GET" && strings.HasSuffix(call.Path, "/comments") && posted:
				c.calls-- // the one read-back after posting the comment
			case call.Method == "GET" || call.Path == "/graphql":
				reads++
			case call.Method == "POST" && strings.HasSuffix(call.Path, "/comments"):
				posted = true
			}
		}
		for what, v := range map[string]int{"queries": c.queries, "points": c.points, "calls": c.calls} {
			if v > map[string]int{"queries": worst.queries, "points": worst.points, "calls": worst.calls}[what] {
				at[what] = i + 1
			}
		}
		worst = cost{max(worst.queries, c.queries), max(worst.points, c.points), max(worst.calls, c.calls)}
		if c.queries != 1 || c.points > 5 || reads > 3 || c.calls > 5 {
			t.Errorf("push %d: %d ledger queries, %d points, %d reads, %d requests; want 1, 5 at most, 3 at most, 5 at most\n%s", i+1, c.queries, c.points, reads, c.calls, why(o.stdout))
		}
	}
	// The express links are named: each entry at a multiple of 64 names
	// the head 64 pushes below it, as a run that read every page would.
	for _, p := range []int{128, 192, 256} {
		e, err := ledger.Decode(r.checkRun(heads[p-1]).Text)
		if err != nil {
			t.Fatal(err)
		}
		if e.Seq != p || !slices.ContainsFunc(e.PrevHeads, func(h string) bool { return breaker.SameSHA(h, heads[p-65]) }) {
			t.Errorf("the entry of push %d: place %d, names %d heads; want place %d and push %d's head, 64 below", p, e.Seq, len(e.PrevHeads), p, p-64)
		}
	}
	t.Logf("the worst of pushes 2-%d: %d ledger queries (push %d), %d points (push %d), %d requests (push %d)",
		pushes, worst.queries, at["queries"], worst.points, at["points"], worst.calls, at["calls"])
}

// why is the log's line that says why a run did not start from a carry.
func why(stdout string) string {
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "not starting from the newest entry's carry") || strings.Contains(l, "read every page") {
			return l
		}
	}
	return fmt.Sprintf("(%d bytes of log, no reason given)", len(stdout))
}
