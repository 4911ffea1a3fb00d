package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/report"
)

// The tests of this file's neighbours (verdict_test.go, scope_test.go,
// policy_test.go) judge real repositories as `breaker evaluate` does:
// Load, Decide with the local tags, and the v1 JSON report. The command's
// own tests (internal/cli) keep its flags, help and exit codes; exit 42 is
// an OPEN state (cli.ExitCode), so these tests read the state.

// testDup is the test the shop's agent keeps failing.
const testDup = "TestRegister_DuplicateEmail"

// judgeOpts is what `breaker evaluate --repo dir --base main` passes Load:
// the default policy, the named result files read wherever they are.
func judgeOpts(dir string, results ...string) Options {
	return Options{RepoDir: dir, Base: "main", Results: results, NamedResultsAnywhere: true,
		Policy: breaker.DefaultPolicy(), Threshold: breaker.DefaultThreshold}
}

// judge loads and decides with opts and returns the decision and its v1
// JSON report, ending the test when Load fails.
func judge(t *testing.T, opts Options) (breaker.Decision, []byte) {
	t.Helper()
	d, out, err := tryJudge(opts)
	if err != nil {
		t.Fatal(err)
	}
	return d, out
}

// tryJudge is judge returning Load's error.
func tryJudge(opts Options) (breaker.Decision, []byte, error) {
	snap, err := Load(context.Background(), opts)
	if err != nil {
		return breaker.Decision{}, nil, fmt.Errorf("Load: %w", err)
	}
	d := snap.Decide(snap.LocalRefs())
	out, err := report.JSON(d)
	return d, out, err
}

// judgeInto is judge with the report decoded into v.
func judgeInto(t *testing.T, opts Options, v any) breaker.Decision {
	t.Helper()
	d, out := judge(t, opts)
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("decode report: %v\n%s", err, out)
	}
	return d
}
