package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

const testDup = "TestRegister_DuplicateEmail"

// main: I ── agent: A1 ── A2 ── A3   (three failed attempts on one test)
func TestEvaluate_ThreeFailuresOnOneTestTripPerTest(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	base := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "-b", "agent/S-1")
	r.attempt("S-1", testDup, "check before insert")
	r.attempt("S-1", testDup, "check in repository")
	r.attempt("S-1", testDup, "map errors in router")
	r.results("junit.xml", map[string]string{testDup: "fail"})

	rep, code := evaluateJSON(t, r, "--results", "junit.xml")
	if code != ExitTripped {
		t.Errorf("exit = %d, want %d", code, ExitTripped)
	}
	if got, want := reason(rep), "per_test"; got != want {
		t.Errorf("trip_reason = %s, want %s", got, want)
	}
	if got := failedOf(rep, testDup); got != 3 {
		t.Errorf("failed attempts on %s = %d, want 3", testDup, got)
	}
	if rep.Checkpoint.SHA != base {
		t.Errorf("checkpoint sha = %s, want the first attempt's parent %s", rep.Checkpoint.SHA, base)
	}
	if len(rep.Diagnostics) != 1 || !strings.Contains(rep.Diagnostics[0].ActualError, "expected 409, got 500") {
		t.Errorf("diagnostics = %+v, want one carrying CI's exact output", rep.Diagnostics)
	}
}

// main: I ── agent: T1 T1 T2 T2 T3 T3 T4   (2+2+2+1 spread over four tests)
func TestEvaluate_SpreadFailuresTripSliceCeiling(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-2")
	statuses := map[string]string{}
	for i, test := range []string{"TestA", "TestA", "TestB", "TestB", "TestC", "TestC", "TestD"} {
		r.attempt("S-2", test, "strategy "+string(rune('a'+i)), "Greenlight-Result: fail")
		statuses[test] = "fail"
	}
	r.results("junit.xml", statuses)

	rep, code := evaluateJSON(t, r, "--results", "junit.xml")
	if code != ExitTripped || reason(rep) != "slice_ceiling" || rep.TotalFailed != 7 {
		t.Errorf("exit %d, reason %s, total %d; want 42, slice_ceiling, 7", code, reason(rep), rep.TotalFailed)
	}
	if len(rep.Diagnostics) != 4 {
		t.Errorf("diagnostics = %d, want one per failing test (4)", len(rep.Diagnostics))
	}
}

// main: I ── agent: A1(fail) ── INFRA ── A2(head, no results)
func TestEvaluate_InfraCommitsAndUntestedHeadAreNotCounted(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-1")
	r.attempt("S-1", testDup, "first try", "Greenlight-Result: fail")
	r.commit("Fix the build\n\nGreenlight-Slice: S-1\nGreenlight-Infra: go.sum was stale\n", map[string]string{"go.sum": "x\n"})
	r.attempt("S-1", testDup, "second try", "Greenlight-Result: fail")

	rep, code := evaluateJSON(t, r) // no --results: the head's tests did not run
	if code != ExitClosed {
		t.Errorf("exit = %d, want 0", code)
	}
	// The infra commit is not counted; the untested head is, because its
	// own trailer admits the failure: a fail claim needs no confirmation.
	if rep.TotalFailed != 2 {
		t.Errorf("total failed = %d, want 2 (infra commit not counted, the admitted failure counted)", rep.TotalFailed)
	}
	if rep.HeadInfra == nil || *rep.HeadInfra == "" {
		t.Errorf("head_infra is empty, want the reason the head's tests did not run")
	}
}

