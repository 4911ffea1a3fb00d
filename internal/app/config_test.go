package app_test

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/app"
)

// .github/breaker.yml: the Action's inputs by name and the tested
// workflows; what the server sets itself, and what no input is, are
// errors naming the line.
func TestParseConfig_ServerInputsAndUnknownKeysAreErrors(t *testing.T) {
	t.Parallel()
	c, err := app.ParseConfig([]byte("workflows: [Tests, CI]\nresults-artifact: test-results\non-trip-unassign:\n  - copilot\n  - agent-bot\nfail-on-trip: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Judges("CI") || c.Judges("Lint") || c.Inputs["results-artifact"] != "test-results" ||
		c.Inputs["on-trip-unassign"] != "copilot\nagent-bot" || c.Inputs["fail-on-trip"] != "true" {
		t.Errorf("config = %+v", c)
	}
	if c, err := app.ParseConfig(nil); err != nil || !c.Judges("Tests") || len(c.Inputs) != 0 {
		t.Errorf("no file: %+v, %v; want the defaults", c, err)
	}
	cases := []struct{ file, want string }{
		{"results: x\ntoken: ghp_mine\n", ".github/breaker.yml:2: token is the server's"},
		{"ledger-key: k\n", "ledger-key is the server's"},
		{"app-id: 1\n", "app-id is the server's"},
		{"resutls: x\n", `unknown key "resutls"`},
		{"workflows: []\n", "workflows is empty"},
		{"results: {a: b}\n", "results: want a value or a list"},
		{"- a\n- b\n", "YAML mapping"},
	}
	for _, c := range cases {
		if _, err := app.ParseConfig([]byte(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.file, err, c.want)
		}
	}
}
