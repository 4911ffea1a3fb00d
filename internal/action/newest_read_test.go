package action_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// graphQLSince is how many GraphQL queries the fake received after the
// first n.
func (r *rig) graphQLSince(n int) int {
	k := 0
	for _, q := range r.srv.GraphQLQueries()[n:] {
		if !isAgentLookup(q) {
			k++
		}
	}
	return k
}

// isAgentLookup says a GraphQL query is the run's one look at the agent's
// other pull requests (issue 46), which every judged push of a pull
// request makes beside its ledger read.
func isAgentLookup(q string) bool { return strings.Contains(q, "pullRequests(first: 30") }

// A push to a long pull request reads its ledger in one query (the newest
// 100 commits) once the push's before has an entry there, signed or not,
// and decides as the run that reads every page does: the same state and
// count at every push, the third failing push OPEN (issue 29). With
// ledger-read: every-page every page is read. The same on pull_request
// events, whose synchronize says before too.
func TestNewestRead_OneQueryOnALongPullRequest(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"push", "pull_request"} {
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			oneQueryOnALongPullRequest(t, event)
		})
	}
}

func oneQueryOnALongPullRequest(t *testing.T, event string) {
	type seen struct {
		state   string
		failed  int
		queries int
		points  int
	}
	line := func(setup string) []seen {
		r := lineRig(t, setup, "agent/fix-login")
		r.commitMany("agent/fix-login", 180)
		var out []seen
		for i := range 4 {
			r.commit("Fix the login, take "+string(rune('1'+i)), "")
			r.results(map[string]string{"TestLogin": "fail", "TestLogout": "pass"})
			pr := r.open(7, "agent/fix-login")
			n := len(r.srv.GraphQLCosts())
			var o outcome
			switch {
			case event == "push":
				o = r.push("agent/fix-login")
			case i == 0:
				o = r.pullRequest("opened", pr)
			default:
				o = r.pullRequest("synchronize", pr)
			}
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
			}
			points := 0
			for _, c := range r.srv.GraphQLCosts()[n:] {
				points += c
			}
			out = append(out, seen{o.state(), o.Decision.TotalFailed, r.graphQLSince(n), points})
		}
		return out
	}
	whole := line(everyPage)
	for _, setup := range []string{rigKey, unsigned} {
		name := map[bool]string{true: "keyed", false: "unsigned"}[setup != unsigned]
		got := line(setup)
		for i := range got {
			if got[i].state != whole[i].state || got[i].failed != whole[i].failed {
				t.Errorf("%s push %d: %+v, every page %+v; want the same decision", name, i+1, got[i], whole[i])
			}
			if whole[i].queries < 2 {
				t.Errorf("push %d with ledger-read: every-page: %d queries; want every page of 180+ commits (2 or more)", i+1, whole[i].queries)
			}
		}
		// The first push has no before (a new branch, an opened pull
		// request): every page.
		if got[0].queries < 2 {
			t.Errorf("%s: the first push: %d queries; want every page (it has no before)", name, got[0].queries)
		}
		for i, s := range got[1:] {
			// A synchronize of a pull request longer than a page reads 50
			// of before's commits too, within the 5 points of issue 29.
			if s.queries != 1 || s.points > 5 {
				t.Errorf("%s push %d: %d GraphQL queries, %d points; want 1 (the newest 100 commits hold the line), 5 points at most", name, i+2, s.queries, s.points)
			}
		}
		if got[2].state != "OPEN" || got[3].state != "OPEN" {
			t.Errorf("%s pushes: %+v; want OPEN from the third failing push", name, got)
		}
	}
}

// An entry written late — its run still going when the next push was
// judged, the push after that adding over 100 commits — is not lost to a
// read of the newest commits: the next run names the head it found no
// entry at (the push's before), so the run after that follows the name
// past the newest 100 commits, reads every page, and counts the late
// observation.
func TestNewestRead_ALateEntryIsStillCounted(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["ledger-key"] = "a-ledger-key-of-the-rig-0123"
	r.git("checkout", "-q", "-b", "agent/fix-login")
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}

	// X is pushed; its run is still going when the next push comes.
	late := r.commit("Fix the login, take 1", "")
	lateEvent := r.payload("push.json")
	lateEvent["ref"], lateEvent["after"], lateEvent["before"], lateEvent["forced"] = "refs/heads/agent/fix-login", late, "0000000000000000000000000000000000000000", false
	r.giveCommits(late)
	r.srv.SetRef("heads/agent/fix-login", late)

	r.commitMany("agent/fix-login", 120)
	y := r.commit("Fix the login, take 2", "")
	r.results(fail)
	r.open(7, "agent/fix-login")
	if o := r.push("agent/fix-login"); o.state() != "CLOSED" {
		t.Fatalf("the push after the late one: %q; want CLOSED (one failed push seen)\n%s", o.state(), o.stdout)
	}
	ye, err := ledger.Decode(r.checkRun(y).Text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ye.PrevHeads, func(h string) bool { return breaker.SameSHA(h, late) }) {
		t.Errorf("the entry at %s names %v; want the late head %s, which had no entry yet", breaker.ShortSHA(y), ye.PrevHeads, breaker.ShortSHA(late))
	}

	// The late run finishes and writes its entry.
	r.results(fail)
	if o := r.run("push", lateEvent); o.Err != nil {
		t.Fatalf("the late run: %v\n%s", o.Err, o.stdout)
	}

	r.commit("Fix the login, take 3", "")
	r.results(fail)
	r.open(7, "agent/fix-login")
	n := len(r.srv.GraphQLCosts())
	o := r.push("agent/fix-login")
	heads := []string{}
	for _, p := range o.Decision.Pushes {
		heads = append(heads, breaker.ShortSHA(p.Head))
	}
	if !slices.Contains(heads, breaker.ShortSHA(late)) || o.state() != "OPEN" {
		t.Errorf("the next push: state %q, pushes %v; want OPEN (three failed pushes) with the late head %s counted\n%s", o.state(), heads, breaker.ShortSHA(late), o.stdout)
	}
	if q := r.graphQLSince(n); q < 2 {
		t.Errorf("the next push read %d GraphQL queries; want every page (the late head is past the newest 100 commits)", q)
	}
}