// main: I ── agent: A(fail) A(fail) A(pass) B(fail) B(fail)
func TestEvaluate_PassResetsPerTestButNotSliceTotal(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-1")
	r.attempt("S-1", "TestA", "a1", "Greenlight-Result: fail")
	r.attempt("S-1", "TestA", "a2", "Greenlight-Result: fail")
	r.attempt("S-1", "TestA", "a3", "Greenlight-Result: pass")
	r.attempt("S-1", "TestA", "a4", "Greenlight-Result: fail")
	r.attempt("S-1", "TestB", "b1")
	r.results("junit.xml", map[string]string{"TestA": "fail", "TestB": "fail"})

	rep, code := evaluateJSON(t, r, "--results", "junit.xml")
	if code != ExitClosed {
		t.Errorf("exit = %d, want 0 (TestA reset by its pass)", code)
	}
	if got := failedOf(rep, "TestA"); got != 1 {
		t.Errorf("TestA failed attempts = %d, want 1 since its pass", got)
	}
	if rep.TotalFailed != 4 {
		t.Errorf("total failed = %d, want 4 (the pass does not lower the slice total)", rep.TotalFailed)
	}
}

// main: I ── agent: A A A (tripped) ── A(pass, head)
func TestEvaluate_OpenStaysOpenAfterPassingPush(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-1")
	for _, s := range []string{"one", "two", "three"} {
		r.attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	r.attempt("S-1", testDup, "four")
	r.results("junit.xml", map[string]string{testDup: "pass"})

	rep, code := evaluateJSON(t, r, "--results", "junit.xml")
	if code != ExitTripped || rep.State != "OPEN" {
		t.Errorf("exit %d state %s, want 42 OPEN: a passing push does not close the breaker", code, rep.State)
	}
	// The text names the count that tripped it, not the count after the pass.
	out, _, _ := runCLI(t, "", "evaluate", "--repo", r.dir, "--base", "main", "--results", "junit.xml")
	if want := "tripped: per-test limit (3/3) on " + testDup; !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
}

// main: I ── agent: A A A ──(reset)── A(head, fail). A reset is a ledger
// record (what `breaker ledger` fetches), never a tag: with the reset tag
// alone every attempt counts; with the record in --ledger, the counts
// restart after it, as in CI.
func TestEvaluate_ResetIsALedgerRecordNotATag(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-1")
	for _, s := range []string{"one", "two", "three"} {
		r.attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	resetAt := r.git("rev-parse", "HEAD")
	r.git("tag", "greenlight/reset/S-1")
	r.attempt("S-1", testDup, "with guidance")
	r.results("junit.xml", map[string]string{testDup: "fail"})

	rep, code := evaluateJSON(t, r, "--results", "junit.xml")
	if code != ExitTripped || rep.TotalFailed != 4 {
		t.Errorf("tag only: exit %d, total %d; want 42 and 4: a tag is never a reset", code, rep.TotalFailed)
	}
	entry := ledger.Entry{Schema: ledger.Schema, Head: resetAt, ObservedAt: time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC), RunID: 9,
		Event: "issue_comment", PR: 7, Slice: "S-1", Tests: []ledger.Test{},
		Verdict: ledger.Verdict{State: "CLOSED"}, Reset: &ledger.Reset{Author: "alice", At: time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC)}}
	file := filepath.Join(t.TempDir(), "ledger.jsonl")
	var buf strings.Builder
	if err := ledger.WriteLines(&buf, []ledger.Entry{entry}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, buf.String())
	out, _, code := runCLI(t, "", "evaluate", "--repo", r.dir, "--base", "main", "--results", "junit.xml", "--ledger", file, "--format", "json")
	var got jsonReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != ExitClosed || got.TotalFailed != 1 || failedOf(got, testDup) != 1 {
		t.Errorf("with the reset record: exit %d, total %d, per test %d; want 0, 1, 1 after the reset", code, got.TotalFailed, failedOf(got, testDup))
	}
}

