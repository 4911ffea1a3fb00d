package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// foldLine is a line of work that makes the carry do its work: one test
// fixed per push for a while (progress: CLOSED), a flaky test that flips
// early (its flip is in the carry by the end), a push whose results are
// missing, then the same tests failing push after push (a trip after the
// carry holds the early pushes). Each push is the statuses of its tests,
// nil for a push without results.
func foldLine() []map[string]string {
	var out []map[string]string
	for i := 0; i < 24; i++ {
		if i == 9 {
			out = append(out, nil)
			continue
		}
		st := map[string]string{}
		fixed := min(i, 17) // tests T00..fixed-1 pass
		for k := 0; k < 20; k++ {
			st[fmt.Sprintf("T%02d", k)] = map[bool]string{true: "pass", false: "fail"}[k < fixed]
		}
		st["TestFlaky"] = map[bool]string{true: "fail", false: "pass"}[i == 2 || i == 4]
		out = append(out, st)
	}
	return out
}

// The ledgers a line of work runs with: signed (rigKey) or unsigned, a run
// starts from the newest entry's carry when it stands for the line;
// everyPage (unsigned, ledger-read: every-page) reads the whole ledger at
// every run, the reference both must decide as.
const (
	rigKey    = "a-ledger-key-of-the-rig-0123"
	unsigned  = ""
	everyPage = "every-page"
)

// pushCommits pushes the line's commits to a pull request, push i's made
// by commits, one run each with inputs given to the Action as well, and
// returns each run's outcome and GraphQL queries.
func pushCommits(t *testing.T, setup string, line []map[string]string, commits func(r *rig, i int), inputs map[string]string) ([]outcome, []int) {
	r := lineRig(t, setup, "agent/fix-login")
	for k, v := range inputs {
		r.inputs[k] = v
	}
	var outs []outcome
	var queries []int
	for i, st := range line {
		commits(r, i)
		r.resultsOrNone(st)
		r.open(7, "agent/fix-login")
		n := len(r.srv.GraphQLCosts())
		o := r.push("agent/fix-login")
		if o.Err != nil || o.Decision == nil {
			t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
		}
		outs, queries = append(outs, o), append(queries, r.graphQLSince(n))
	}
	return outs, queries
}

// lineRig is a rig on a new branch, with the ledger of setup: a key, none
// (unsigned) or everyPage.
func lineRig(t *testing.T, setup, branch string) *rig {
	t.Helper()
	r := newRig(t)
	r.ledgerSetup(setup)
	r.git("checkout", "-q", "-b", branch)
	return r
}

// ledgerSetup gives the rig the ledger of setup: a key, none (unsigned) or
// everyPage.
func (r *rig) ledgerSetup(setup string) {
	delete(r.inputs, "ledger-key")
	switch setup {
	case unsigned:
	case everyPage:
		r.inputs["ledger-read"] = "every-page"
	default:
		r.inputs["ledger-key"] = setup
	}
}

// resultsOrNone writes the results of statuses, or removes the result
// file for a push whose results are missing (nil).
func (r *rig) resultsOrNone(statuses map[string]string) {
	r.t.Helper()
	if statuses == nil {
		if err := os.Remove(filepath.Join(r.dir, "junit.xml")); err != nil && !os.IsNotExist(err) {
			r.t.Fatal(err)
		}
		return
	}
	r.results(statuses)
}

// judged is the part of a decision two reads of one line must agree on.
func judged(d breaker.Decision) string {
	var ps []string
	for _, p := range d.Pushes {
		ps = append(ps, fmt.Sprintf("%s:%v/%v/%v%v", breaker.ShortSHA(p.Head), p.Failed, p.Progress, p.Counted, p.Failing))
	}
	var as []string
	for _, a := range d.Attempts {
		as = append(as, fmt.Sprintf("%d:%s:%s/%s", a.Number, a.Test, a.Result, a.Source))
	}
	for _, s := range d.Tests {
		as = append(as, fmt.Sprintf("%s=%d", s.Name, s.FailedAttempts))
	}
	return fmt.Sprintf("%s %s total=%d in-a-row=%d earlier=%+v flaky=%v pushes=%s attempts=%s", d.State, d.TripReason, d.TotalFailed,
		d.FailedInARow, d.Earlier, strings.Contains(strings.Join(d.Notes, " "), "flaky across pushes"), strings.Join(ps, " "), strings.Join(as, " "))
}

