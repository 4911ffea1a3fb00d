package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
)

// Progress that is real, through the Action over the ledger (an agent
// without trailers): the chi flip-flop and the logrus flaky suite trip; a
// real fix closes. Every result of every push is JUnit, as CI wrote it.
func TestProgress_ThroughTheAction(t *testing.T) {
	t.Parallel()
	seq := func(universe []string, failing ...[]string) []map[string]string {
		var out []map[string]string
		for _, f := range failing {
			m := map[string]string{}
			for _, u := range universe {
				m[u] = "pass"
			}
			for _, x := range f {
				m[x] = "fail"
			}
			out = append(out, m)
		}
		return out
	}
	chi := []string{"TestRoutes/a", "TestRoutes/b", "TestRoutes/c", "TestRoutes/d", "TestMux"}
	a, b, c, d := chi[0], chi[1], chi[2], chi[3]
	logrus := []string{"TestEntryPanic", "TestOrderDependent", "TestFormatter"}
	// A suite of 3,002 tests, two of which take turns failing: A fails,
	// passes and fails again by the third push, so its pass at the second
	// was no progress after all.
	large := []string{"TestCheckoutA", "TestCheckoutB"}
	for i := range 3000 {
		large = append(large, fmt.Sprintf("TestCatalog_%04d", i))
	}
	osA, osB := large[0], large[1]
	for _, tc := range []struct {
		name   string
		pushes []map[string]string
		want   []int
		flaky  string // named flaky in the last push's summary
	}{
		{"chi flip-flop, subtests failing 1, 4, 3, 4, 3, 4, 3",
			seq(chi, []string{a}, []string{a, b, c, d}, []string{a, b, c}, []string{a, b, c, d}, []string{a, b, c}, []string{a, b, c, d}, []string{a, b, c}),
			[]int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped, cli.ExitTripped, cli.ExitTripped, cli.ExitTripped, cli.ExitTripped}, ""},
		{"logrus: stuck on one test while an order-dependent test flips",
			seq(logrus, []string{logrus[0], logrus[1]}, []string{logrus[0]}, []string{logrus[0], logrus[1]}, []string{logrus[0]}, []string{logrus[0], logrus[1]}, []string{logrus[0]}),
			[]int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped, cli.ExitTripped, cli.ExitTripped, cli.ExitTripped}, "TestOrderDependent"},
		{"oscillation in a suite of 3,002 tests",
			seq(large, []string{osA}, []string{osB}, []string{osA}, []string{osB}, []string{osA}),
			[]int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped, cli.ExitTripped, cli.ExitTripped}, ""},
		{"a real fix closes",
			seq(logrus, []string{logrus[0]}, []string{logrus[0]}, nil),
			[]int{cli.ExitClosed, cli.ExitClosed, cli.ExitClosed}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLedgerRun(t, "agent/fix")
			l.h.advance = true
			var res actionResult
			for i, statuses := range tc.pushes {
				res, _ = l.push(statuses)
				if res.code != tc.want[i] {
					t.Fatalf("push %d: exit %d, want %d (trip %q)\n%s", i+1, res.code, tc.want[i], res.outputs["trip-reason"], res.stdout)
				}
			}
			if tc.flaky != "" && !strings.Contains(res.summary, "flaky across pushes") {
				t.Errorf("the summary does not name the flaky test %s:\n%s", tc.flaky, res.summary)
			}
		})
	}
}

// An agent that claims a pass (Greenlight-Result: pass) on every push while
// CI sees TestLogin failing (its result named users.TestLogin): the claims
// from the ledger's pushes are misreports like this run's, and TestLogin
// reaches 3/3 at the third push.
func TestProgress_LyingPassClaimsFromTheLedger(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/S-3")
	l.h.advance = true
	var res actionResult
	for i := range 3 {
		res, _ = l.push(map[string]string{"TestLogin": "fail", "TestLogout": "pass"},
			"Greenlight-Slice: S-3", "Greenlight-Test: TestLogin", "Greenlight-Result: pass")
		if i < 2 && res.code != cli.ExitClosed {
			t.Fatalf("push %d: exit %d\n%s", i+1, res.code, res.stdout)
		}
	}
	if res.code != cli.ExitTripped || res.outputs["trip-reason"] != "per_test" {
		t.Fatalf("third push: exit %d, trip %q; want 42 per_test\n%s", res.code, res.outputs["trip-reason"], res.stdout)
	}
	rep := l.report()
	if len(rep.Misreports) != 3 {
		t.Errorf("%d misreports, want each of the three claims", len(rep.Misreports))
	}
}

