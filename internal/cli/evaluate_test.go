package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// runCLI runs the breaker command line in-process and returns its streams and exit code.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIEnv(t, nil, stdin, args...)
}

// runCLIEnv is runCLI with an environment.
func runCLIEnv(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = Main(context.Background(), append([]string{"breaker"}, args...), getenv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// writeFile writes body to path, ending the test on failure.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// jsonReport is the part of the v1 JSON report these tests read.
type jsonReport struct {
	Schema      string  `json:"schema"`
	State       string  `json:"state"`
	Tripped     bool    `json:"tripped"`
	TripReason  *string `json:"trip_reason"`
	Slice       string  `json:"slice"`
	TotalFailed int     `json:"total_failed_attempts"`
	HeadInfra   *string `json:"head_infra"`
	Checkpoint  struct {
		Tag string `json:"tag"`
		SHA string `json:"sha"`
	} `json:"checkpoint"`
	Tests []struct {
		Name           string `json:"name"`
		FailedAttempts int    `json:"failed_attempts"`
		Status         string `json:"status"`
	} `json:"tests"`
	Misreports []json.RawMessage `json:"misreports"`
	Pushes     []struct {
		Head     string   `json:"head"`
		Failed   bool     `json:"failed"`
		Progress bool     `json:"progress"`
		Vanished []string `json:"vanished"`
	} `json:"pushes"`
	Ledger struct {
		Entries  int      `json:"entries"`
		Signed   bool     `json:"signed"`
		Verified bool     `json:"verified"`
		Source   string   `json:"source"`
		Tampered []string `json:"tampered"`
	} `json:"ledger"`
	Diagnostics []struct {
		Test            string `json:"test"`
		ActualError     string `json:"actual_error"`
		RecoveryOptions []struct {
			Command string `json:"command"`
		} `json:"recovery_options"`
	} `json:"diagnostics"`
}

// evaluateJSON runs `breaker evaluate --format json` on the repository.
func evaluateJSON(t *testing.T, r *testRepo, extra ...string) (jsonReport, int) {
	t.Helper()
	args := append([]string{"evaluate", "--repo", r.dir, "--base", "main", "--format", "json"}, extra...)
	stdout, stderr, code := runCLI(t, "", args...)
	if code != ExitClosed && code != ExitTripped {
		t.Fatalf("breaker %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decode report: %v\n%s", err, stdout)
	}
	if rep.Schema != "greenlight-breaker/v1" {
		t.Errorf("schema = %q, want greenlight-breaker/v1", rep.Schema)
	}
	return rep, code
}

func reason(r jsonReport) string {
	if r.TripReason == nil {
		return "null"
	}
	return *r.TripReason
}

func failedOf(r jsonReport, test string) int {
	for _, tt := range r.Tests {
		if tt.Name == test {
			return tt.FailedAttempts
		}
	}
	return -1
}
