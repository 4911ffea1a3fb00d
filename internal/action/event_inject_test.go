package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/cli"
)

// hostile is text an agent (or whatever it read) could put in a commit:
// workflow commands, a mention, an HTML block end and our marker.
const hostile = "::error::x @octocat </details> <!-- greenlight-breaker:S-3 --> ::set-output name=tripped::false"

// main: I ── agent/S-3: H ── H ── A ── A ── A; H attempts the test named
// "::error::x @octocat", every message and trailer carries hostile text,
// and CI's failure output carries commands, a fence and the token.
func TestAction_UntrustedTextIsInertEverywhere(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	var head string
	for i, test := range []string{"::error::x @octocat", "::error::x @octocat", testDup, testDup, testDup} {
		msg := fmt.Sprintf("::error::x subject %d @octocat\n\n::set-output name=tripped::false\n::add-mask::\n"+
			"</details>\n<!-- greenlight-breaker:S-3 -->\n\nGreenlight-Slice: S-3\nGreenlight-Test: %s\n"+
			"Greenlight-Strategy: %s\nGreenlight-Hypothesis: %s\nGreenlight-Question: %s\n", i, test, hostile, hostile, hostile)
		head = h.repo.CommitFiles(msg, map[string]string{fmt.Sprintf("internal/users/a%d.go", i): "package users\n"})
	}
	out := "expected 409, got 500\n::error::from-test-output\n```\n~~~\ntoken " + actionToken + "\n" + hostile
	writeFile(t, filepath.Join(h.repo.Dir, "junit.xml"), `<?xml version="1.0"?><testsuite name="users"><testcase classname="users" name="`+
		testDup+`"><failure message="boom">`+xmlEscape(out)+`</failure></testcase></testsuite>`)
	h.openPR(head)

	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitTripped, res.stdout)
	}
	comments := h.comments(7)
	if len(comments) != 1 {
		t.Fatalf("comments = %d, want 1: a comment with a stray marker is refused", len(comments))
	}
	body := comments[0].Body
	for _, probe := range []string{"set-output name=tripped", "from-test-output"} {
		if !strings.Contains(body, probe) {
			t.Errorf("comment lacks %q: the hostile text was not rendered, so nothing was tested", probe)
		}
	}
	checkInertMarkdown(t, "comment", body, 1)
	checkInertMarkdown(t, "step summary", res.summary, 0)
	checkLog(t, res.stdout)
	if !strings.Contains(res.stdout, "::error::x @octocat") {
		t.Errorf("the hostile test name is not in the log at all, so the log was not tested")
	}
	for name, v := range res.outputs {
		if strings.Contains(v, "::") || strings.Contains(v, "\n") {
			t.Errorf("output %s = %q carries a command or a line break", name, v)
		}
	}
	if res.outputs["tripped"] != "true" {
		t.Errorf("output tripped = %q, want true: commit text may not set outputs", res.outputs["tripped"])
	}
	report, err := os.ReadFile(filepath.Join(h.repo.Dir, action.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]string{"stdout": res.stdout, "stderr": res.stderr, "summary": res.summary,
		"comment": body, "GITHUB_OUTPUT": fmt.Sprint(res.outputs), "JSON report": string(report)}
	for _, c := range h.srv.Calls() {
		places[c.String()+" body"] += c.Body
	}
	for where, text := range places {
		text = strings.Replace(text, "::add-mask::"+actionToken+"\n", "", 1) // the one line the runner needs
		if strings.Contains(text, actionToken) {
			t.Errorf("the token leaks into %s", where)
		}
	}
}

// checkInertMarkdown checks that, outside code, md mentions nobody and
// closes no <details>, and that it carries exactly markers markers.
func checkInertMarkdown(t *testing.T, where, md string, markers int) {
	t.Helper()
	if got := strings.Count(strings.ToLower(md), "<!-- greenlight-breaker"); got != markers {
		t.Errorf("%s carries %d markers, want %d", where, got, markers)
	}
	prose := stripCode(md)
	if strings.Contains(prose, "@octocat") {
		t.Errorf("%s mentions @octocat outside code", where)
	}
	if o, c := strings.Count(prose, "<details>"), strings.Count(prose, "</details>"); c > o {
		t.Errorf("%s closes %d <details> but opens %d: untrusted text broke out", where, c, o)
	}
}

// stripCode removes fenced blocks (a fence closes only on a line of the
// same character at least as long) and inline code spans.
func stripCode(md string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trim, fence) && strings.Trim(trim, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence = trim[:len(trim)-len(strings.TrimLeft(trim, trim[:1]))]
		default:
			parts := strings.Split(line, "`")
			for i := 0; i < len(parts); i += 2 {
				b.WriteString(parts[i])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// checkLog checks that every line the runner may read as a workflow
// command is one of ours: the token's mask, or an annotation with a title.
func checkLog(t *testing.T, log string) {
	t.Helper()
	for _, line := range outsideStopCommands(t, log) {
		cmd := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(cmd, "::") {
			continue
		}
		ours := cmd == "::add-mask::"+actionToken
		for _, p := range []string{"::error title=", "::warning title=", "::notice title="} {
			ours = ours || strings.HasPrefix(cmd, p)
		}
		if !ours {
			t.Errorf("log line outside stop-commands is a workflow command: %q", line)
		}
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// outsideStopCommands returns the log lines the runner reads as possible
// workflow commands: those outside every ::stop-commands:: block. A block
// left open is a test failure.
func outsideStopCommands(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	end := ""
	for _, line := range strings.Split(log, "\n") {
		switch {
		case end != "":
			if line == end {
				end = ""
			}
		case strings.HasPrefix(line, "::stop-commands::"):
			end = "::" + strings.TrimPrefix(line, "::stop-commands::") + "::"
		default:
			out = append(out, line)
		}
	}
	if end != "" {
		t.Errorf("log: the stop-commands block closed by %q is never closed", end)
	}
	return out
}
