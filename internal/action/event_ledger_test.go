package action_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

// ledgerRun is one push of an agent that writes no trailers: a commit,
// then CI's results, then the Action on the push.
type ledgerRun struct {
	h      *actionHarness
	branch string
	n      int
}

func newLedgerRun(t *testing.T, branch string) *ledgerRun {
	h := newActionHarness(t)
	h.repo.Git("checkout", "-q", "-b", branch)
	return &ledgerRun{h: h, branch: branch}
}

// push commits a plain fix (no Greenlight trailer), writes the results
// (test → status) and runs the Action on the push; it returns the run.
func (l *ledgerRun) push(statuses map[string]string, trailers ...string) (actionResult, string) {
	l.h.t.Helper()
	l.n++
	msg := fmt.Sprintf("Fix the login, take %d\n", l.n)
	if len(trailers) > 0 {
		msg += "\n" + strings.Join(trailers, "\n") + "\n"
	}
	head := l.h.repo.CommitFiles(msg, map[string]string{fmt.Sprintf("internal/auth/fix%d.go", l.n): "package auth\n"})
	l.h.repo.JUnit("junit.xml", statuses)
	l.h.srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: l.branch, BaseRef: "main",
		BaseSHA: l.h.repo.Git("rev-parse", "main"), Author: "agent-bot"})
	return l.h.run("push", pushEvent(l.h.t, l.branch, head)), head
}

// report reads the JSON report the last run wrote.
func (l *ledgerRun) report() report.Report {
	l.h.t.Helper()
	data, err := os.ReadFile(filepath.Join(l.h.repo.Dir, action.ReportFile))
	if err != nil {
		l.h.t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		l.h.t.Fatal(err)
	}
	return rep
}

func (l *ledgerRun) want(res actionResult, code int, reason string) {
	l.h.t.Helper()
	if res.code != code || res.outputs["trip-reason"] != reason {
		l.h.t.Fatalf("push %d: exit %d, trip-reason %q; want %d, %q\n%s", l.n, res.code, res.outputs["trip-reason"], code, reason, res.stdout)
	}
}

// An agent that writes no trailers pushes three fixes while TestLogin
// fails every time: the third run trips no_progress, with one comment and
// three check runs.
func TestLedger_NoTrailersThreeFailedPushesTripNoProgress(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "copilot/fix-login")
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	res, _ := l.push(fail)
	l.want(res, cli.ExitClosed, "")
	res, _ = l.push(fail)
	l.want(res, cli.ExitClosed, "")
	res, _ = l.push(fail)
	l.want(res, cli.ExitTripped, "no_progress")
	if n := len(l.h.comments(7)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
	runs := l.h.srv.CheckRuns()
	if len(runs) != 3 {
		t.Fatalf("%d check runs, want 3", len(runs))
	}
	if runs[0].Conclusion != "success" || runs[2].Conclusion != "failure" || runs[2].Name != "greenlight-breaker" {
		t.Errorf("check runs: %+v; want success first, failure last, named greenlight-breaker", runs)
	}
	if !strings.Contains(runs[2].Summary, "Push history") || runs[2].Annotations != 0 {
		t.Errorf("the check run summary lacks the push history:\n%s", runs[2].Summary)
	}
	rep := l.report()
	if rep.Slice != "copilot-fix-login" || len(rep.Pushes) != 3 || rep.Ledger.Entries != 2 || rep.Ledger.Source != "check-runs" || rep.Ledger.Signed {
		t.Errorf("slice %q, %d pushes, ledger %+v; want the branch as the slice, 3 pushes, 2 unsigned entries read", rep.Slice, len(rep.Pushes), rep.Ledger)
	}
}