// sameAsEveryPage pushes the line keyed, unsigned and reading every page
// (commits makes push i's commits; inputs are given to every run), and
// checks that each keyed and unsigned push decides as the every-page one
// (judge: the part of a decision they must agree on) and reads one
// GraphQL query, after the first, at every push one says. It returns the
// keyed and unsigned runs' outcomes, by name, and the every-page ones.
func sameAsEveryPage(t *testing.T, line []map[string]string, commits func(r *rig, i int), inputs map[string]string,
	judge func(breaker.Decision) string, one func(i int) bool) (map[string][]outcome, []outcome) {
	t.Helper()
	whole, _ := pushCommits(t, everyPage, line, commits, inputs)
	out := map[string][]outcome{}
	for _, setup := range []string{rigKey, unsigned} {
		outs, qs := pushCommits(t, setup, line, commits, inputs)
		name := map[bool]string{true: "keyed", false: "unsigned"}[setup != unsigned]
		for i := range line {
			if a, b := judge(*outs[i].Decision), judge(*whole[i].Decision); a != b {
				t.Errorf("%s push %d: from the carry\n  %s\nevery page\n  %s", name, i+1, a, b)
			}
			if i > 0 && one(i) && qs[i] != 1 {
				t.Errorf("%s push %d read %d GraphQL queries; want 1", name, i+1, qs[i])
			}
		}
		out[name] = outs
	}
	return out, whole
}

// everyPush says every push after the first reads one query.
func everyPush(int) bool { return true }

// A push starts from the carry of the line's newest entry and reads the
// entries after it from the one query of the newest commits, signed or
// not; it decides as the run that reads every page does, at every push
// (issue 29): the carry folds the pushes before the newest 15, the flip
// and the missing results among them.
func TestFoldRead_DecidesAsTheWholeLine(t *testing.T) {
	t.Parallel()
	line := foldLine()
	commits := func(r *rig, i int) { r.commit(fmt.Sprintf("Fix the cart, take %d", i+1)) }
	runs, whole := sameAsEveryPage(t, line, commits, nil, judged, everyPush)
	for name, outs := range runs {
		last := outs[len(line)-1]
		if !strings.Contains(last.stdout, "the newest entry's carry folds 8 pushes, and the 15 entries after it are there") {
			t.Errorf("%s: the last push did not start from a carry of 8 pushes:\n%s", name, last.stdout)
		}
		want := "ledger:  15 entries from check-runs and the carry of the 8 pushes before them, signed and verified"
		if name == "unsigned" {
			want = "ledger:  15 entries from check-runs and the carry of the 8 pushes before them, unsigned"
		}
		if !strings.Contains(last.stdout, want) {
			t.Errorf("%s: the report does not say what the read read (%q):\n%s", name, want, last.stdout)
		}
		if d := last.Decision; d.State != breaker.StateOpen || d.Earlier.Pushes != 8 || len(d.Pushes) != breaker.Window || d.Ledger.Folded != 8 {
			t.Errorf("%s: the last push: %s, %d earlier pushes and %d judged; want OPEN, 8 and %d", name, d.State, d.Earlier.Pushes, len(d.Pushes), breaker.Window)
		}
		if d := outs[16].Decision; d.State != breaker.StateClosed {
			t.Errorf("%s: push 17, the last that fixed a test: %s; want CLOSED", name, d.State)
		}
	}
	for i, o := range whole {
		if strings.Contains(o.stdout, "carry folds") || o.Decision.Ledger.Folded != 0 || o.Decision.Ledger.Entries != i {
			t.Errorf("ledger-read: every-page, push %d: read %d entries and a carry of %d; want every entry (%d), no carry:\n%s",
				i+1, o.Decision.Ledger.Entries, o.Decision.Ledger.Folded, i, o.stdout)
		}
	}
}

// Pushes of eight commits each: the newest 16 pushes span more than the
// newest 100 commits the read asks for, so each run's check run relays the
// entries the next one needs from far behind its head (ledger.EncodeRelay),
// and every push still reads one query, keyed or unsigned, deciding as
// every page does (issue 29); so does a push of 60 commits after them,
// which reads 50 of before's commits too.
func TestFoldRead_PushesOfSeveralCommits(t *testing.T) {
	t.Parallel()
	line := foldLine()
	commits := func(r *rig, i int) {
		n := 8
		if i == len(line)-1 {
			n = 60 // then a larger push: before's history holds the nearer entries
		}
		r.commitMany("agent/fix-login", n)
	}
	runs, _ := sameAsEveryPage(t, line, commits, nil, judged, everyPush)
	for name, outs := range runs {
		last := outs[len(line)-1]
		if !strings.Contains(last.stdout, "the newest entry's carry folds 8 pushes, and the 15 entries after it are there") {
			t.Errorf("%s: the last push did not start from a carry of 8 pushes:\n%s", name, last.stdout)
		}
	}
}

