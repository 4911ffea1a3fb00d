package actionenv

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapEnv returns a getenv over m.
func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestAction_Inputs(t *testing.T) {
	t.Parallel()
	defaults := Inputs{
		Token: "ghs_abcdef", TrailerPrefix: "Greenlight-", TagPrefix: "greenlight/",
		Comment: true, CommentMode: CommentOnFailure, FailOnTrip: true, CheckName: "greenlight-breaker",
		Policy: "greenlight", Threshold: 5, Mode: ModeJudge, LedgerRead: LedgerReadNewest,
	}
	tests := []struct {
		name string
		env  map[string]string
		want func(in *Inputs)
	}{
		{"defaults", map[string]string{}, func(*Inputs) {}},
		{"every input, hyphens kept in the env name", map[string]string{
			"INPUT_RESULTS":        "  junit/*.xml\n\n  go-test.json \n",
			"INPUT_SLICE":          "S-3",
			"INPUT_BASE":           "0123456789abcdef0123456789abcdef01234567",
			"INPUT_GRAPH":          ".greenlight/GRAPH.json",
			"INPUT_TRAILER-PREFIX": "Agent-",
			"INPUT_TAG-PREFIX":     "gl/",
			"INPUT_COMMENT":        "False",
			"INPUT_AGENT-ACTORS":   "agent-bot\nclaude, devin",
			"INPUT_BOT-LOGIN":      "my-app[bot]",
			"INPUT_FAIL-ON-TRIP":   "FALSE",
			"INPUT_DRY-RUN":        "true",
			"INPUT_CHECK-NAME":     "breaker",
			"INPUT_LEDGER-KEY":     "0123456789abcdef0123",
			"INPUT_LEDGER-READ":    " Every-Page",
			"INPUT_APP-ID":         "123456",
		}, func(in *Inputs) {
			in.CheckName, in.LedgerKey, in.AppID = "breaker", "0123456789abcdef0123", 123456
			in.LedgerRead = LedgerReadEveryPage
			in.Results = []string{"junit/*.xml", "go-test.json"}
			in.Slice, in.Base, in.Graph = "S-3", "0123456789abcdef0123456789abcdef01234567", ".greenlight/GRAPH.json"
			in.TrailerPrefix, in.TagPrefix = "Agent-", "gl/"
			in.Comment, in.CommentMode, in.FailOnTrip, in.DryRun = false, CommentOff, false, true
			in.AgentActors = []string{"agent-bot", "claude", "devin"}
			in.BotLogin = "my-app[bot]"
		}},
		{"underscore spelling accepted", map[string]string{"INPUT_DRY_RUN": "true"}, func(in *Inputs) { in.DryRun = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"INPUT_TOKEN": "ghs_abcdef"}
			for k, v := range tt.env {
				env[k] = v
			}
			got, err := New(mapEnv(env), io.Discard).Inputs()
			if err != nil {
				t.Fatalf("Inputs() error = %v", err)
			}
			want := defaults
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Inputs() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAction_Inputs_errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want string // a substring of the error
	}{
		{"no token", map[string]string{"INPUT_TOKEN": ""}, "input token is empty"},
		{"bad boolean", map[string]string{"INPUT_FAIL-ON-TRIP": "yes"}, `input fail-on-trip: "yes" is not a boolean; use true or false`},
		{"bad comment", map[string]string{"INPUT_COMMENT": "1"}, "input comment"},
		{"bad ledger read", map[string]string{"INPUT_LEDGER-READ": "all"}, `input ledger-read: "all" is not newest or every-page`},
		{"slice escaping a ref", map[string]string{"INPUT_SLICE": "../heads/main"}, "input slice"},
		{"slice with dots", map[string]string{"INPUT_SLICE": "S..3"}, "input slice"},
		{"tag prefix with ..", map[string]string{"INPUT_TAG-PREFIX": "gl/../x/"}, "input tag-prefix"},
		{"tag prefix absolute", map[string]string{"INPUT_TAG-PREFIX": "/gl/"}, "input tag-prefix"},
		{"trailer prefix with colon", map[string]string{"INPUT_TRAILER-PREFIX": "Bad:"}, "input trailer-prefix"},
		{"bad agent login", map[string]string{"INPUT_AGENT-ACTORS": "ok\nnot a login"}, "input agent-actors"},
		{"bad bot login", map[string]string{"INPUT_BOT-LOGIN": "@bot"}, "input bot-login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"INPUT_TOKEN": "ghs_abcdef"}
			for k, v := range tt.env {
				env[k] = v
			}
			_, err := New(mapEnv(env), io.Discard).Inputs()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Inputs() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
