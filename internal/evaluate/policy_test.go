package evaluate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// The seeds' other breakers (PRP, BMAD, Liza) judging the same evidence as
// `breaker evaluate --policy` does (judge_test.go).

// push is one pushed head of a policy scenario: each test's status, and
// the error a failing test reports.
type push map[string]string // test → "pass", "fail", or "fail:<message>"

// policyScenario builds a real repository with one commit per push, the
// ledger entries CI kept for every push but the last, and the last push's
// results, and judges it with the policy tuned by tune. It returns the
// JSON report decoded, or Load's error.
func policyScenario(t *testing.T, pushes []push, files map[string]string, policy string, tune func(*Options)) (map[string]any, error) {
	t.Helper()
	r := gitrepo.Shop(t)
	r.Git("checkout", "-q", "-b", "agent/fix")
	t0 := time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC)
	var entries []ledger.Entry
	for i, p := range pushes {
		commitFiles := map[string]string{fmt.Sprintf("internal/auth/fix%d.go", i): "package auth\n"}
		if i == len(pushes)-1 {
			for k, v := range files {
				commitFiles[k] = v
			}
		}
		head := r.CommitFiles(fmt.Sprintf("Fix the login, take %d", i+1), commitFiles)
		if i == len(pushes)-1 {
			writeJUnit(t, filepath.Join(r.Dir, "junit.xml"), p)
			break
		}
		e := ledger.Entry{Schema: ledger.Schema, Head: head, ObservedAt: t0.Add(time.Duration(i) * time.Minute), RunID: int64(100 + i),
			Event: "push", PR: 7, Slice: "agent-fix"}
		for _, name := range sortedNames(p) {
			st, msg := status(p[name])
			e.Counts.Total++
			switch st {
			case breaker.StatusPass:
				e.Counts.Passed++
			default:
				e.Counts.Failed++
			}
			e.Tests = append(e.Tests, ledger.Test{Suite: "auth", Name: name, Status: st, Fingerprint: ledger.Fingerprint(msg, "")})
		}
		entries = append(entries, e)
	}
	opts := judgeOpts(r.Dir, "junit.xml")
	opts.Head = "agent/fix"
	opts.Ledger = Ledger{Entries: entries, Source: "file"}
	opts.Policy.Name = policy
	if tune != nil {
		tune(&opts)
	}
	_, out, err := tryJudge(opts)
	if err != nil {
		return nil, err
	}
	var rep map[string]any
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("decode report: %v\n%s", err, out)
	}
	return rep, nil
}

func status(s string) (breaker.TestStatus, string) {
	if msg, ok := strings.CutPrefix(s, "fail:"); ok {
		return breaker.StatusFail, msg
	}
	if s == "fail" {
		return breaker.StatusFail, "assertion failed"
	}
	return breaker.StatusPass, ""
}