// A push that fixes one of two failing tests is progress: the streak
// starts again.
func TestLedger_ProgressResetsTheStreak(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	both := map[string]string{"TestLogin": "fail", "TestLogout": "fail"}
	one := map[string]string{"TestLogin": "pass", "TestLogout": "fail"}
	// F F P F F F: the streak restarts at the progress and trips at the 6th.
	for i, st := range []map[string]string{both, both, one, one, one, one} {
		res, _ := l.push(st)
		want := cli.ExitClosed
		if i == 5 {
			want = cli.ExitTripped
		}
		if res.code != want {
			t.Fatalf("push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
	}
	rep := l.report()
	if got := []bool{rep.Pushes[2].Progress, rep.Pushes[2].Failed, rep.Pushes[5].Failed}; got[0] != true || got[1] != false || got[2] != true {
		t.Errorf("push 3 progress/failed, push 6 failed = %v; want true false true", got)
	}
}

// Seven failed pushes, never three in a row, with progress in between:
// the slice ceiling trips, one count per failed push.
func TestLedger_SevenFailedPushesTripSliceCeiling(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	seq := []map[string]string{}
	for i := range 4 {
		cur, next := fmt.Sprintf("TestStep%d", i), fmt.Sprintf("TestStep%d", i+1)
		seq = append(seq, map[string]string{cur: "fail"}, map[string]string{cur: "fail"})
		if i < 3 {
			seq = append(seq, map[string]string{cur: "pass", next: "fail"})
		}
	}
	// F F P F F P F F P F: the 7th failed push is the 10th push.
	seq = seq[:10]
	for i, st := range seq {
		res, _ := l.push(st)
		if i < 9 {
			l.want(res, cli.ExitClosed, "")
			continue
		}
		l.want(res, cli.ExitTripped, "slice_ceiling")
	}
	if rep := l.report(); rep.TotalFailedAttempts != 7 {
		t.Errorf("total_failed_attempts = %d, want 7", rep.TotalFailedAttempts)
	}
}

// Six pushes whose trailers claim a pass that CI observed failing: OPEN
// at the third, from CI's observations of the earlier commits.
func TestLedger_PassClaimsCIContradictedTripAtTheThird(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/S-5")
	for i := range 3 {
		res, _ := l.push(map[string]string{"TestLogin": "fail"},
			"Greenlight-Slice: S-5", "Greenlight-Test: TestLogin", "Greenlight-Result: pass")
		if want := map[bool]int{true: cli.ExitTripped, false: cli.ExitClosed}[i == 2]; res.code != want {
			t.Fatalf("push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
		}
	}
	rep := l.report()
	if len(rep.Misreports) != 3 || failedOf(rep, "TestLogin") != 3 {
		t.Errorf("misreports %d, TestLogin failed %d; want 3 and 3 (CI's word over the trailers)", len(rep.Misreports), failedOf(rep, "TestLogin"))
	}
}

// The failing test deleted, or skipped, on the next push: not a pass,
// named as vanished, and the streak goes on.
func TestLedger_VanishedTestIsNotAPass(t *testing.T) {
	t.Parallel()
	for name, later := range map[string]map[string]string{
		"deleted": {"TestLogout": "pass"},
		"skipped": {"TestLogin": "skip", "TestLogout": "pass"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := newLedgerRun(t, "agent/fix")
			l.push(map[string]string{"TestLogin": "fail", "TestLogout": "pass"})
			res, _ := l.push(later)
			l.want(res, cli.ExitClosed, "")
			rep := l.report()
			if p := rep.Pushes[1]; !p.Failed || len(p.Vanished) != 1 || !strings.HasSuffix(p.Vanished[0], "TestLogin") {
				t.Errorf("push 2 = %+v; want failed, TestLogin vanished", p)
			}
			res, _ = l.push(later)
			l.want(res, cli.ExitTripped, "no_progress")
		})
	}
}

// A force push that drops the attempt commits does not bring the verdict
// back to CLOSED: the entry of the head it replaced kept the verdict.
func TestLedger_ForcePushDoesNotCloseTheSlice(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/S-3")
	var old string
	for range 3 {
		var res actionResult
		res, old = l.push(map[string]string{testDup: "fail"}, "Greenlight-Slice: S-3", "Greenlight-Test: "+testDup)
		_ = res
	}
	// The agent rewrites the branch from main: one new commit, no trailers.
	l.h.repo.Git("checkout", "-q", "main")
	l.h.repo.Git("checkout", "-q", "-B", "agent/S-3")
	l.h.srv.AddForcePush(7, old)
	res, head := l.push(map[string]string{"TestOther": "pass"}, "Greenlight-Slice: S-3")
	l.h.srv.SetPullRequestCommits(7, []string{head})
	res = l.h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped || res.outputs["state"] != "OPEN" {
		t.Fatalf("after the force push: exit %d, state %s; want 42, OPEN\n%s", res.code, res.outputs["state"], res.stdout)
	}
}

// A check run whose text someone else edited, with ledger-key set: OPEN,
// ledger_tampered, the entry named.
func TestLedger_EditedEntryTripsLedgerTampered(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.inputs["ledger-key"] = "a-secret-of-more-than-16"
	res, first := l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitClosed, "")
	run := l.h.srv.CheckRuns()[0]
	if !strings.Contains(run.Text, `"mac":"`) {
		t.Fatalf("the entry is not signed:\n%s", run.Text)
	}
	l.h.srv.SetCheckRunText(run.ID, strings.Replace(run.Text, `","fail"`, `","pass"`, 1))
	res, _ = l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitTripped, "ledger_tampered")
	rep := l.report()
	if len(rep.Ledger.Tampered) != 1 || rep.Ledger.Tampered[0] != first || !rep.Ledger.Signed || rep.Ledger.Verified {
		t.Errorf("ledger = %+v; want signed, not verified, %s tampered", rep.Ledger, first)
	}
}