// A relay edited in the newest check run (with a key: its ids no longer
// verify) is ignored, said in the log: that push reads every page and
// decides as it would have.
func TestFoldRead_AnEditedRelayIsIgnored(t *testing.T) {
	t.Parallel()
	line := foldLine()[:20]
	r := lineRig(t, rigKey, "agent/fix-login")
	var o outcome
	for i, st := range line {
		if i == len(line)-1 {
			newest := r.checkRun(r.git("rev-parse", "HEAD"))
			if !strings.Contains(newest.Text, "greenlight-relay") {
				t.Fatalf("the newest check run relays nothing:\n%s", newest.Text)
			}
			edited := regexp.MustCompile(`"id":[0-9]+`).ReplaceAllString(newest.Text, `"id":99999`)
			r.srv.SetCheckRunText(newest.ID, edited)
		}
		r.commitMany("agent/fix-login", 8)
		r.resultsOrNone(st)
		r.open(7, "agent/fix-login")
		if o = r.push("agent/fix-login"); o.Err != nil || o.Decision == nil {
			t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
		}
	}
	if !strings.Contains(o.stdout, "holds a relay that does not read (relay block does not verify with the ledger key): ignored") ||
		!strings.Contains(o.stdout, "read every page") {
		t.Errorf("the push after the edited relay did not ignore it and read every page:\n%s", o.stdout)
	}
	if d := o.Decision; len(d.Ledger.Tampered) > 0 || d.Ledger.Entries != len(line)-1 || d.Ledger.Folded != 0 {
		t.Errorf("the push after the edited relay read %d entries and a carry of %d, tampered %v; want every entry (%d), none tampered (they verify)",
			d.Ledger.Entries, d.Ledger.Folded, d.Ledger.Tampered, len(line)-1)
	}
}

// An agent that declares its attempts is judged from the carry as well:
// each attempt once its push leaves the window, and the counts it left
// kept in the carry (issue 29). Every push names the test it fixes, every
// other push an attempt before its head (a failure, since a later attempt
// follows it), and three pushes claim a pass of T19, which CI fails at
// every push. Keyed and unsigned runs decide as the run that reads every
// page, in one query a push, and the third lie makes T19's count 3 though
// the first two were folded long before.
func TestFoldRead_DeclaredAttemptsFromTheCarry(t *testing.T) {
	t.Parallel()
	line := foldLine()
	commits := func(r *rig, i int) {
		test := fmt.Sprintf("Greenlight-Test: T%02d", max(min(i-1, 16), 0))
		if i%2 == 0 {
			r.commit(fmt.Sprintf("Try the cart, take %d", i+1), test)
		}
		r.commit(fmt.Sprintf("Fix the cart, take %d", i+1), test)
		if i == 2 || i == 6 || i == 20 {
			r.commit("Fix the totals", "Greenlight-Test: T19", "Greenlight-Result: pass")
		}
	}
	runs, _ := sameAsEveryPage(t, line, commits, nil, judged, everyPush)
	for name, outs := range runs {
		last := outs[len(line)-1]
		if !strings.Contains(last.stdout, "the newest entry's carry folds 8 pushes") {
			t.Errorf("%s: the last push did not start from a carry of 8 pushes:\n%s", name, last.stdout)
		}
		d := last.Decision
		if d.Earlier.Attempts == 0 || d.Earlier.FailedAttempts == 0 {
			t.Errorf("%s: the last push counts %+v earlier; want the folded attempts and failures", name, d.Earlier)
		}
		t19 := -1
		for _, s := range d.Tests {
			if s.Name == "T19" {
				t19 = s.FailedAttempts
			}
		}
		if t19 != 3 || d.State != breaker.StateOpen || len(d.Misreports) != 1 {
			t.Errorf("%s: the last push: %s, T19 at %d failed attempts, %d misreports; want OPEN, 3 and the one lie in the window", name, d.State, t19, len(d.Misreports))
		}
	}
}

// The entry a push writes keeps the carry its next run starts from, inside
// the MAC: 20 failing tests, 2 KB at most.
func TestFoldRead_TheEntryKeepsTheCarry(t *testing.T) {
	t.Parallel()
	line := foldLine()[:20]
	r := newRig(t)
	r.inputs["ledger-key"] = "a-ledger-key-of-the-rig-0123"
	r.git("checkout", "-q", "-b", "agent/fix-login")
	var head string
	for i, st := range line {
		head = r.commit(fmt.Sprintf("Fix the cart, take %d", i+1), "")
		r.resultsOrNone(st)
		r.open(7, "agent/fix-login")
		if o := r.push("agent/fix-login"); o.Err != nil {
			t.Fatalf("push %d: %v", i+1, o.Err)
		}
	}
	text := r.checkRun(head).Text
	e, err := ledger.Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	if !ledger.Verify(e, []byte("a-ledger-key-of-the-rig-0123")) || e.Carry == nil {
		t.Fatalf("the newest entry: verified %v, carry %+v", ledger.Verify(e, []byte("a-ledger-key-of-the-rig-0123")), e.Carry)
	}
	c := e.Fold("")
	if c.Pushes != 5 || e.Carry.NewestEntries() != 15 || len(c.Tests) == 0 || !c.HadResults {
		t.Errorf("the carry: %d pushes folded, %d after, %d tests; want 5, 15 and the failing ones", c.Pushes, e.Carry.NewestEntries(), len(c.Tests))
	}
	if flaky := c.Tests["users.TestFlaky"]; flaky == nil || flaky.Flip != breaker.FlipFlips {
		t.Errorf("the carry's flaky test: %+v; want it known to flip", flaky)
	}
	if block := text[strings.Index(text, "<!--"):]; len(block) > 2048 {
		t.Errorf("the entry is %d bytes; want 2 KB at most", len(block))
	}
}

