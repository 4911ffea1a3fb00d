package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// untrustedDecision puts s in every field an agent or the code under test
// controls, the slice included.
func untrustedDecision(s string) breaker.Decision {
	d := misreportDecision()
	d.Slice, d.TrippedTest, d.HeadInfra = s, s, s
	d.Tests[0].Name, d.Tests[1].Status = s, s
	d.Attempts[0].Strategy, d.Attempts[1].Error, d.Attempts[2].AgentError = s, s, s
	d.Attempts[0].Files = []breaker.FileChange{{Path: s, Change: breaker.ChangeAdded}}
	d.Violations[0].File, d.Violations[0].Justification = s, s
	d.Misreports[0].Test = s
	d.Prior = []breaker.Attempt{{Number: 1, SHA: s, Test: s, Strategy: s, Error: s, Result: breaker.OutcomeFail}}
	d.Notes = []string{s}
	g := &d.Diagnostics[0]
	g.Test, g.TestExpectation, g.ActualError = s, s, s
	g.BestHypothesis, g.SpecificQuestion = s, s
	g.AttemptLog[0].Strategy, g.AttemptLog[0].Result, g.AttemptLog[0].Files = s, s, []string{s}
	g.CumulativeFiles[0].Path = s
	g.ScopeViolations[0].File, g.ScopeViolations[0].Justification, g.ScopeViolations[0].Test = s, s, s
	g.ScopeViolations[len(g.ScopeViolations)-1].File = s // the unjustified one, named in view
	g.RecoveryOptions[0].Option, g.RecoveryOptions[0].Risk, g.RecoveryOptions[0].Command = s, s, s
	return d
}

func FuzzRenderers(f *testing.F) {
	for _, s := range []string{
		hostile, "", "`", "``` x", "@a", "@org/team", Marker("S-3"), "<!-- x -->", "::add-mask::v",
		"\x1b[31m", "|", "\r\n```\r\n", "</details>", "&#64;a", "# h", "1. x", "\\", "_a_", "\u2028::x::",
		"\xff\xfe", token, "<!--greenlight-breaker:", "-->", "~~~", "    indented",
		token[:9] + "\x14" + token[9:], token[:9] + "<!-- -->" + token[9:], "<!--greenlight-BreAk\u200ber",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return // keep the report under the size limit: no truncation
		}
		d := untrustedDecision(s)
		md := Markdown(d, Options{Marker: true, Acknowledgement: s})
		p := checkMarkdown(t, md, s)
		want := strings.TrimRight(stripControls((*Redactor)(nil).Clean(s)), "\n")
		if strings.TrimSpace(want) != "" && !containsLine(p.blocks, want) {
			t.Errorf("the actual error is not an intact fenced block; want %q in %q", want, p.blocks)
		}
		if !containsLine(p.outside, "#### Recovery options") {
			t.Errorf("untrusted text swallowed a heading:\n%s", md)
		}
		checkTerminal(t, Text(d))
		out, err := JSON(d)
		if err != nil {
			t.Fatalf("JSON: %v", err)
		}
		checkTerminal(t, string(out))
		for _, r := range []string{md, Text(d), string(out)} {
			if strings.Contains(r, token) {
				t.Fatalf("the token, however split, is never shown whole:\n%s", r)
			}
		}
		if DefuseCommands(string(out)) != string(out) {
			// breaker evaluate --format json prints the report as it is.
			t.Errorf("the JSON report holds a workflow command to defuse:\n%s", out)
		}
		var rep Report
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("JSON output does not decode: %v", err)
		}
		if markerPattern().Match(out) || markerPattern().MatchString(rep.Notes[0]) {
			t.Errorf("marker in the JSON report")
		}
	})
}