// Without a key, an entry of our app with no readable block is tampered
// too (fail closed); a check run of the same name by another app is not
// ours and is ignored.
func TestLedger_ForeignAndUnreadableCheckRuns(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	_, first := l.push(map[string]string{"TestLogin": "fail"})
	forged, _ := ledger.Encode(ledger.Entry{Head: first, Slice: "agent-fix", Tests: []ledger.Test{{Name: "users.TestLogin", Status: breaker.StatusPass}}}, nil)
	l.h.srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: first, Text: forged, AppID: 999, AppSlug: "evil-app"})
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitClosed, "")
	if !strings.Contains(res.stdout, "by another app were ignored") {
		t.Errorf("the log does not say the foreign check run was ignored:\n%s", res.stdout)
	}
	l.h.srv.SetCheckRunText(l.h.srv.CheckRuns()[0].ID, "nothing to see")
	res, _ = l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitTripped, "ledger_tampered")
}

// A re-run of the same head, and the push + pull_request pair of one head,
// count once.
func TestLedger_SameHeadCountsOnce(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	fail := map[string]string{"TestLogin": "fail"}
	_, head := l.push(fail)
	pr := forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "agent/fix", BaseRef: "main", BaseSHA: l.h.repo.Git("rev-parse", "main")}
	l.h.run("push", pushEvent(t, "agent/fix", head))
	l.h.run("pull_request", pullRequestEvent(t, "synchronize", pr))
	res, _ := l.push(fail)
	l.want(res, cli.ExitClosed, "")
	if rep := l.report(); len(rep.Pushes) != 2 {
		t.Errorf("%d pushes, want 2: three runs on the first head count once", len(rep.Pushes))
	}
	if n := len(l.h.srv.CheckRuns()); n != 4 {
		t.Errorf("%d check runs, want 4 (one per run)", n)
	}
}

// A steady-state push run (pull request, checkpoint tag and comment in
// place) makes at most 5 API calls, and one more to look at the agent's
// other pull requests (issue 46).
func TestLedger_SteadyStatePushRunMakesFewCalls(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/S-3")
	trailers := []string{"Greenlight-Slice: S-3", "Greenlight-Test: " + testDup}
	l.push(map[string]string{testDup: "fail"}, trailers...)
	l.push(map[string]string{testDup: "fail"}, trailers...) // one short of a trip: the comment is posted
	l.h.srv.ResetCalls()
	res, _ := l.push(map[string]string{testDup: "fail"}, trailers...)
	l.want(res, cli.ExitTripped, "per_test")
	calls := l.h.srv.Calls()
	t.Logf("a steady-state push run: %d API calls: %v", len(calls), calls)
	if len(calls) > 6 {
		t.Errorf("%d API calls, want at most 6: %v", len(calls), calls)
	}
}