// A push reads every page, and says why, when the newest entry's carry
// cannot stand for the line, signed or not; it decides as a run that
// reads every page at every run does.
func TestFoldRead_EveryPageWhenTheCarryCannotStand(t *testing.T) {
	t.Parallel()
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	cases := map[string]struct {
		last func(r *rig, prev string) outcome // the last push, after two failing ones (prev the first's head)
		why  string
	}{
		"another policy": {func(r *rig, prev string) outcome {
			r.commit("Fix the login")
			r.results(fail)
			r.open(7, "agent/fix-login")
			r.inputs["policy"] = "bmad"
			return r.push("agent/fix-login")
		}, "the decision is not one a carry holds"},
		"a new test": {func(r *rig, prev string) outcome {
			r.commit("Fix the login, and test the session", "")
			r.results(map[string]string{"TestLogin": "fail", "TestLogout": "pass", "TestSession": "fail"})
			r.open(7, "agent/fix-login")
			return r.push("agent/fix-login")
		}, "this run's tests are not the ones the newest push with results ran"},
		"a re-run of the head": {func(r *rig, prev string) outcome {
			r.results(fail)
			head := r.git("rev-parse", "HEAD")
			p := r.payload("push.json")
			p["ref"], p["after"], p["before"], p["forced"] = "refs/heads/agent/fix-login", head, prev, false
			return r.run("push", p)
		}, "this head was observed before"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var states []string
			for _, setup := range []string{rigKey, unsigned, everyPage} {
				r := lineRig(t, setup, "agent/fix-login")
				var heads []string
				for i := 0; i < 2; i++ {
					heads = append(heads, r.commit(fmt.Sprintf("Fix the login, take %d", i+1), ""))
					r.results(fail)
					r.open(7, "agent/fix-login")
					if o := r.push("agent/fix-login"); o.Err != nil {
						t.Fatal(o.Err)
					}
				}
				o := c.last(r, heads[0])
				if o.Err != nil || o.Decision == nil {
					t.Fatalf("the last push: %v\n%s", o.Err, o.stdout)
				}
				if setup != everyPage && !strings.Contains(o.stdout, c.why) {
					t.Errorf("%q: the log does not say %q:\n%s", setup, c.why, o.stdout)
				}
				if strings.Contains(o.stdout, "the newest entry's carry folds") && !strings.Contains(o.stdout, "read every page") {
					t.Errorf("%q: started from the carry:\n%s", setup, o.stdout)
				}
				states = append(states, judged(*o.Decision))
			}
			if states[0] != states[2] || states[1] != states[2] {
				t.Errorf("keyed\n  %s\nunsigned\n  %s\nevery page\n  %s\nwant the same decision", states[0], states[1], states[2])
			}
		})
	}
}

// A trip, a maintainer's reset, and the line goes on: the pushes while the
// reset is among the newest 15 entries read every page (checking a reset
// needs every commit's author), and once it is folded into the carry the
// keyed pushes start from the carry again, deciding as a run that reads
// every page. Unsigned pushes go on reading every page: without a key a
// reset is checked against its comment at every run.
func TestFoldRead_AfterAResetTheCarryFoldsIt(t *testing.T) {
	t.Parallel()
	var lines [3][]string
	var last [3]outcome
	for n, setup := range []string{rigKey, unsigned, everyPage} {
		r := lineRig(t, setup, "copilot/fix-login")
		r.tripOn(7, "copilot/fix-login")
		if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.state() != "CLOSED" {
			t.Fatalf("the reset: %q\n%s", o.state(), o.stdout)
		}
		for i := 0; i < 18; i++ {
			r.commit(fmt.Sprintf("Fix the login, take %d", i+1), "")
			r.results(map[string]string{"TestLogin": "fail", "TestLogout": map[bool]string{true: "fail", false: "pass"}[i%5 == 0]})
			r.open(7, "copilot/fix-login")
			o := r.push("copilot/fix-login")
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("push %d after the reset: %v\n%s", i+1, o.Err, o.stdout)
			}
			lines[n] = append(lines[n], judged(*o.Decision))
			last[n] = o
		}
	}
	for i := range lines[0] {
		if lines[0][i] != lines[2][i] || lines[1][i] != lines[2][i] {
			t.Errorf("push %d after the reset: keyed\n  %s\nunsigned\n  %s\nevery page\n  %s", i+1, lines[0][i], lines[1][i], lines[2][i])
		}
	}
	for n, name := range []string{"keyed", "unsigned"} {
		if !strings.Contains(last[n].stdout, "the newest entry's carry folds") || last[n].Decision.ResetSHA == "" {
			t.Errorf("the last %s push did not start from a carry that folded the reset (reset %q):\n%s", name, last[n].Decision.ResetSHA, last[n].stdout)
		}
	}
}

