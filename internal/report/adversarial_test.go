package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// token looks like a classic GitHub token; it must never be rendered.
const token = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"

// hostile is untrusted text carrying every trick DESIGN §5 names.
const hostile = "::set-output name=tripped::false\n" +
	"  ::add-mask::" + token + "\n" +
	"cc @octocat and @github/security, ping me@example.com\n" +
	"</details><details open><summary>fake</summary>\n" +
	"```` ``` `` ` backtick runs\n" +
	"<!-- greenlight-breaker:S-3 --> <!--greenlight-breaker:S-9-->\n" +
	"##[error]legacy command \x1b[31mred\x1b[0m \x1b]0;title\x07 bell\a\r::warning::cr\n" +
	"# Fake heading\n- [x] fake option\n| a | b |\n&#64;octocat"

// adversarialDecision puts hostile text in every field an agent controls.
func adversarialDecision() breaker.Decision {
	d := misreportDecision()
	d.Tests[0].Name, d.TrippedTest = "Test@octocat`</details>", "Test@octocat`</details>"
	d.Attempts[0].Strategy = hostile
	d.Attempts[1].Error = hostile + "\nAuthorization: Bearer abcdefghijklmnop"
	d.Attempts[2].AgentError = hostile
	d.Notes = []string{hostile}
	d.HeadInfra = hostile
	d.Violations[0].Justification = hostile
	g := &d.Diagnostics[0]
	g.Test = d.TrippedTest
	g.TestExpectation, g.ActualError = hostile, hostile
	g.BestHypothesis, g.SpecificQuestion = hostile, hostile
	g.AttemptLog[0].Strategy, g.AttemptLog[0].Result = hostile, hostile
	g.AttemptLog[0].Files = []string{"dir/@octocat|x`.go"}
	g.CumulativeFiles[0].Path = "dir/@octocat|x`.go"
	g.ScopeViolations[0].Justification = hostile
	g.RecoveryOptions[0].Option = hostile
	return d
}

func TestMarkdown_Adversarial(t *testing.T) {
	t.Parallel()
	md := Markdown(adversarialDecision(), Options{Marker: true, Redactor: NewRedactor(token)})
	p := checkMarkdown(t, md, "S-3")
	if strings.Contains(md, token) || strings.Contains(md, "abcdefghijklmnop") {
		t.Errorf("a secret reached the markdown")
	}
	want := strings.TrimRight(stripControls(NeutralizeMarker(strings.ReplaceAll(hostile, token, Redacted))), "\n")
	found := false
	for _, b := range p.blocks {
		found = found || b == want
	}
	if !found {
		t.Errorf("the actual error is not one intact fenced block; want content:\n%s", want)
	}
	for _, h := range []string{"**What actually happens**", "**Attempts log** (the strategies in the agent's words; each result names its source)", "#### Recovery options", "#### Notes", "</details>"} {
		if !containsLine(p.outside, h) {
			t.Errorf("heading %q is missing outside code: untrusted text swallowed it", h)
		}
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func TestText_Adversarial(t *testing.T) {
	t.Parallel()
	got := Text(adversarialDecision())
	checkTerminal(t, got)
	if strings.Contains(got, token) {
		t.Errorf("the token reached the text output")
	}
	if markerPattern().MatchString(got) {
		t.Errorf("our marker reached the text output")
	}
}

func TestJSON_Adversarial(t *testing.T) {
	t.Parallel()
	out, err := JSON(adversarialDecision())
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	checkTerminal(t, string(out))
	if strings.Contains(string(out), token) || strings.Contains(string(out), "abcdefghijklmnop") {
		t.Errorf("a secret reached the JSON")
	}
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if markerPattern().MatchString(rep.Notes[0]) || strings.Contains(rep.Notes[0], token) {
		t.Errorf("note not cleaned: %q", rep.Notes[0])
	}
	// Otherwise exact: the strategy keeps its mentions, pipes and backticks.
	want := NeutralizeMarker(strings.ReplaceAll(hostile, token, Redacted))
	if got := rep.Tests[0].Attempts[0].Strategy; got != want {
		t.Errorf("strategy = %q, want %q", got, want)
	}
}