// breaker evaluate --ledger, on a clone, gives the verdict the Action gave.
func TestLedger_CLIReplaysTheActionsVerdict(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	fail := map[string]string{"TestLogin": "fail"}
	l.push(fail)
	l.push(fail)
	res, head := l.push(fail)
	l.want(res, cli.ExitTripped, "no_progress")
	action := l.report()

	var entries []ledger.Entry
	for _, run := range l.h.srv.CheckRuns()[:2] {
		e, err := ledger.Decode(run.Text)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	file := filepath.Join(t.TempDir(), "entries.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.WriteLines(f, entries); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := l.h.repo.Git("rev-parse", "agent/fix"); got != head {
		t.Fatalf("agent/fix is at %s, want %s", got, head)
	}
	out, stderr, code := runCLI(t, "", "evaluate", "--repo", l.h.repo.Dir, "--head", "agent/fix", "--base", "main",
		"--results", "junit.xml", "--ledger", file, "--format", "json")
	if code != cli.ExitTripped {
		t.Fatalf("CLI exit %d, want 42\n%s", code, stderr)
	}
	var cli report.Report
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		State, Slice string
		Reason       string
		Total        int
		Failed       []bool
	}
	v := func(r report.Report) verdict {
		out := verdict{State: r.State, Slice: r.Slice, Reason: reason(r), Total: r.TotalFailedAttempts}
		for _, p := range r.Pushes {
			out.Failed = append(out.Failed, p.Failed)
		}
		return out
	}
	if a, c := v(action), v(cli); fmt.Sprint(a) != fmt.Sprint(c) {
		t.Errorf("the CLI's verdict %+v differs from the Action's %+v", c, a)
	}
}

// breaker ledger fetches the pull request's entries, verifies them with the
// key, and names the one someone rewrote (exit 42).
func TestLedger_CommandFetchesAndVerifies(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.inputs["ledger-key"] = "a-secret-of-more-than-16"
	l.push(map[string]string{"TestLogin": "fail"})
	_, second := l.push(map[string]string{"TestLogin": "fail"})
	keyFile := filepath.Join(t.TempDir(), "key")
	writeFile(t, keyFile, "a-secret-of-more-than-16\n")
	env := map[string]string{"GITHUB_TOKEN": actionToken, "GITHUB_API_URL": l.h.srv.URL()}
	repo := l.h.srv.Owner() + "/" + l.h.srv.Repo()
	out, stderr, code := runCLIEnv(t, env, "", "ledger", "--repo", repo, "--pr", "7", "--ledger-key-file", keyFile)
	if code != cli.ExitClosed {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	entries, err := ledger.ReadLines(strings.NewReader(out))
	if err != nil || len(entries) != 2 || entries[1].Head != second {
		t.Fatalf("entries %+v (%v); want 2, oldest first", entries, err)
	}
	run := l.h.srv.CheckRuns()[1]
	l.h.srv.SetCheckRunText(run.ID, strings.Replace(run.Text, `","fail"`, `","pass"`, 1))
	_, stderr, code = runCLIEnv(t, env, "", "ledger", "--repo", repo, "--pr", "7", "--ledger-key-file", keyFile)
	if code != cli.ExitTripped || !strings.Contains(stderr, "do not verify") || !strings.Contains(stderr, second[:7]) {
		t.Errorf("after an edit: exit %d, stderr %q; want 42 naming %s", code, stderr, second[:7])
	}
	for _, args := range [][]string{{"ledger", "--repo", "x"}, {"ledger", "--repo", repo}, {"ledger", "--repo", repo, "--pr", "1", "--branch", "b"}} {
		if _, _, code := runCLIEnv(t, env, "", args...); code != cli.ExitUsage {
			t.Errorf("breaker %v: exit %d, want 2", args, code)
		}
	}
	if _, stderr, code := runCLI(t, "", "ledger", "--repo", repo, "--pr", "7"); code != cli.ExitError || !strings.Contains(stderr, "GITHUB_TOKEN") {
		t.Errorf("without a token: exit %d, stderr %q; want 1 naming GITHUB_TOKEN", code, stderr)
	}
}

// An unreadable ledger is an error (exit 1) naming it, never "no history".
func TestLedger_UnreadableLedgerIsAnError(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/graphql", Status: 403, Times: 5})
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	if res.code != cli.ExitError || !strings.Contains(res.stdout, "read the ledger") {
		t.Fatalf("exit %d; want 1 and an error naming the ledger\n%s", res.code, res.stdout)
	}
	if n := len(l.h.srv.CheckRuns()); n != 0 {
		t.Errorf("%d check runs written without reading the ledger", n)
	}
}

// A token that may not write checks (a fork's pull request) loses the
// ledger entry, never the verdict; it says why, and fails the check unless
// allow-no-ledger accepts a breaker without memory.
func TestLedger_ForbiddenCheckRunKeepsVerdict(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/check-runs", Status: 403, Times: 10})
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	// Without the ledger the breaker remembers nothing across pushes: the
	// check fails, saying so, unless the user accepts that by name.
	l.want(res, cli.ExitError, "")
	if !strings.Contains(res.summary, "checks: write") || res.outputs["state"] != "CLOSED" {
		t.Errorf("summary does not say the check run needs checks: write, or the verdict is lost:\n%s", res.summary)
	}
	if !strings.Contains(res.stdout, "allow-no-ledger") {
		t.Errorf("the error does not name the opt-out:\n%s", res.stdout)
	}
	l.h.inputs["allow-no-ledger"] = "true"
	res, _ = l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitClosed, "")
}