// Without a key the reset a carry folded is read back against its comment
// at every run (DESIGN §5): the run starts from the carry while the
// comment verifies (one query, and the comment and its author's
// permission read back); once the comment is edited the run reads the
// whole line, where the reset is not honoured, as every page decides.
func TestFoldRead_UnsignedCarryReadsItsResetBack(t *testing.T) {
	t.Parallel()
	var lines [2][]string
	var outs [2][]outcome
	for n, setup := range []string{unsigned, everyPage} {
		r := lineRig(t, setup, "copilot/fix-login")
		r.tripOn(7, "copilot/fix-login")
		if o := r.comment(7, "alice", "/breaker reset copilot-fix-login"); o.state() != "CLOSED" {
			t.Fatalf("the reset: %q\n%s", o.state(), o.stdout)
		}
		reset := r.srv.CommentsByAuthor(7, "alice")[0].ID
		for i := 0; i < 19; i++ {
			if i == 18 {
				r.srv.EditCommentAs(reset, "/breaker reset copilot-fix-login (edited)")
			}
			r.commit(fmt.Sprintf("Fix the login, take %d", i+1), "")
			r.results(map[string]string{"TestLogin": "fail", "TestLogout": map[bool]string{true: "fail", false: "pass"}[i%5 == 0]})
			r.open(7, "copilot/fix-login")
			n0 := len(r.srv.GraphQLCosts())
			o := r.push("copilot/fix-login")
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("%q push %d after the reset: %v\n%s", setup, i+1, o.Err, o.stdout)
			}
			if setup == unsigned && i == 17 && (r.graphQLSince(n0) != 1 || !strings.Contains(o.stdout, "the newest entry's carry folds")) {
				t.Errorf("the unsigned push before the edit read %d queries and did not start from the carry:\n%s", r.graphQLSince(n0), o.stdout)
			}
			lines[n] = append(lines[n], judged(*o.Decision))
			outs[n] = append(outs[n], o)
		}
	}
	for i := range lines[0] {
		if lines[0][i] != lines[1][i] {
			t.Errorf("push %d after the reset: unsigned\n  %s\nevery page\n  %s", i+1, lines[0][i], lines[1][i])
		}
	}
	edited := outs[0][18]
	if !strings.Contains(edited.stdout, "the reset it folded is not honoured (comment") || strings.Contains(edited.stdout, "the newest entry's carry folds") {
		t.Errorf("the unsigned push after the reset's comment was edited started from the carry:\n%s", edited.stdout)
	}
	if edited.Decision.ResetSHA != "" || edited.Decision.State != breaker.StateOpen {
		t.Errorf("after the edit: reset %q, %s; want no reset honoured, OPEN again", edited.Decision.ResetSHA, edited.Decision.State)
	}
}

// The hardened deployment's workflow_run says nothing of where the branch
// was before the push: the run takes the pull request's newest verified
// entry at one of its commits as the push before, starts from its carry,
// and decides as the same deployment reading every page, at every run
// (and so does the same deployment without a key).
func TestFoldRead_HardenedWorkflowRun(t *testing.T) {
	t.Parallel()
	line := foldLine()[:20]
	var judgedBy [3][]string
	var queries [2][]int
	var last [2]outcome
	for n, setup := range []string{rigKey, unsigned, everyPage} {
		r := newRig(t)
		r.hardened()
		r.ledgerSetup(setup)
		r.git("checkout", "-q", "-b", "agent/S-3")
		for i, st := range line {
			r.commit(fmt.Sprintf("Fix the cart, take %d", i+1), "")
			if st == nil {
				st = line[i-1] // the hardened run reads an artifact: one with the push before's results
			}
			junit := junitOf(st)
			q := len(r.srv.GraphQLCosts())
			o := r.workflowRun(int64(7000+i), r.open(7, "agent/S-3"), "failure", junit)
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("run %d: %v\n%s", i+1, o.Err, o.stdout)
			}
			judgedBy[n] = append(judgedBy[n], judged(*o.Decision))
			if setup != everyPage {
				queries[n], last[n] = append(queries[n], r.graphQLSince(q)), o
			}
		}
	}
	for i := range line {
		if judgedBy[0][i] != judgedBy[2][i] || judgedBy[1][i] != judgedBy[2][i] {
			t.Errorf("run %d: keyed\n  %s\nunsigned\n  %s\nevery page\n  %s", i+1, judgedBy[0][i], judgedBy[1][i], judgedBy[2][i])
		}
		for n, name := range []string{"keyed", "unsigned"} {
			if i > 0 && queries[n][i] != 1 {
				t.Errorf("%s run %d read %d GraphQL queries; want 1", name, i+1, queries[n][i])
			}
		}
	}
	for n, name := range []string{"keyed", "unsigned"} {
		if !strings.Contains(last[n].stdout, "the newest entry's carry folds 4 pushes") {
			t.Errorf("the last %s run did not start from the carry:\n%s", name, last[n].stdout)
		}
	}
}

