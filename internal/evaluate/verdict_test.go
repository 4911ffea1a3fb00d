package evaluate

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

// Verdicts of `breaker evaluate` over real repositories (judge_test.go)
// that a scenario of testdata/scenarios cannot express: the checkpoint's
// SHA, the diagnostic's text, a ledger record, a shallow clone, a merge.

// verdict is the part of the v1 JSON report these tests read.
type verdict struct {
	State       string  `json:"state"`
	TripReason  *string `json:"trip_reason"`
	TotalFailed int     `json:"total_failed_attempts"`
	Checkpoint  struct {
		SHA string `json:"sha"`
	} `json:"checkpoint"`
	Tests []struct {
		Name           string `json:"name"`
		FailedAttempts int    `json:"failed_attempts"`
	} `json:"tests"`
	Diagnostics []struct {
		ActualError     string `json:"actual_error"`
		RecoveryOptions []struct {
			Command string `json:"command"`
		} `json:"recovery_options"`
	} `json:"diagnostics"`
}

func (v verdict) failedOf(test string) int {
	for _, tt := range v.Tests {
		if tt.Name == test {
			return tt.FailedAttempts
		}
	}
	return -1
}

// forked is the shop with agent/S-1 checked out, and main's head.
func forked(t *testing.T) (*gitrepo.Repo, string) {
	t.Helper()
	r := gitrepo.Shop(t)
	base := r.Git("rev-parse", "HEAD")
	r.Git("checkout", "-q", "-b", "agent/S-1")
	return r, base
}

// agentBranch is forked with attempts on testDup, each admitting its
// failure.
func agentBranch(t *testing.T, strategies ...string) *gitrepo.Repo {
	t.Helper()
	r, _ := forked(t)
	for _, s := range strategies {
		r.Attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	return r
}

// main: I ── agent: A1 ── A2 ── A3   (three failed attempts on one test)
func TestVerdict_PerTestTripCarriesCheckpointAndCIOutput(t *testing.T) {
	t.Parallel()
	r, base := forked(t)
	r.Attempt("S-1", testDup, "check before insert")
	r.Attempt("S-1", testDup, "check in repository")
	r.Attempt("S-1", testDup, "map errors in router")
	r.JUnit("junit.xml", map[string]string{testDup: "fail"})

	var v verdict
	judgeInto(t, judgeOpts(r.Dir, "junit.xml"), &v)
	if v.State != "OPEN" || v.TripReason == nil || *v.TripReason != "per_test" || v.failedOf(testDup) != 3 {
		t.Errorf("state %s, reason %v, failed %d; want OPEN, per_test, 3", v.State, v.TripReason, v.failedOf(testDup))
	}
	if v.Checkpoint.SHA != base {
		t.Errorf("checkpoint sha = %s, want the first attempt's parent %s", v.Checkpoint.SHA, base)
	}
	if len(v.Diagnostics) != 1 || !strings.Contains(v.Diagnostics[0].ActualError, "expected 409, got 500") {
		t.Errorf("diagnostics = %+v, want one carrying CI's exact output", v.Diagnostics)
	}
}

// main: I ── agent: A A A (tripped) ── A(pass, head): a passing push does
// not close the breaker, and the text names the count that tripped it.
func TestVerdict_OpenStaysOpenAfterAPassingPush(t *testing.T) {
	t.Parallel()
	r := agentBranch(t, "one", "two", "three")
	r.Attempt("S-1", testDup, "four")
	r.JUnit("junit.xml", map[string]string{testDup: "pass"})

	d, _ := judge(t, judgeOpts(r.Dir, "junit.xml"))
	if d.State != breaker.StateOpen {
		t.Errorf("state %s, want OPEN", d.State)
	}
	if out, want := report.Text(d), "tripped: per-test limit (3/3) on "+testDup; !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
}

// main: I ── agent: A A A ──(reset)── A(head, fail). A reset is a ledger
// record (what `breaker ledger` fetches), never a tag: with the reset tag
// alone every attempt counts; with the record, the counts restart after
// it, as in CI.
func TestVerdict_ResetIsALedgerRecordNotATag(t *testing.T) {
	t.Parallel()
	r := agentBranch(t, "one", "two", "three")
	resetAt := r.Git("rev-parse", "HEAD")
	r.Git("tag", "greenlight/reset/S-1")
	r.Attempt("S-1", testDup, "with guidance")
	r.JUnit("junit.xml", map[string]string{testDup: "fail"})

	var v verdict
	judgeInto(t, judgeOpts(r.Dir, "junit.xml"), &v)
	if v.State != "OPEN" || v.TotalFailed != 4 {
		t.Errorf("tag only: state %s, total %d; want OPEN and 4: a tag is never a reset", v.State, v.TotalFailed)
	}
	at := time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC)
	opts := judgeOpts(r.Dir, "junit.xml")
	opts.Ledger = Ledger{Source: "file", Entries: []ledger.Entry{{Schema: ledger.Schema, Head: resetAt, ObservedAt: at, RunID: 9,
		Event: "issue_comment", PR: 7, Slice: "S-1", Tests: []ledger.Test{},
		Verdict: ledger.Verdict{State: "CLOSED"}, Reset: &ledger.Reset{Author: "alice", At: at}}}}
	v = verdict{}
	judgeInto(t, opts, &v)
	if v.State != "CLOSED" || v.TotalFailed != 1 || v.failedOf(testDup) != 1 {
		t.Errorf("with the reset record: state %s, total %d, per test %d; want CLOSED, 1, 1 after the reset", v.State, v.TotalFailed, v.failedOf(testDup))
	}
}