// Each policy runs in the Action on the same evidence: its own verdict,
// exit code, report in the comment, and prp's HALF_OPEN warning.
func TestLedger_PoliciesInTheAction(t *testing.T) {
	t.Parallel()
	fail := map[string]string{"TestLogin": "fail", "TestLogout": "pass"}
	t.Run("prp", func(t *testing.T) {
		t.Parallel()
		l := newLedgerRun(t, "agent/fix")
		l.h.inputs["policy"] = "prp"
		res, _ := l.push(fail)
		l.want(res, cli.ExitClosed, "")
		res, _ = l.push(fail)
		l.want(res, cli.ExitClosed, "")
		if res.outputs["state"] != "HALF_OPEN" || !strings.Contains(res.stdout, "::warning title=Circuit breaker HALF_OPEN") {
			t.Errorf("second push: state %q; want HALF_OPEN with a warning annotation\n%s", res.outputs["state"], res.stdout)
		}
		res, _ = l.push(fail)
		l.want(res, cli.ExitTripped, "no_progress")
		if body := l.h.comments(7); len(body) != 1 || !strings.Contains(body[0].Body, "CIRCUIT_BREAKER_OPEN") {
			t.Errorf("the comment lacks prp's block: %+v", body)
		}
	})
	t.Run("bmad", func(t *testing.T) {
		t.Parallel()
		l := newLedgerRun(t, "agent/fix")
		l.h.inputs["policy"], l.h.inputs["threshold"] = "bmad", "3"
		for i := range 3 {
			res, _ := l.push(fail)
			if want := map[bool]int{true: cli.ExitTripped, false: cli.ExitClosed}[i == 2]; res.code != want {
				t.Fatalf("push %d: exit %d, want %d\n%s", i+1, res.code, want, res.stdout)
			}
		}
		if body := l.h.comments(7); len(body) != 1 || !strings.Contains(body[0].Body, "CIRCUIT BREAKER TRIGGERED") {
			t.Errorf("the comment lacks bmad's banner: %+v", body)
		}
	})
	t.Run("liza", func(t *testing.T) {
		t.Parallel()
		l := newLedgerRun(t, "agent/fix")
		l.h.inputs["policy"] = "liza"
		l.h.repo.CommitFiles("Log the blockers", map[string]string{".liza/state.yaml": "anomalies:\n" +
			"  - {task: task-1, type: external_blocker, details: {blocker_service: payments-sandbox}}\n" +
			"  - {task: task-2, type: external_blocker, details: {blocker_service: payments-sandbox}}\n"})
		res, _ := l.push(map[string]string{"TestLogin": "pass"})
		l.want(res, cli.ExitTripped, "anomaly_pattern")
		if body := l.h.comments(7); len(body) != 1 || !strings.Contains(body[0].Body, "external_service_outage") || !strings.Contains(body[0].Body, "EXTERNAL_DEPENDENCY") {
			t.Errorf("the comment lacks liza's report: %+v", body)
		}
	})
}