// A run re-run (CI's "re-run jobs") observes its head again: the re-run
// reads every page, and the pushes after it start from the carry again at
// once, the head's two entries one push, deciding as a run that reads
// every page.
func TestFoldRead_ARerunIsOnePush(t *testing.T) {
	t.Parallel()
	line := foldLine()[:20]
	var judgedBy [3][]string
	var fromCarry [2]int
	for n, setup := range []string{rigKey, unsigned, everyPage} {
		r := lineRig(t, setup, "agent/fix-login")
		var prev string
		for i, st := range line {
			head := r.commit(fmt.Sprintf("Fix the cart, take %d", i+1), "")
			r.resultsOrNone(st)
			r.open(7, "agent/fix-login")
			o := r.push("agent/fix-login")
			if i == 4 { // the run of the fifth push, re-run
				p := r.payload("push.json")
				p["ref"], p["after"], p["before"], p["forced"] = "refs/heads/agent/fix-login", head, prev, false
				o = r.run("push", p)
			}
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
			}
			judgedBy[n] = append(judgedBy[n], judged(*o.Decision))
			if setup != everyPage && i > 5 && strings.Contains(o.stdout, "the newest entry's carry folds") {
				fromCarry[n]++
			}
			prev = head
		}
	}
	for i := range line {
		if judgedBy[0][i] != judgedBy[2][i] || judgedBy[1][i] != judgedBy[2][i] {
			t.Errorf("push %d: keyed\n  %s\nunsigned\n  %s\nevery page\n  %s", i+1, judgedBy[0][i], judgedBy[1][i], judgedBy[2][i])
		}
	}
	for n, name := range []string{"keyed", "unsigned"} {
		if fromCarry[n] != len(line)-6 {
			t.Errorf("%s: %d of the %d pushes after the re-run started from the carry; want all", name, fromCarry[n], len(line)-6)
		}
	}
}

// What a trip did on the pull request (on-trip-label, a review request)
// is done once, even after the trip's entry is folded into a carry: the
// carry says an entry before the newest ones recorded it, and the reset
// still undoes it.
func TestFoldRead_OnTripOnceAfterTheCarry(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["ledger-key"] = "a-ledger-key-of-the-rig-0123"
	r.inputs["on-trip-label"] = "breaker: stopped"
	r.inputs["on-trip-request-review"] = "bob"
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	r.tripOn(7, "copilot/fix-login")
	var last outcome
	for range 18 {
		last = r.failingPush(7, "copilot/fix-login")
		if last.state() != "OPEN" {
			t.Fatalf("a failing push after the trip: %q\n%s", last.state(), last.stdout)
		}
	}
	if !strings.Contains(last.stdout, "the newest entry's carry folds") {
		t.Fatalf("the last push did not start from the carry:\n%s", last.stdout)
	}
	if n := r.labelCalls(); n != 1 {
		t.Errorf("%d label requests over the trip and 18 pushes after it; want 1", n)
	}
	reviews := 0
	for _, c := range r.srv.Calls() {
		if c.Method == "POST" && strings.HasSuffix(c.Path, "/requested_reviewers") {
			reviews++
		}
	}
	if reviews != 1 {
		t.Errorf("%d review requests over the trip and 18 pushes after it; want 1", reviews)
	}
	if o := r.comment(7, "alice", "/breaker reset copilot-fix-login try the cache"); o.Err != nil {
		t.Fatalf("the reset: %v\n%s", o.Err, o.stdout)
	}
	if got := r.srv.Labels(7); slices.Contains(got, "breaker: stopped") {
		t.Errorf("after the reset the label is still on: %v", got)
	}
}

// The entry of a push keeps the status of every test its commits declare
// an attempt on, a pass of one that never failed included: a later run
// that reads the whole line judges an attempt folded at this push by it,
// as this run did (issue 29).
func TestFoldRead_TheEntryKeepsTheDeclaredTests(t *testing.T) {
	t.Parallel()
	r := lineRig(t, rigKey, "agent/fix-login")
	head := r.commit("Test the session", "Greenlight-Test: TestSession")
	r.results(map[string]string{"TestLogin": "fail", "TestSession": "pass", "TestLogout": "pass"})
	r.open(7, "agent/fix-login")
	if o := r.push("agent/fix-login"); o.Err != nil {
		t.Fatal(o.Err)
	}
	e, err := ledger.Decode(r.checkRun(head).Text)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, lt := range e.Tests {
		kept = append(kept, lt.FullName()+"="+string(lt.Status))
	}
	slices.Sort(kept)
	if want := []string{"users.TestLogin=fail", "users.TestSession=pass"}; !slices.Equal(kept, want) {
		t.Errorf("the entry keeps %v; want %v (the failure and the declared test, not every pass)", kept, want)
	}
}

// Under the bmad policy a push starts from the carry too, which holds its
// fold of the sessions: keyed and unsigned runs decide as every page does,
// in one query a push, list the newest 16 pushes' sessions and count the
// ones before.
func TestFoldRead_BMADFromTheCarry(t *testing.T) {
	t.Parallel()
	line := foldLine()
	commits := func(r *rig, i int) { r.commit(fmt.Sprintf("Fix the cart, take %d", i+1)) }
	bmad := map[string]string{"policy": "bmad", "threshold": "4"}
	judge := func(d breaker.Decision) string { return judged(d) + bmadJudged(d) }
	runs, _ := sameAsEveryPage(t, line, commits, bmad, judge, everyPush)
	for name, outs := range runs {
		last := outs[len(line)-1]
		if !strings.Contains(last.stdout, "the newest entry's carry folds 8 pushes") {
			t.Errorf("%s: the last push did not start from a carry of 8 pushes:\n%s", name, last.stdout)
		}
		st, _ := last.Decision.Detail.(*breaker.BMADState)
		if st == nil || st.EarlierSessions != 8 || len(st.Sessions) != 15 || st.Status != "TRIGGERED" {
			t.Errorf("%s: the last push's bmad state %+v; want TRIGGERED, 8 earlier sessions and the 15 of the newest 16 pushes that ran", name, st)
		}
	}
}