func sortedNames(p push) []string {
	var names []string
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func writeJUnit(t *testing.T, path string, p push) {
	var b strings.Builder
	b.WriteString(`<testsuite name="auth">`)
	for _, name := range sortedNames(p) {
		st, msg := status(p[name])
		if st == breaker.StatusPass {
			fmt.Fprintf(&b, `<testcase classname="auth" name=%q/>`, name)
			continue
		}
		fmt.Fprintf(&b, `<testcase classname="auth" name=%q><failure message=%q>x</failure></testcase>`, name, msg)
	}
	b.WriteString(`</testsuite>`)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// get reads a dotted path of the JSON report.
func get(rep map[string]any, path string) any {
	var v any = rep
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestPolicy_PRP(t *testing.T) {
	t.Parallel()
	fail := push{"TestLogin": "fail:want 200, got 503", "TestLogout": "pass"}
	other := push{"TestLogin": "fail:want 200, got 503", "TestLogout": "pass", "TestNew": "pass"}
	tests := []struct {
		name   string
		pushes []push
		open   bool
		state  string
		reason any
	}{
		// push 1: no progress (1); push 2: no progress (2) → HALF_OPEN, exit 0.
		{"HALF_OPEN after 2 pushes without progress", []push{fail, fail}, false, "HALF_OPEN", nil},
		// push 3: still none → OPEN at GREEN's threshold.
		{"OPEN at the GREEN threshold", []push{fail, fail, fail}, true, "OPEN", "no_progress"},
		// HALF_OPEN, then TestLogin passes → CLOSED.
		{"back to CLOSED on progress", []push{fail, fail, {"TestLogin": "pass", "TestLogout": "pass"}}, false, "CLOSED", nil},
		// Progress every push (a new passing test), the same error each time → OPEN at 3.
		{"OPEN on 3 identical errors", []push{fail, other, {"TestLogin": "fail:want 200, got 503", "TestLogout": "pass", "TestNew": "pass", "TestMore": "pass"}},
			true, "OPEN", "same_error"},
		// One test fixed per push while the rest fail with one identical
		// error: the same error (seed 002 hashes the error, not the tests).
		{"OPEN on the same error across fewer tests", []push{
			{"TestA": "fail:dial tcp: connection refused", "TestB": "fail:dial tcp: connection refused", "TestC": "fail:dial tcp: connection refused"},
			{"TestA": "pass", "TestB": "fail:dial tcp: connection refused", "TestC": "fail:dial tcp: connection refused"},
			{"TestA": "pass", "TestB": "pass", "TestC": "fail:dial tcp: connection refused"},
		}, true, "OPEN", "same_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := policyScenario(t, tt.pushes, nil, "prp", nil)
			if err != nil {
				t.Fatal(err)
			}
			if (rep["state"] == "OPEN") != tt.open || rep["state"] != tt.state || rep["trip_reason"] != tt.reason || rep["policy_state"] != tt.state || rep["policy"] != "prp" {
				t.Fatalf("state %v policy_state %v reason %v; want %s %v\n%v", rep["state"], rep["policy_state"], rep["trip_reason"],
					tt.state, tt.reason, get(rep, "policy_detail"))
			}
			if get(rep, "policy_detail.phase") != "GREEN" || get(rep, "policy_detail.thresholds.no_progress") != 2.0 {
				t.Errorf("prp = %v", get(rep, "policy_detail"))
			}
		})
	}
}

func TestPolicy_BMAD(t *testing.T) {
	t.Parallel()
	fail := push{"TestLogin": "fail", "TestLogout": "pass"}
	fixed := push{"TestLogin": "pass", "TestLogout": "pass"}
	tests := []struct {
		name      string
		pushes    []push
		threshold int // 0: the default
		open      bool
		status    string
	}{
		{"4 failed pushes: not yet", []push{fail, fail, fail, fail}, 0, false, "HEALTHY"},
		{"5 failed pushes trigger", []push{fail, fail, fail, fail, fail}, 0, true, "TRIGGERED"},
		{"a success resets the count", []push{fail, fail, fail, fail, fixed, {"TestLogin": "pass", "TestLogout": "fail"}}, 0, false, "HEALTHY"},
		{"threshold 3", []push{fail, fail, fail}, 3, true, "TRIGGERED"},
		{"everything passes: COMPLETE", []push{fail, fixed}, 0, false, "COMPLETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := policyScenario(t, tt.pushes, nil, "bmad", func(o *Options) {
				if tt.threshold > 0 {
					o.Threshold = tt.threshold
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if (rep["state"] == "OPEN") != tt.open || rep["policy_state"] != tt.status || get(rep, "policy_detail.status") != tt.status {
				t.Fatalf("state %v, policy_state %v; want open %v, %s\n%v", rep["state"], rep["policy_state"], tt.open, tt.status, get(rep, "policy_detail"))
			}
		})
	}
}

func TestPolicy_Liza(t *testing.T) {
	t.Parallel()
	green := push{"TestLogin": "pass"}
	tests := []struct {
		name     string
		state    string
		pushes   []push
		pattern  string
		severity string
	}{
		{"retry_cluster", `anomalies:
  - {timestamp: 2026-02-18T09:00:00Z, task: task-3, reporter: code-reviewer-1, type: retry_loop, details: {count: 3, error_pattern: "serialization failure on nested entity"}}
  - {timestamp: 2026-02-18T10:00:00Z, task: task-5, reporter: coder-1, type: retry_loop, details: {count: 3, error_pattern: "serialization failure on nested entity"}}
  - {timestamp: 2026-02-18T11:00:00Z, task: task-6, reporter: coder-2, type: retry_loop, details: {count: 4, error_pattern: "serialization failure on nested entity"}}
  - {timestamp: 2026-02-18T11:30:00Z, task: task-7, reporter: coder-2, type: retry_loop, details: {count: 3, error_pattern: "timeout"}}
`, []push{green}, "retry_cluster", "ARCHITECTURE_FLAW"},
		{"external_service_outage", `anomalies:
  - timestamp: 2026-02-18T09:00:00Z
    task: task-1
    reporter: coder-1
    type: external_blocker
    details: {blocker_service: payments-sandbox, spec_ref: "specs/payments.md#FR-3"}
  - timestamp: 2026-02-18T09:30:00Z
    task: task-2
    reporter: coder-2
    type: external_blocker
    details: {blocker_service: payments-sandbox}
`, []push{green}, "external_service_outage", "EXTERNAL_DEPENDENCY"},
		{"two similar errors are not three", `anomalies:
  - {task: task-3, type: retry_loop, details: {error_pattern: "serialization failure"}}
  - {task: task-5, type: retry_loop, details: {error_pattern: "serialization failure"}}
`, []push{green}, "", ""},
		// CI's evidence: a test failing at 3 observed pushes is a retry_loop;
		// with two logged ones of the same pattern, that is a cluster.
		{"derived from CI", `anomalies:
  - {task: task-3, type: retry_loop, details: {error_pattern: "want 000, got 000"}}
  - {task: task-5, type: retry_loop, details: {error_pattern: "want 000, got 000"}}
`, []push{{"TestLogin": "fail:want 200, got 503"}, {"TestLogin": "fail:want 200, got 503"}, {"TestLogin": "fail:want 200, got 503"}},
			"retry_cluster", "ARCHITECTURE_FLAW"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := policyScenario(t, tt.pushes, map[string]string{".liza/state.yaml": tt.state}, "liza", nil)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.pattern != ""
			if (rep["state"] == "OPEN") != want || (tt.pattern != "" && (get(rep, "policy_detail.pattern") != tt.pattern || get(rep, "policy_detail.severity") != tt.severity)) {
				t.Fatalf("state %v, liza %v; want open %v, %s %s", rep["state"], get(rep, "policy_detail"), want, tt.pattern, tt.severity)
			}
		})
	}
	_, err := policyScenario(t, []push{green}, map[string]string{".liza/state.yaml": "anomalies: [oops"}, "liza", nil)
	if err == nil || !strings.Contains(err.Error(), ".liza/state.yaml") {
		t.Errorf("malformed state.yaml: %v; want an error naming the file", err)
	}
}