// A keyed push reads every page when the newest 100 commits may not hold
// the whole line, saying why in the log, and decides as the full read
// does: a line that records a reset (checking it needs every commit's
// author), a check run of the breaker that holds no entry. A push of more
// than 100 commits does not: the same query reads its before's history,
// and it starts from the carry there.
func TestNewestRead_EveryPageWhenTheNewestMayNotBeTheLine(t *testing.T) {
	t.Parallel()
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	setup := func(t *testing.T) *rig {
		r := newRig(t)
		r.inputs["ledger-key"] = "a-ledger-key-of-the-rig-0123"
		r.git("checkout", "-q", "-b", "agent/fix-login")
		r.commitMany("agent/fix-login", 150)
		return r
	}
	push := func(r *rig) (outcome, int) {
		r.t.Helper()
		r.results(fail)
		r.open(7, "agent/fix-login")
		n := len(r.srv.GraphQLCosts())
		o := r.push("agent/fix-login")
		if o.Err != nil || o.Decision == nil {
			r.t.Fatalf("push: %v\n%s", o.Err, o.stdout)
		}
		return o, r.graphQLSince(n)
	}
	everyPage := func(t *testing.T, o outcome, queries int, why string) {
		t.Helper()
		if queries < 2 || !strings.Contains(o.stdout, "read every page of the ledger: "+why) {
			t.Errorf("%d GraphQL queries; want every page (2 or more) and the log saying %q\n%s", queries, why, o.stdout)
		}
	}

	t.Run("a push of more than 100 commits", func(t *testing.T) {
		t.Parallel()
		r := setup(t)
		r.commit("Fix the login, take 1", "")
		push(r)
		r.commitMany("agent/fix-login", 120)
		r.commit("Fix the login, take 2", "")
		o, q := push(r)
		if q != 1 || !strings.Contains(o.stdout, "the newest entry's carry folds 0 pushes, and the 1 entries after it are there") {
			t.Errorf("%d GraphQL queries; want 1, starting from the carry of the push's before\n%s", q, o.stdout)
		}
		if o.Decision.FailedInARow != 2 {
			t.Errorf("failed in a row: %d; want 2 (both pushes read)", o.Decision.FailedInARow)
		}
	})

	t.Run("a reset on the line", func(t *testing.T) {
		t.Parallel()
		r := setup(t)
		for i := range 3 {
			r.commit("Fix the login, take "+string(rune('1'+i)), "")
			push(r)
		}
		if o := r.comment(7, "alice", "/breaker reset"); o.state() != "CLOSED" {
			t.Fatalf("the maintainer's reset: %q\n%s", o.state(), o.stdout)
		}
		r.commit("Fix the login, take 4", "")
		o, q := push(r)
		everyPage(t, o, q, "an entry records a reset")
		if o.state() != "CLOSED" || o.Decision.FailedInARow != 1 {
			t.Errorf("the push after the reset: %q, %d failed in a row; want CLOSED and 1 (judged afresh)", o.state(), o.Decision.FailedInARow)
		}
	})

	t.Run("a check run that holds no entry", func(t *testing.T) {
		t.Parallel()
		r := setup(t)
		head := r.commit("Fix the login, take 1", "")
		push(r)
		r.srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: head, Conclusion: "success", Text: "nothing to see",
			AppID: ghfake.ActionsAppID, AppSlug: ghfake.ActionsAppSlug})
		r.commit("Fix the login, take 2", "")
		o, q := push(r)
		everyPage(t, o, q, "a check run of the breaker holds no entry")
		if o.state() != "OPEN" || o.Decision.TripReason != breaker.TripLedgerTampered {
			t.Errorf("after the junk check run: %q %s; want OPEN ledger_tampered", o.state(), o.Decision.TripReason)
		}
	})
}