// A clone with --depth 2 of a branch forked further back than 2 commits
// is an error naming the fix.
func TestVerdict_ShallowCloneIsAnErrorNamingTheFix(t *testing.T) {
	t.Parallel()
	r := agentBranch(t, "one", "two", "three", "four")
	r.Git("checkout", "-q", "main")
	r.CommitFiles("main moves on", map[string]string{"README.md": "shop v2\n"})
	shallow := gitrepo.Open(t, t.TempDir())
	shallow.Git("clone", "-q", "--depth", "2", "--no-single-branch", "file://"+r.Dir, ".")
	shallow.Git("checkout", "-q", "agent/S-1")

	opts := judgeOpts(shallow.Dir)
	opts.Base = "origin/main"
	if _, err := Load(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "fetch-depth: 0") {
		t.Errorf("Load = %v, want an error naming the fix fetch-depth: 0", err)
	}
}

// The rollback command in the diagnostic, run as written, checks out the
// checkpoint.
func TestVerdict_RollbackCommandChecksOutTheCheckpoint(t *testing.T) {
	t.Parallel()
	r, base := forked(t)
	for _, s := range []string{"one", "two", "three"} {
		r.Attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	r.Git("tag", "greenlight/checkpoint/S-1", base)
	r.JUnit("junit.xml", map[string]string{testDup: "fail"})
	var v verdict
	judgeInto(t, judgeOpts(r.Dir, "junit.xml"), &v)
	var command string
	for _, d := range v.Diagnostics {
		for _, o := range d.RecoveryOptions {
			if strings.HasPrefix(o.Command, "git checkout ") {
				command = o.Command
			}
		}
	}
	if command == "" {
		t.Fatalf("no git checkout recovery command in %+v", v.Diagnostics)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = r.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	if got := r.Git("rev-parse", "HEAD"); got != base {
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
func TestVerdict_MergeTrickKeepsTheAttempts(t *testing.T) {
	t.Parallel()
	r, base := forked(t)
	r.Attempt("S-1", testDup, "check before insert")
	r.Attempt("S-1", testDup, "check in repository")
	old := r.Attempt("S-1", testDup, "map errors in router")
	r.MergeTrick("agent/S-1")
	if got := r.Git("merge-base", "--is-ancestor", old, "HEAD"); got != "" {
		t.Fatalf("the old head is not an ancestor of the merge: %s", got)
	}
	r.JUnit("junit.xml", map[string]string{testDup: "fail"})

	var v verdict
	judgeInto(t, judgeOpts(r.Dir, "junit.xml"), &v)
	if v.State != "OPEN" || v.failedOf(testDup) != 3 {
		t.Errorf("state %s, failed on %s %d; want OPEN and 3: the merge hid the attempts", v.State, testDup, v.failedOf(testDup))
	}
	if v.Checkpoint.SHA != base {
		t.Errorf("checkpoint sha = %s, want the first attempt's parent %s", v.Checkpoint.SHA, base)
	}
}
