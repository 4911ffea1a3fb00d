package action_test

import (
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// Attack 4: with no result file matched, three commits that admit their
// failure (Greenlight-Result: fail) trip the breaker: a fail claim needs no
// confirmation. A result file named without wildcards that does not exist
// is an error, not "the tests did not run".
func TestAttack_AdmittedFailuresCountWithoutResults(t *testing.T) {
	t.Parallel()
	r := gitrepo.Shop(t)
	r.Git("checkout", "-q", "-b", "agent/S-1")
	for _, s := range []string{"one", "two", "three"} {
		r.Attempt("S-1", testDup, s, "Greenlight-Result: fail")
	}
	rep, code := evaluateJSON(t, r, "--results", "reports/*.xml") // matches nothing: infra
	if code != cli.ExitTripped || reason(rep) != "per_test" {
		t.Errorf("exit %d, reason %s; want 42, per_test", code, reason(rep))
	}
	// A named file that is missing is missing results, named in the report
	// (a failed push after pushes that had results), never a pass.
	rep, code = evaluateJSON(t, r, "--results", "missing.xml")
	if code != cli.ExitTripped || rep.HeadInfra == nil || !strings.Contains(*rep.HeadInfra, "missing.xml") {
		t.Errorf("a missing named file: exit %d, head infra %v; want 42 naming it", code, rep.HeadInfra)
	}
}

// Attack 5: the token in the shapes it leaks in (base64 of
// x-access-token:TOKEN as git's extraheader holds it, URL-encoded, an
// Authorization header) is redacted in the comment, the step summary, the
// JSON report and the log.
func TestAttack_TokenShapesAreRedactedEverywhere(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	shapes := []string{
		base64.StdEncoding.EncodeToString([]byte("x-access-token:" + actionToken)),
		url.QueryEscape(actionToken + "/x"),
		"Authorization: Bearer abcdefghijklmnop1234",
	}
	h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	head := ""
	for i := range 3 {
		head = h.repo.Attempt("S-3", testDup, "try "+string(rune('a'+i)))
	}
	msg := "extraheader: AUTHORIZATION: basic " + shapes[0] + " url=" + shapes[1] + " " + shapes[2]
	writeFile(t, filepath.Join(h.repo.Dir, "junit.xml"), `<testsuite><testcase classname="users" name="`+testDup+`"><failure message="`+xmlEscape(msg)+`">`+xmlEscape(msg)+`</failure></testcase></testsuite>`)
	h.openPR(head)
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	report, _ := os.ReadFile(filepath.Join(h.repo.Dir, action.ReportFile))
	// The log's ::add-mask:: line registers the token with the runner, which
	// never prints it: every other line must not carry it.
	log := regexp.MustCompile(`(?m)^::add-mask::.*$`).ReplaceAllString(res.stdout, "")
	channels := map[string]string{"comment": h.comments(7)[0].Body, "summary": res.summary, "json": string(report), "log": log}
	for name, text := range channels {
		for _, leak := range []string{shapes[0], strings.TrimRight(shapes[0], "="), url.QueryEscape(actionToken), "abcdefghijklmnop1234", actionToken} {
			if strings.Contains(text, leak) {
				t.Errorf("%s leaks %q", name, leak)
			}
		}
	}
}

// Attack 10: issue references and URLs from trailers do not link back to
// issues from the comment: #12, owner/repo#34, GH-56 and URLs are defused.
func TestAttack_BacklinksAreInert(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.repo.Git("checkout", "-q", "-b", "agent/S-3")
	head := ""
	for range 3 {
		head = h.repo.Attempt("S-3", testDup, "fixes #12 and acme/shop#34, see GH-56 and https://github.com/acme/shop/issues/9",
			"Greenlight-Hypothesis: like #77 said")
	}
	h.failing(testDup)
	h.openPR(head)
	if res := h.run("push", pushEvent(t, "agent/S-3", head)); res.code != cli.ExitTripped {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	body := stripCode(h.comments(7)[0].Body)
	for _, re := range []string{`#[0-9]`, `(?i)\bgh-[0-9]`, `https?://github\.com/acme`} {
		if m := regexp.MustCompile(re).FindString(body); m != "" {
			t.Errorf("the comment carries a live backlink %q", m)
		}
	}
	if !strings.Contains(h.comments(7)[0].Body, "#\u200d12") {
		t.Errorf("the reference is gone rather than defused")
	}
}

// Attack 7: a comment POST answered 502 after GitHub created it is not
// posted again: the breaker looks for its marker first.
func TestAttack_LostAnswerDoesNotDoubleTheComment(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/issues/*/comments", Status: 502, Times: 3, After: true})
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	if got := h.comments(7); len(got) != 1 {
		t.Errorf("%d comments, want exactly 1", len(got))
	}
	if !strings.Contains(res.summary, "not posted twice") {
		t.Errorf("the summary does not say the comment was found after the lost answer:\n%s", res.summary)
	}
}

// Attack 11: a 422 "Body is too long" is answered once at half the size.
func TestAttack_BodyTooLongIsRetriedAtHalfTheSize(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/issues/*/comments", Status: 422,
		Body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}]}`})
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if got := h.comments(7); len(got) != 1 || len(got[0].Body) > maxCommentBytesForTest/2 {
		t.Errorf("comments %d; want one, at most half the budget", len(got))
	}
	if !strings.Contains(res.summary, "half the size") {
		t.Errorf("the summary does not say it retried at half the size:\n%s", res.summary)
	}
}

const maxCommentBytesForTest = 65000

// Attack 11: with two comments of ours (two runs raced), the newest is
// edited and the older of ours deleted (RELIABILITY 27: runs converge on
// one comment); a human's comment with the marker is left alone; the
// summary says what was done.
func TestAttack_TwoCommentsOfOursEditTheNewest(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	old := h.srv.AddComment(7, "github-actions[bot]", "<!-- greenlight-breaker:S-3 -->\nold")
	newer := h.srv.AddComment(7, "github-actions[bot]", "<!-- greenlight-breaker:S-3 -->\nnewer")
	human := h.srv.AddComment(7, "maintainer", "<!-- greenlight-breaker:S-3 -->\nquoted by a human")
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	ids := map[int64]string{}
	for _, c := range h.comments(7) {
		ids[c.ID] = c.Body
	}
	if _, ok := ids[old]; ok {
		t.Errorf("the older comment of ours is still there: runs that raced must converge on one")
	}
	if body, ok := ids[newer]; !ok || strings.HasSuffix(body, "newer") {
		t.Errorf("the newest comment was not edited: %q", body)
	}
	if body := ids[human]; !strings.HasSuffix(body, "quoted by a human") {
		t.Errorf("a human's comment with the marker was touched: %q", body)
	}
	if !strings.Contains(res.summary, "the newest is edited, the older deleted") {
		t.Errorf("the summary does not say which was edited:\n%s", res.summary)
	}
}

// Attack 11: a push event whose after is null is an error, not a green
// no-op.
func TestAttack_PushWithoutAHeadIsAnError(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	h.anyPayload = true // GitHub never sends a null after: the agent's crafted event
	ev := pushEvent(t, "agent/S-3", "x")
	setPath(ev, "after", nil)
	res := h.run("push", ev)
	if res.code != cli.ExitError || !strings.Contains(res.stdout, "no commit to judge") {
		t.Errorf("exit %d; want 1 naming the missing head\n%s", res.code, res.stdout)
	}
}

// Attack 6: the legacy "##[cmd]" form of workflow commands, which the
// runner reads anywhere in a line, never reaches stdout raw from any
// command: results (text and JSON), evaluate's verdict and its errors.
func TestAttack_LegacyWorkflowCommandsAreDefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := `TestX ##[set-output name=tripped]false`
	writeFile(t, filepath.Join(dir, "r.xml"), `<testsuite><testcase classname="c" name="`+xmlEscape(name)+`"><failure message="##[add-mask]x">::error::y</failure></testcase></testsuite>`)
	for _, format := range []string{"text", "json"} {
		out, _, _ := runCLI(t, "", "results", "--workspace", dir, "--format", format, "r.xml")
		if strings.Contains(out, "##[") {
			t.Errorf("results --format %s prints ##[ raw:\n%s", format, out)
		}
	}
	r := gitrepo.Shop(t)
	r.Git("checkout", "-q", "-b", "agent/S-1")
	r.Attempt("S-1", "TestX", "try ##[set-output name=a]b")
	_, stderr, _ := runCLI(t, "", "evaluate", "--repo", r.Dir, "--base", "main", "--results", "missing ##[add-mask]x.xml")
	out, _, _ := runCLI(t, "", "evaluate", "--repo", r.Dir, "--base", "main", "--format", "markdown")
	for where, text := range map[string]string{"evaluate's error": stderr, "evaluate's verdict": out} {
		if strings.Contains(text, "##[") {
			t.Errorf("%s prints ##[ raw:\n%s", where, text)
		}
	}
}

// Attack 11: the graph input may not leave the workspace, relative or
// absolute, in the Action as on the command line.
func TestAttack_GraphInputOutsideTheWorkspaceIsRefused(t *testing.T) {
	t.Parallel()
	for _, graph := range []string{"../GRAPH.json", "/etc/passwd"} {
		h := newActionHarness(t)
		_, head := h.spiral(1)
		h.openPR(head)
		h.inputs["graph"] = graph
		res := h.run("push", pushEvent(t, "agent/S-3", head))
		if res.code != cli.ExitError || !strings.Contains(res.stdout, "leads outside the workspace") {
			t.Errorf("graph %q: exit %d; want 1, refused\n%s", graph, res.code, res.stdout)
		}
	}
}