// Under the prp policy a push starts from the carry too, which holds its
// fold of the iterations under the phase: keyed and unsigned runs decide as
// every page does, in one query a push; a new phase reads the whole line.
func TestFoldRead_PRPFromTheCarry(t *testing.T) {
	t.Parallel()
	line := foldLine()
	commits := func(r *rig, i int) {
		if i == len(line)-1 {
			r.commit("Refactor the cart", "PRP-Phase: REFACTOR")
			return
		}
		r.commit(fmt.Sprintf("Fix the cart, take %d", i+1))
	}
	prp := map[string]string{"policy": "prp"}
	judge := func(d breaker.Decision) string { return judged(d) + prpJudged(d) }
	oldPhase := func(i int) bool { return i < len(line)-1 }
	runs, _ := sameAsEveryPage(t, line, commits, prp, judge, oldPhase)
	for name, outs := range runs {
		if o := outs[len(line)-2]; !strings.Contains(o.stdout, "the newest entry's carry folds 7 pushes") {
			t.Errorf("%s: the push before the last did not start from a carry of 7 pushes:\n%s", name, o.stdout)
		}
		if o := outs[len(line)-1]; strings.Contains(o.stdout, "the newest entry's carry folds") && !strings.Contains(o.stdout, "read every page") {
			t.Errorf("%s: the push in a new phase started from a carry folded in the old one:\n%s", name, o.stdout)
		}
	}
}

// Under the liza policy a push starts from the carry too, which holds its
// fold of the failures (how many pushes each test failed at, its error
// pattern, when it last failed): keyed and unsigned runs decide as every
// page does, in one query a push, the retry loops of the folded pushes
// included.
func TestFoldRead_LizaFromTheCarry(t *testing.T) {
	t.Parallel()
	line := foldLine()
	commits := func(r *rig, i int) { r.commit(fmt.Sprintf("Fix the cart, take %d", i+1)) }
	judge := func(d breaker.Decision) string { return judged(d) + lizaJudged(d) }
	runs, _ := sameAsEveryPage(t, line, commits, map[string]string{"policy": "liza"}, judge, everyPush)
	for name, outs := range runs {
		last := outs[len(line)-1]
		if !strings.Contains(last.stdout, "the newest entry's carry folds 8 pushes") {
			t.Errorf("%s: the last push did not start from a carry of 8 pushes:\n%s", name, last.stdout)
		}
		st, _ := last.Decision.Detail.(*breaker.LizaState)
		loops := map[string]string{}
		for _, a := range st.Anomalies {
			loops[a.Task] = a.Details["count"]
		}
		// T17 failed at every push (23 with results), TestFlaky at 2.
		if st.Status != "TRIGGERED" || loops["users.T17"] != "23" || loops["users.TestFlaky"] != "" {
			t.Errorf("%s: the last push's liza state %s, retry loops %v; want TRIGGERED, users.T17 at 23 pushes, none for users.TestFlaky", name, st.Status, loops)
		}
	}
}

// lizaJudged is the part of a liza decision two reads must agree on.
func lizaJudged(d breaker.Decision) string {
	st, ok := d.Detail.(*breaker.LizaState)
	if !ok {
		return " (not liza)"
	}
	var as []string
	for _, a := range st.Anomalies {
		as = append(as, fmt.Sprintf("%s:%s:%s:%v", a.Task, a.Timestamp, a.Type, a.Details))
	}
	return fmt.Sprintf(" liza=%s %s %s matches=%v anomalies=%s", st.Status, st.Pattern, st.Severity, st.Matches, strings.Join(as, " "))
}

// prpJudged is the part of a prp decision two reads must agree on.
func prpJudged(d breaker.Decision) string {
	st, ok := d.Detail.(*breaker.PRPState)
	if !ok {
		return " (not prp)"
	}
	var hs []string
	for _, h := range st.History {
		hs = append(hs, h.Event+":"+h.ToState+":"+h.Reason)
	}
	return fmt.Sprintf(" prp=%s/%s iterations=%d no-progress=%d same-error=%d hash=%s passing=%d/%d changed=%v opened=%v %q error=%q history=%s",
		st.Phase, st.State, st.Iterations, st.NoProgressCount, st.SameErrorCount, st.LastErrorHash, st.TestsPassing, st.TestsTotal,
		st.PassingChanged, st.OpenedAt, st.OpenReason, st.LastError, strings.Join(hs, " "))
}