// main: I ── agent: A(claims pass; CI sees fail)
func TestEvaluate_ContradictedPassClaimCounts(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-1")
	r.attempt("S-1", testDup, "claims victory", "Greenlight-Result: pass")
	r.results("junit.xml", map[string]string{testDup: "fail"})

	rep, _ := evaluateJSON(t, r, "--results", "junit.xml")
	if rep.TotalFailed != 1 || len(rep.Misreports) != 1 {
		t.Errorf("total %d, misreports %d; want 1 and 1", rep.TotalFailed, len(rep.Misreports))
	}
}

// A clone with --depth 2 of a branch forked further back than 2 commits.
func TestEvaluate_ShallowCloneIsAnErrorNamingTheFix(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/S-1")
	for _, s := range []string{"one", "two", "three", "four"} {
		r.attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	r.git("checkout", "-q", "main")
	r.commit("main moves on", map[string]string{"README.md": "shop v2\n"})
	dir := t.TempDir()
	shallow := &testRepo{Repo: gitrepo.Open(t, dir), t: t, dir: dir}
	shallow.git("clone", "-q", "--depth", "2", "--no-single-branch", "file://"+r.dir, ".")
	shallow.git("checkout", "-q", "agent/S-1")

	_, stderr, code := runCLI(t, "", "evaluate", "--repo", shallow.dir, "--base", "origin/main")
	if code != ExitError {
		t.Errorf("exit = %d, want %d", code, ExitError)
	}
	if !strings.Contains(stderr, "fetch-depth: 0") {
		t.Errorf("stderr = %q, want it to name the fix fetch-depth: 0", stderr)
	}
}

// The rollback command in the diagnostic, run as written, checks out the checkpoint.
func TestEvaluate_RollbackCommandChecksOutTheCheckpoint(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	base := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "-b", "agent/S-1")
	for _, s := range []string{"one", "two", "three"} {
		r.attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	r.git("tag", "greenlight/checkpoint/S-1", base)
	r.results("junit.xml", map[string]string{testDup: "fail"})
	rep, _ := evaluateJSON(t, r, "--results", "junit.xml")
	var command string
	for _, d := range rep.Diagnostics {
		for _, o := range d.RecoveryOptions {
			if strings.HasPrefix(o.Command, "git checkout ") {
				command = o.Command
			}
		}
	}
	if command == "" {
		t.Fatalf("no git checkout recovery command in %+v", rep.Diagnostics)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = r.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	if got := r.git("rev-parse", "HEAD"); got != base {
		t.Errorf("after %q HEAD = %s, want checkpoint %s", command, got, base)
	}
}

// The merge trick: after tripping, the agent merges its branch into a new
// main commit so that the pushed head's first parent is main and its old
// attempts sit behind the second parent. The push is a fast-forward; git
// log main..head still lists every attempt, and so must the breaker.
//
//	main: I ── M1 ──────── X   (X = merge of M1 and A3, first parent M1)
//	       \              /
//	agent:  A1 ── A2 ── A3
func TestEvaluate_MergeTrickKeepsTheAttempts(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	base := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "-b", "agent/S-1")
	r.attempt("S-1", testDup, "check before insert")
	r.attempt("S-1", testDup, "check in repository")
	old := r.attempt("S-1", testDup, "map errors in router")
	r.MergeTrick("agent/S-1")
	if got := r.git("merge-base", "--is-ancestor", old, "HEAD"); got != "" {
		t.Fatalf("the old head is not an ancestor of the merge: %s", got)
	}
	r.results("junit.xml", map[string]string{testDup: "fail"})

	rep, code := evaluateJSON(t, r, "--results", "junit.xml")
	if code != ExitTripped {
		t.Errorf("exit = %d, want %d: the merge hid the attempts", code, ExitTripped)
	}
	if got := failedOf(rep, testDup); got != 3 {
		t.Errorf("failed attempts on %s = %d, want 3", testDup, got)
	}
	if rep.Checkpoint.SHA != base {
		t.Errorf("checkpoint sha = %s, want the first attempt's parent %s", rep.Checkpoint.SHA, base)
	}
}