// Missing results fail closed: after pushes with results, a glob that
// matches nothing (a typo) is a failed check every time and trips
// no_results on the third; a literal path that is missing is the same,
// with a check run; a run the tests step reports cancelled that left no
// results is results missing too (the agent's workflow may cancel itself),
// and one that left results is judged on them.
func TestResults_MissingFailClosed(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.advance = true
	res, _ := l.push(map[string]string{"TestLogin": "pass"})
	l.want(res, cli.ExitClosed, "")
	l.h.inputs["results"] = "test-result/**/*.xml" // the typo: matches nothing
	wants := []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped}
	for i, want := range wants {
		res, _ = l.push(map[string]string{"TestLogin": "pass"})
		if res.code != want {
			t.Fatalf("missing push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
		runs := l.h.srv.CheckRuns()
		if last := runs[len(runs)-1]; last.Conclusion != "failure" {
			t.Errorf("missing push %d: check run %q, want failure: missing results never pass", i+1, last.Conclusion)
		}
	}
	if res.outputs["trip-reason"] != "no_results" {
		t.Errorf("trip reason %q, want no_results", res.outputs["trip-reason"])
	}
	if !strings.Contains(strings.ReplaceAll(res.summary, `\`, ""), "test-result/**/*.xml") {
		t.Errorf("the summary does not name the glob that matched nothing:\n%s", res.summary)
	}

	c := newLedgerRun(t, "agent/fix")
	c.h.advance = true
	res, _ = c.push(map[string]string{"TestLogin": "pass"})
	c.want(res, cli.ExitClosed, "")
	c.h.inputs["results"] = "missing.xml" // a literal path
	for i := range 2 {
		res, _ = c.push(nil)
		c.want(res, cli.ExitClosed, "")
		if runs := c.h.srv.CheckRuns(); runs[len(runs)-1].Conclusion != "failure" || len(runs) != i+2 {
			t.Errorf("literal path missing, push %d: %d check runs, last %q; want one more, failure", i+1, len(runs), runs[len(runs)-1].Conclusion)
		}
	}
	c.h.inputs["tests-outcome"] = "cancelled"
	res, _ = c.push(nil)
	c.want(res, cli.ExitTripped, "no_results") // cancelled without results: the third
	if runs := c.h.srv.CheckRuns(); runs[len(runs)-1].Conclusion != "failure" {
		t.Errorf("a cancelled run without results: check %q, want failure", runs[len(runs)-1].Conclusion)
	}

	k := newLedgerRun(t, "agent/fix")
	k.h.advance = true
	k.h.inputs["tests-outcome"] = "cancelled"
	for i, want := range []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped} {
		res, _ = k.push(map[string]string{"TestLogin": "fail"})
		if res.code != want {
			t.Fatalf("cancelled after uploading failing results, push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
	}
}

// Three pushes that do not build (go test -json's build-fail, from a real
// run) trip on the third with the compiler's message; no test's count is
// raised, since a build error is no attempt on any test.
func TestResults_ThreePushesThatDoNotBuildTrip(t *testing.T) {
	t.Parallel()
	buildFail, err := os.ReadFile(filepath.Join("testdata", "results", "gotest-build-fail.json"))
	if err != nil {
		t.Fatal(err)
	}
	l := newLedgerRun(t, "agent/fix")
	l.h.advance = true
	l.h.inputs["results"] = "go-test.json"
	var res actionResult
	for i, want := range []int{cli.ExitClosed, cli.ExitClosed, cli.ExitTripped} {
		writeFile(t, filepath.Join(l.h.repo.Dir, "go-test.json"), string(buildFail))
		res, _ = l.push(nil, "Greenlight-Test: TestLogin")
		if res.code != want {
			t.Fatalf("push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
	}
	if res.outputs["trip-reason"] != "no_progress" || !strings.Contains(res.summary, "undefined: undefinedHelper") {
		t.Errorf("trip %q; want no_progress with the compiler's message in the summary:\n%s", res.outputs["trip-reason"], res.summary)
	}
	rep := l.report()
	for _, tt := range rep.Tests {
		if tt.FailedAttempts > 0 {
			t.Errorf("%s has %d failed attempts: a build error is no attempt on any test", tt.Name, tt.FailedAttempts)
		}
	}
}

// A test that already fails on the base (observed by the breaker's run on
// the default branch) and at every push of a pull request that otherwise
// makes progress: no trip, and the comment says it fails on the base too.
// Without the base's observation the same pushes trip, and the report says
// the base was not observed.
func TestProgress_TheBasesFailuresAreTheBases(t *testing.T) {
	t.Parallel()
	pushes := []map[string]string{
		{"TestToJSON": "fail", "TestLogin": "fail"},
		{"TestToJSON": "fail", "TestLogin": "pass"},
		{"TestToJSON": "fail", "TestLogin": "pass"},
		{"TestToJSON": "fail", "TestLogin": "pass"},
		{"TestToJSON": "fail", "TestLogin": "pass"},
	}
	for _, observed := range []bool{true, false} {
		t.Run(map[bool]string{true: "base observed", false: "base not observed"}[observed], func(t *testing.T) {
			t.Parallel()
			l := newLedgerRun(t, "agent/fix")
			l.h.advance = true
			if observed {
				main := l.h.repo.Git("rev-parse", "main")
				l.h.repo.JUnit("junit.xml", map[string]string{"TestToJSON": "fail", "TestLogin": "pass"})
				res := l.h.run("push", pushEvent(t, "main", main))
				if res.code != cli.ExitClosed {
					t.Fatalf("the default branch's push: exit %d\n%s", res.code, res.stdout)
				}
				if runs := l.h.srv.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != main || !strings.Contains(runs[0].Title, "1 failing") {
					t.Fatalf("the base observation: %+v", runs)
				}
			}
			var res actionResult
			for _, p := range pushes {
				res, _ = l.push(p)
			}
			if observed {
				l.want(res, cli.ExitClosed, "")
				if c := l.h.comments(7); len(c) != 0 && !strings.Contains(c[0].Body, "fails on the base too") {
					t.Errorf("the comment does not say the test fails on the base too:\n%s", c[0].Body)
				}
				if !strings.Contains(res.summary, "fails on the base too") {
					t.Errorf("the summary does not say the test fails on the base too:\n%s", res.summary)
				}
				return
			}
			l.want(res, cli.ExitTripped, "no_progress")
			if !strings.Contains(res.summary, "base commit was not observed") {
				t.Errorf("the summary does not say the base was not observed:\n%s", res.summary)
			}
		})
	}
}

// Trailers name tests as the runners' users write them — an it() title
// (jest), a pytest function and a pytest node id of a parametrized test —
// and trip per test at the third failing push, with CI's message. The
// result files are the real runners' (internal/testresult/testdata/runners).
func TestProgress_TrailerFormsOfRealRunnersTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, trailer, message string }{
		{"jest-junit.xml", "cart rejects expired code", "Expected value to strictly be equal to"},
		{"pytest-junit.xml", "test_escape", "assert '`' == '&#96;'"},
		{"pytest-junit.xml", "tests/test_escape.py::test_escape_backtick", "assert '`' == '&#96;'"},
	} {
		t.Run(tc.file+" "+tc.trailer, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("..", "testresult", "testdata", "runners", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			l := newLedgerRun(t, "agent/S-3")
			l.h.advance = true
			l.h.inputs["results"] = "runner.xml"
			var res actionResult
			for i := range 3 {
				writeFile(t, filepath.Join(l.h.repo.Dir, "runner.xml"), string(data))
				res, _ = l.push(nil, "Greenlight-Slice: S-3", "Greenlight-Test: "+tc.trailer)
				if want := map[bool]int{true: cli.ExitTripped, false: cli.ExitClosed}[i == 2]; res.code != want {
					t.Fatalf("push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
				}
			}
			if res.outputs["trip-reason"] != "per_test" {
				t.Errorf("trip %q, want per_test", res.outputs["trip-reason"])
			}
			if !strings.Contains(strings.ReplaceAll(res.summary, "&amp;", "&"), tc.message) {
				t.Errorf("the summary lacks CI's message %q:\n%s", tc.message, res.summary)
			}
		})
	}
}

// An agent that writes Test and Strategy trailers but no Slice (README step
// 2): the slice is the branch, as for an agent without trailers; the reset
// command the comment prints is accepted, resets, and rolls back.
func TestSlice_TrailersWithoutASliceUseTheBranch(t *testing.T) {
	t.Parallel()
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "copilot/fix-login")
	var res actionResult
	for i := range 3 {
		tr.h.repo.CommitFiles(fmt.Sprintf("Try the session cookie, take %d\n\nGreenlight-Test: TestLogin\nGreenlight-Strategy: take %d\n", i+1, i+1),
			map[string]string{fmt.Sprintf("internal/auth/fix%d.go", i): "package auth\n"})
		res, _ = tr.push(7, "copilot/fix-login", nil)
	}
	tr.want("the third push", res, cli.ExitTripped)
	if res.outputs["slice"] != "copilot-fix-login" {
		t.Fatalf("slice %q, want the branch's", res.outputs["slice"])
	}
	body := tr.h.comments(7)[0].Body
	var cmd string
	for _, line := range strings.Split(body, "\n") {
		if i := strings.Index(line, "/breaker reset "); i >= 0 {
			cmd = line[i:]
			if j := strings.IndexAny(cmd, "\"`<"); j >= 0 {
				cmd = cmd[:j]
			}
			break
		}
	}
	if !strings.HasPrefix(cmd, "/breaker reset copilot-fix-login") {
		t.Fatalf("the comment prints no reset command for the slice: %q\n%s", cmd, body)
	}
	cmd = strings.NewReplacer("[", "", "]", "", "&lt;guidance&gt;", "", "<guidance>", "").Replace(cmd)
	t.Logf("the printed command: %q", cmd)
	res = tr.reset(7, strings.TrimSpace(cmd)+" try the refresh token")
	if res.code != cli.ExitClosed || res.outputs["state"] != "CLOSED" {
		t.Fatalf("the printed command %q: exit %d, state %q\n%s", cmd, res.code, res.outputs["state"], res.stdout)
	}
	if head, ok := tr.h.srv.Ref("heads/copilot/fix-login"); !ok || head == tr.heads[7] {
		t.Errorf("the printed command's --rollback did not roll the branch back:\n%s", res.summary)
	}
}

// One push before a no_progress trip, a person sees it coming everywhere
// they look: "2/3 failed pushes in a row" in the comment, the step
// summary, the check title and the log, in plain words.
func TestDistance_TheNextTripIsVisible(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.advance = true
	l.push(map[string]string{"TestLogin": "fail"})
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitClosed, "")
	const want = "2/3 failed pushes in a row"
	runs := l.h.srv.CheckRuns()
	title := runs[len(runs)-1].Title
	for where, text := range map[string]string{"check title": title, "step summary": res.summary, "log": res.stdout} {
		if !strings.Contains(text, want) {
			t.Errorf("the %s lacks %q:\n%s", where, want, text)
		}
	}
	if c := l.h.comments(7); len(c) != 1 || !strings.Contains(c[0].Body, want) {
		t.Errorf("the comment lacks %q: %+v", want, c)
	}
	for _, raw := range []string{"no_progress", "1 failed pushes", "failed pushs"} {
		if strings.Contains(title, raw) {
			t.Errorf("the check title reads %q: %q", raw, title)
		}
	}
}

// Quiet until it matters (comment: on-failure, the default): a green first
// push posts nothing (the check run says success); a failing push one short
// of a trip posts the one comment; later pushes edit it, and a pass that
// leaves the slice CLOSED edits it to say so, never deletes it.
func TestComment_QuietUntilItMatters(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.advance = true
	step := func(name string, statuses map[string]string, comments int) actionResult {
		t.Helper()
		res, _ := l.push(statuses)
		if got := len(l.h.comments(7)); got != comments {
			t.Fatalf("%s: %d comments, want %d\n%s", name, got, comments, res.summary)
		}
		return res
	}
	step("a green first push", map[string]string{"TestLogin": "pass"}, 0)
	if runs := l.h.srv.CheckRuns(); runs[0].Conclusion != "success" {
		t.Errorf("the green push's check run is %q, want success", runs[0].Conclusion)
	}
	res := step("the first failing push (two short)", map[string]string{"TestLogin": "fail"}, 0)
	if !strings.Contains(res.summary, "no pull request comment yet") {
		t.Errorf("the summary does not say why there is no comment:\n%s", res.summary)
	}
	step("one short of a trip", map[string]string{"TestLogin": "fail"}, 1)
	step("a pass", map[string]string{"TestLogin": "pass"}, 1)
	body := l.h.comments(7)[0].Body
	if !strings.Contains(body, "CLOSED") {
		t.Errorf("after the pass the comment does not say CLOSED:\n%s", body)
	}
	if got := l.h.countCalls("DELETE", "/issues/comments/"); got != 0 {
		t.Errorf("%d comment deletions; the comment is edited, never deleted", got)
	}
}

// A green push after a trip: the comment says the tests pass and a reset
// is awaited, and no longer advises rolling back or skipping the test.
func TestComment_GreenPushWhileOpenAwaitsAReset(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.advance = true
	for range 3 {
		l.push(map[string]string{"TestLogin": "fail"})
	}
	res, _ := l.push(map[string]string{"TestLogin": "pass"})
	l.want(res, cli.ExitTripped, "no_progress")
	body := l.h.comments(7)[0].Body
	if !strings.Contains(body, "The tests pass at this head") || !strings.Contains(body, "/breaker reset agent-fix") {
		t.Errorf("the comment does not say the tests pass and a reset is awaited:\n%s", body)
	}
	for _, advice := range []string{"Roll back to the checkpoint", "Skip the"} {
		if strings.Contains(body, advice) {
			t.Errorf("the comment still advises %q at a green head:\n%s", advice, body)
		}
	}
}