// dry-run remembers: four failing pushes of an agent without trailers
// write four ledger entries (neutral check runs), would trip at the third,
// exit 0 every time, and post no comment and no tag; turning dry-run off
// then keeps every count.
func TestLedger_DryRunRemembers(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	l.h.advance = true
	l.h.inputs["dry-run"] = "true"
	for i := range 4 {
		res, _ := l.push(map[string]string{"TestLogin": "fail"})
		if res.code != cli.ExitClosed {
			t.Fatalf("push %d: exit %d, want 0 in a dry run\n%s", i+1, res.code, res.stdout)
		}
		wantState := map[bool]string{true: "OPEN", false: "CLOSED"}[i >= 2]
		if res.outputs["state"] != wantState {
			t.Errorf("push %d: state %q, want %q", i+1, res.outputs["state"], wantState)
		}
	}
	runs := l.h.srv.CheckRuns()
	if len(runs) != 4 {
		t.Fatalf("%d ledger entries, want one a push", len(runs))
	}
	for i, run := range runs {
		if run.Conclusion != "neutral" || (i >= 2) != strings.HasPrefix(run.Title, "dry run: would be OPEN") {
			t.Errorf("check run %d: %s %q", i+1, run.Conclusion, run.Title)
		}
	}
	if c := l.h.comments(7); len(c) != 0 || len(l.h.srv.Tags()) != 0 {
		t.Errorf("a dry run posted %d comments and %d tags", len(c), len(l.h.srv.Tags()))
	}
	delete(l.h.inputs, "dry-run")
	res, _ := l.push(map[string]string{"TestLogin": "fail"})
	l.want(res, cli.ExitTripped, "no_progress")
}

// breaker gate reads the same ledger as the Action's mode: gate: 0 while
// the pull request's breaker is CLOSED, 42 with the slice and the way
// through once it tripped; usage and token errors name the fix.
func TestGate_CommandSaysWhetherTheAgentMayGoOn(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, "agent/fix")
	env := map[string]string{"GITHUB_TOKEN": actionToken, "GITHUB_API_URL": l.h.srv.URL()}
	repo := l.h.srv.Owner() + "/" + l.h.srv.Repo()
	l.push(map[string]string{"TestLogin": "fail"})
	if out, stderr, code := runCLIEnv(t, env, "", "gate", "--repo", repo, "--pr", "7"); code != cli.ExitClosed || !strings.HasPrefix(out, "CLOSED") {
		t.Fatalf("one failed push: exit %d, %q %q; want 0, CLOSED", code, out, stderr)
	}
	l.push(map[string]string{"TestLogin": "fail"})
	l.push(map[string]string{"TestLogin": "fail"})
	out, stderr, code := runCLIEnv(t, env, "", "gate", "--repo", repo, "--pr", "7")
	if code != cli.ExitTripped || !strings.HasPrefix(out, "OPEN: slice") || !strings.Contains(out, "/breaker reset") {
		t.Fatalf("after the trip: exit %d, %q %q; want 42 naming the slice and the reset", code, out, stderr)
	}
	for _, args := range [][]string{{"gate", "--repo", "x"}, {"gate", "--repo", repo}, {"gate", "--repo", repo, "--pr", "1", "--branch", "b"}} {
		if _, _, code := runCLIEnv(t, env, "", args...); code != cli.ExitUsage {
			t.Errorf("breaker %v: exit %d, want 2", args, code)
		}
	}
	if _, stderr, code := runCLI(t, "", "gate", "--repo", repo, "--pr", "7"); code != cli.ExitError || !strings.Contains(stderr, "GITHUB_TOKEN") {
		t.Errorf("without a token: exit %d, stderr %q; want 1 naming GITHUB_TOKEN", code, stderr)
	}
}
