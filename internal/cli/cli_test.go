package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHelp_EveryCommandIsGoldenAndNamesExitCodes(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"help/breaker.golden":  {"--help"},
		"help/evaluate.golden": {"evaluate", "--help"},
		"help/demo.golden":     {"demo", "--help"},
		"help/protocol.golden": {"protocol", "--help"},
		"help/action.golden":   {"action", "--help"},
		"help/ledger.golden":   {"ledger", "--help"},
	}
	for name, args := range cases {
		stdout, stderr, code := runCLI(t, "", args...)
		if code != ExitClosed || stderr != "" {
			t.Errorf("breaker %s: exit %d, stderr %q; want 0 and no stderr", strings.Join(args, " "), code, stderr)
		}
		matchGolden(t, name, stdout)
		for _, c := range []string{"\n  0 ", "\n  1 ", "\n  2 ", "\n  42 "} {
			if !strings.Contains(stdout, c) {
				t.Errorf("breaker %s: help does not name exit code%s", strings.Join(args, " "), strings.TrimRight(c, " "))
			}
		}
	}
}

func TestHelp_TopLevelListsEveryCommand(t *testing.T) {
	t.Parallel()
	stdout, _, _ := runCLI(t, "", "help")
	for _, c := range commands() {
		if !strings.Contains(stdout, "\n  "+c.name+" ") {
			t.Errorf("breaker help does not list %q", c.name)
		}
	}
}

func TestMain_UsageErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"evaluate", "--format", "yaml"}, "--format"},
		{[]string{"evaluate", "--no-such-flag"}, "no-such-flag"},
		{[]string{"demo", "--format", "html"}, "--format"},
		{[]string{"action", "extra"}, "unexpected argument"},
	}
	for _, tc := range cases {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("breaker %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	stdout, _, code := runCLI(t, "", "version")
	if code != ExitClosed || stdout != "breaker "+Version+"\n" {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

// The demo is the README's first command: its output is a golden file in
// every format, and it must trip the breaker.
func TestDemo_TripsAndIsGolden(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"markdown", "text", "json"} {
		stdout, stderr, code := runCLI(t, "", "demo", "--format", format)
		if code != ExitTripped {
			t.Fatalf("demo --format %s: exit %d (stderr %q), want %d", format, code, stderr, ExitTripped)
		}
		matchGolden(t, "demo/demo."+format+".golden", stdout)
	}
	stdout, _, _ := runCLI(t, "", "demo", "--format", "json")
	var rep jsonReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("demo json: %v", err)
	}
	if rep.Schema != "greenlight-breaker/v1" || !rep.Tripped || rep.TripReason == nil || *rep.TripReason != "per_test" || rep.State != "OPEN" {
		t.Errorf("demo json = schema %q tripped %v reason %v state %q; want v1, tripped per_test OPEN",
			rep.Schema, rep.Tripped, rep.TripReason, rep.State)
	}
}
