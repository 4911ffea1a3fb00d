package cli

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
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// push is one pushed head of a policy scenario: each test's status, and
// the error a failing test reports.
type push map[string]string // test → "pass", "fail", or "fail:<message>"

// policyScenario builds a real repository with one commit per push, the
// ledger entries CI kept for every push but the last, and the last push's
// results, then runs breaker evaluate --ledger ... --policy with extra flags.
// It returns the JSON report, the exit code and the text of stderr.
func policyScenario(t *testing.T, pushes []push, files map[string]string, extra ...string) (map[string]any, int, string) {
	t.Helper()
	r := newTestRepo(t)
	r.git("checkout", "-q", "-b", "agent/fix")
	t0 := time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC)
	var entries []ledger.Entry
	for i, p := range pushes {
		commitFiles := map[string]string{fmt.Sprintf("internal/auth/fix%d.go", i): "package auth\n"}
		if i == len(pushes)-1 {
			for k, v := range files {
				commitFiles[k] = v
			}
		}
		head := r.commit(fmt.Sprintf("Fix the login, take %d", i+1), commitFiles)
		if i == len(pushes)-1 {
			writeJUnit(t, filepath.Join(r.dir, "junit.xml"), p)
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
	file := filepath.Join(t.TempDir(), "entries.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.WriteLines(f, entries); err != nil {
		t.Fatal(err)
	}
	f.Close()
	args := append([]string{"evaluate", "--repo", r.dir, "--head", "agent/fix", "--base", "main", "--results", "junit.xml",
		"--ledger", file, "--format", "json"}, extra...)
	out, stderr, code := runCLI(t, "", args...)
	var rep map[string]any
	if code == ExitUsage || code == ExitError {
		return nil, code, stderr
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON (%v):\n%s\n%s", err, out, stderr)
	}
	return rep, code, stderr
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
	writeFile(t, path, b.String())
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
		code   int
		state  string
		reason any
	}{
		// push 1: no progress (1); push 2: no progress (2) → HALF_OPEN, exit 0.
		{"HALF_OPEN after 2 pushes without progress", []push{fail, fail}, ExitClosed, "HALF_OPEN", nil},
		// push 3: still none → OPEN at GREEN's threshold.
		{"OPEN at the GREEN threshold", []push{fail, fail, fail}, ExitTripped, "OPEN", "no_progress"},
		// HALF_OPEN, then TestLogin passes → CLOSED.
		{"back to CLOSED on progress", []push{fail, fail, {"TestLogin": "pass", "TestLogout": "pass"}}, ExitClosed, "CLOSED", nil},
		// Progress every push (a new passing test), the same error each time → OPEN at 3.
		{"OPEN on 3 identical errors", []push{fail, other, {"TestLogin": "fail:want 200, got 503", "TestLogout": "pass", "TestNew": "pass", "TestMore": "pass"}},
			ExitTripped, "OPEN", "same_error"},
		// One test fixed per push while the rest fail with one identical
		// error: the same error (seed 002 hashes the error, not the tests).
		{"OPEN on the same error across fewer tests", []push{
			{"TestA": "fail:dial tcp: connection refused", "TestB": "fail:dial tcp: connection refused", "TestC": "fail:dial tcp: connection refused"},
			{"TestA": "pass", "TestB": "fail:dial tcp: connection refused", "TestC": "fail:dial tcp: connection refused"},
			{"TestA": "pass", "TestB": "pass", "TestC": "fail:dial tcp: connection refused"},
		}, ExitTripped, "OPEN", "same_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, code, stderr := policyScenario(t, tt.pushes, nil, "--policy", "prp")
			if code != tt.code || rep["state"] != tt.state || rep["trip_reason"] != tt.reason || rep["policy_state"] != tt.state || rep["policy"] != "prp" {
				t.Fatalf("exit %d state %v policy_state %v reason %v; want %d %s %v\n%s\n%v", code, rep["state"], rep["policy_state"], rep["trip_reason"],
					tt.code, tt.state, tt.reason, stderr, get(rep, "policy_detail"))
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
		name   string
		pushes []push
		extra  []string
		code   int
		status string
	}{
		{"4 failed pushes: not yet", []push{fail, fail, fail, fail}, nil, ExitClosed, "HEALTHY"},
		{"5 failed pushes trigger", []push{fail, fail, fail, fail, fail}, nil, ExitTripped, "TRIGGERED"},
		{"a success resets the count", []push{fail, fail, fail, fail, fixed, {"TestLogin": "pass", "TestLogout": "fail"}}, nil, ExitClosed, "HEALTHY"},
		{"--threshold 3", []push{fail, fail, fail}, []string{"--threshold", "3"}, ExitTripped, "TRIGGERED"},
		{"everything passes: COMPLETE", []push{fail, fixed}, nil, ExitClosed, "COMPLETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, code, stderr := policyScenario(t, tt.pushes, nil, append([]string{"--policy", "bmad"}, tt.extra...)...)
			if code != tt.code || rep["policy_state"] != tt.status || get(rep, "policy_detail.status") != tt.status {
				t.Fatalf("exit %d, policy_state %v; want %d %s\n%s\n%v", code, rep["policy_state"], tt.code, tt.status, stderr, get(rep, "policy_detail"))
			}
		})
	}
	_, code, stderr := policyScenario(t, []push{fail}, nil, "--policy", "bmad", "--threshold", "0")
	if code != ExitUsage || !strings.Contains(stderr, "3–10 is recommended") {
		t.Errorf("--threshold 0: exit %d, %q; want 2 with the seed's recommendation", code, stderr)
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
			rep, code, stderr := policyScenario(t, tt.pushes, map[string]string{".liza/state.yaml": tt.state}, "--policy", "liza")
			want := ExitClosed
			if tt.pattern != "" {
				want = ExitTripped
			}
			if code != want || (tt.pattern != "" && (get(rep, "policy_detail.pattern") != tt.pattern || get(rep, "policy_detail.severity") != tt.severity)) {
				t.Fatalf("exit %d, liza %v; want %d, %s %s\n%s", code, get(rep, "policy_detail"), want, tt.pattern, tt.severity, stderr)
			}
		})
	}
	_, code, stderr := policyScenario(t, []push{green}, map[string]string{".liza/state.yaml": "anomalies: [oops"}, "--policy", "liza")
	if code != ExitError || !strings.Contains(stderr, ".liza/state.yaml") {
		t.Errorf("malformed state.yaml: exit %d, %q; want 1 naming the file", code, stderr)
	}
}