// bmadJudged is the part of a bmad decision two reads must agree on.
func bmadJudged(d breaker.Decision) string {
	st, ok := d.Detail.(*breaker.BMADState)
	if !ok {
		return " (not bmad)"
	}
	var ss []string
	for _, s := range st.Sessions {
		ss = append(ss, fmt.Sprintf("%s:%v%v", breaker.ShortSHA(s.Head), s.Succeeded, s.NewlyPassing))
	}
	return fmt.Sprintf(" bmad=%s %d/%d/%d earlier=%d failing=%v sessions=%s", st.Status, st.Succeeded, st.Failed, st.ConsecutiveFailures,
		st.EarlierSessions, st.FailingTests, strings.Join(ss, " "))
}

// Force pushes over a line that declares its attempts: an amended head
// keeps the carry's edge (the run starts from the carry), a rewrite past
// it does not (the carry read with the before's history is refused, a
// declared attempt being no decision a carry holds, and the run reads the
// whole line, here one page).
// Keyed and unsigned runs decide as every page does.
func TestFoldRead_DeclaredAttemptsAfterForcePushes(t *testing.T) {
	t.Parallel()
	line := foldLine()[:20]
	var states [3][]string
	var logs [3][]string
	for k, setup := range []string{rigKey, unsigned, everyPage} {
		r := lineRig(t, setup, "agent/fix-login")
		push := func(st map[string]string) {
			t.Helper()
			r.resultsOrNone(st)
			r.open(7, "agent/fix-login")
			o := r.push("agent/fix-login")
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("%q: %v\n%s", setup, o.Err, o.stdout)
			}
			states[k] = append(states[k], judged(*o.Decision))
			logs[k] = append(logs[k], o.stdout)
		}
		for i, st := range line {
			r.commit(fmt.Sprintf("Fix the cart, take %d", i+1), fmt.Sprintf("Greenlight-Test: T%02d", max(min(i-1, 16), 0)))
			push(st)
		}
		// The agent amends its newest commit and force-pushes.
		old := r.git("rev-parse", "HEAD")
		r.git("commit", "-q", "--amend", "-m", "Fix the cart, take 20 again\n\nGreenlight-Test: T16")
		r.srv.AddForcePush(7, old)
		push(line[19])
		// Then it rewrites the branch from 18 commits back.
		old = r.git("rev-parse", "HEAD")
		r.git("reset", "-q", "--hard", "HEAD~18")
		r.commit("Start the cart over", "Greenlight-Test: T01")
		r.srv.AddForcePush(7, old)
		push(line[19])
	}
	for i := range states[2] {
		for k, name := range []string{"keyed", "unsigned"} {
			if states[k][i] != states[2][i] {
				t.Errorf("%s push %d: from the carry\n  %s\nevery page\n  %s", name, i+1, states[k][i], states[2][i])
			}
		}
	}
	for k, name := range []string{"keyed", "unsigned"} {
		n := len(logs[k])
		if amended := logs[k][n-2]; !strings.Contains(amended, "the newest entry's carry folds") || strings.Contains(amended, "read every page") {
			t.Errorf("%s: the amended push did not start from the carry:\n%s", name, amended)
		}
		if rewritten := logs[k][n-1]; !strings.Contains(rewritten, "read every page of the ledger") {
			t.Errorf("%s: the push that rewrote the carry's edge away did not read the whole line:\n%s", name, rewritten)
		}
	}
}

// Two pushes whose runs finish in the same second (a concurrency group,
// runs side by side) keep their order in the line (issue 50): the runs
// after them start from the carry, and decide as every page does.
func TestFoldRead_TwoPushesInOneSecond(t *testing.T) {
	t.Parallel()
	line := foldLine()[:22]
	var judgedBy [3][]string
	var fromCarry [2]int
	for n, setup := range []string{rigKey, unsigned, everyPage} {
		r := lineRig(t, setup, "agent/fix-login")
		for i, st := range line {
			r.commit(fmt.Sprintf("Fix the cart, take %d", i+1), "")
			r.resultsOrNone(st)
			r.open(7, "agent/fix-login")
			r.hold = i == 5 // the sixth run finishes in the fifth's second
			o := r.push("agent/fix-login")
			if o.Err != nil || o.Decision == nil {
				t.Fatalf("push %d: %v\n%s", i+1, o.Err, o.stdout)
			}
			judgedBy[n] = append(judgedBy[n], judged(*o.Decision))
			if setup != everyPage && i > 5 && strings.Contains(o.stdout, "the newest entry's carry folds") {
				fromCarry[n]++
			}
		}
	}
	for i := range line {
		if judgedBy[0][i] != judgedBy[2][i] || judgedBy[1][i] != judgedBy[2][i] {
			t.Errorf("push %d: keyed\n  %s\nunsigned\n  %s\nevery page\n  %s", i+1, judgedBy[0][i], judgedBy[1][i], judgedBy[2][i])
		}
	}
	for n, name := range []string{"keyed", "unsigned"} {
		if want := len(line) - 6; fromCarry[n] != want {
			t.Errorf("%s: %d of the %d pushes after the two in one second started from the carry; want all", name, fromCarry[n], want)
		}
	}
}
