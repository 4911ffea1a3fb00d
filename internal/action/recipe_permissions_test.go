package action_test

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The permission each request the breaker sends needs of a workflow's
// GITHUB_TOKEN, from GitHub's "Permissions required for GitHub Apps" and
// each endpoint's "Fine-grained access tokens" section of the REST
// reference (docs.github.com/en/rest): checks for check runs; contents
// for git objects and refs; pull requests for a pull request and, on a
// pull request, its comments (issues would do as well, so either is
// accepted); metadata (always granted) for a collaborator's permission.
// GraphQL is one request whose fields need: checks (checkSuites),
// contents (refs, commits), pull requests (the pull request, its
// commits and timeline, its comments).
var requestPermissions = []struct {
	method string
	path   *regexp.Regexp
	needs  []string // every one is needed; "a|b" is either
}{
	{"POST", regexp.MustCompile(`/check-runs$`), []string{"checks: write"}},
	{"GET", regexp.MustCompile(`/pulls/\d+$`), []string{"pull-requests: read"}},
	{"GET", regexp.MustCompile(`/pulls$`), []string{"pull-requests: read"}},
	{"GET", regexp.MustCompile(`/commits/[0-9a-f]+/pulls$`), []string{"pull-requests: read"}},
	{"GET", regexp.MustCompile(`/issues/\d+/comments$`), []string{"pull-requests: read|issues: read"}},
	{"GET", regexp.MustCompile(`/issues/comments/\d+$`), []string{"pull-requests: read|issues: read"}},
	{"POST", regexp.MustCompile(`/issues/\d+/comments$`), []string{"pull-requests: write|issues: write"}},
	{"PATCH", regexp.MustCompile(`/issues/comments/\d+$`), []string{"pull-requests: write|issues: write"}},
	{"DELETE", regexp.MustCompile(`/issues/comments/\d+$`), []string{"pull-requests: write|issues: write"}},
	{"POST", regexp.MustCompile(`/issues/\d+/labels$`), []string{"pull-requests: write|issues: write"}},
	{"DELETE", regexp.MustCompile(`/issues/\d+/labels/`), []string{"pull-requests: write|issues: write"}},
	{"POST", regexp.MustCompile(`/issues/\d+/assignees$`), []string{"pull-requests: write|issues: write"}},
	{"POST", regexp.MustCompile(`/pulls/\d+/requested_reviewers$`), []string{"pull-requests: write"}},
	{"GET", regexp.MustCompile(`/actions/runs$`), []string{"actions: read"}},
	{"GET", regexp.MustCompile(`/actions/workflows/[^/]+/runs$`), []string{"actions: read"}},
	{"GET", regexp.MustCompile(`/actions/runs/\d+/jobs$`), []string{"actions: read"}},
	{"GET", regexp.MustCompile(`/actions/jobs/\d+/logs$`), []string{"actions: read"}},
	{"GET", regexp.MustCompile(`/actions/runs/\d+/artifacts$`), []string{"actions: read"}},
	{"GET", regexp.MustCompile(`/actions/artifacts/\d+/zip$`), []string{"actions: read"}},
	{"POST", regexp.MustCompile(`/actions/runs/\d+/cancel$`), []string{"actions: write"}},
	{"DELETE", regexp.MustCompile(`/pulls/\d+/requested_reviewers$`), []string{"pull-requests: write"}},
	{"DELETE", regexp.MustCompile(`/issues/\d+/assignees$`), []string{"pull-requests: write|issues: write"}},
	{"GET", regexp.MustCompile(`/collaborators/[^/]+/permission$`), nil},
	{"GET", regexp.MustCompile(`/git/commits/[0-9a-f]+$`), []string{"contents: read"}},
	{"POST", regexp.MustCompile(`/git/commits$`), []string{"contents: write"}},
	{"GET", regexp.MustCompile(`/git/ref/`), []string{"contents: read"}},
	{"POST", regexp.MustCompile(`/git/refs$`), []string{"contents: write"}},
	{"PATCH", regexp.MustCompile(`/git/refs/`), []string{"contents: write"}},
	{"DELETE", regexp.MustCompile(`/git/refs/`), []string{"contents: write"}},
	{"POST", regexp.MustCompile(`/graphql$`), []string{"checks: read", "contents: read", "pull-requests: read"}},
}

// grants reports whether perms (a workflow's permissions block) grants
// need ("scope: level", or alternatives split by |): write covers read.
func grants(perms map[string]string, need string) bool {
	for _, alt := range strings.Split(need, "|") {
		scope, level, _ := strings.Cut(alt, ": ")
		if got := perms[scope]; got == level || got == "write" {
			return true
		}
	}
	return false
}

// readmeRecipe is the documented workflow recipe (docs/action.md) whose
// first line names file (`# .github/workflows/<file>`), and its
// permissions block.
func readmeRecipe(t *testing.T, file string) map[string]string {
	t.Helper()
	return docRecipe(t, "action.md", file)
}

// docRecipe is readmeRecipe for the recipe of another page of docs/.
func docRecipe(t *testing.T, page, file string) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("../../docs/" + page)
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(readme), "```yaml\n")[1:] {
		body, _, _ := strings.Cut(block, "\n```")
		if !strings.HasPrefix(body, "# .github/workflows/"+file+"\n") {
			continue
		}
		var wf struct {
			Permissions map[string]string `yaml:"permissions"`
		}
		if err := yaml.Unmarshal([]byte(body), &wf); err != nil || len(wf.Permissions) == 0 {
			t.Fatalf("the recipe %s of docs/%s: %v, permissions %v", file, page, err, wf.Permissions)
		}
		return wf.Permissions
	}
	t.Fatalf("docs/%s shows no recipe starting with # .github/workflows/%s", page, file)
	return nil
}

// Each workflow recipe the documentation shows grants every permission the
// requests of its runs need: run what the recipe runs through the
// Action, map each request to its permission (requestPermissions), and
// read the recipe's permissions block (issue 30: a reset is a check run,
// which checks: read did not allow).
func TestRecipes_HaveThePermissionsTheirRequestsNeed(t *testing.T) {
	t.Parallel()
	recipes := []struct {
		file string
		// setup leaves the rig where the recipe's event comes; run runs
		// what the recipe runs on it.
		setup func(r *rig)
		run   func(r *rig) []outcome
	}{
		{"breaker-commands.yml", func(r *rig) { r.tripOn(7, "copilot/fix-login") }, func(r *rig) []outcome {
			return []outcome{
				r.comment(7, "alice", "/breaker debug"),
				r.comment(7, "alice", "/breaker reset copilot-fix-login --rollback try the cache"),
			}
		}},
		{"breaker-debug.yml", func(r *rig) { r.tripOn(7, "copilot/fix-login") }, func(r *rig) []outcome {
			p := r.payload("workflow_dispatch.json")
			p["ref"], p["inputs"] = "refs/heads/copilot/fix-login", map[string]any{"slice": ""}
			r.env["GITHUB_REF"], r.env["GITHUB_SHA"] = "refs/heads/copilot/fix-login", r.git("rev-parse", "copilot/fix-login")
			return []outcome{r.run("workflow_dispatch", p)}
		}},
		{"breaker-cleanup.yml", func(r *rig) {
			r.commit("Add the login form")
			r.results(map[string]string{"TestLogin": "pass"})
			r.open(7, "copilot/fix-login")
			r.push("copilot/fix-login")
			r.tripOn(7, "copilot/fix-login")
			if len(r.srv.Tags()) == 0 {
				r.t.Fatal("the pull request created no tag, so its cleanup deletes none")
			}
			r.close(7, "copilot/fix-login")
		}, func(r *rig) []outcome {
			p := r.payload("pull_request.closed.json")
			pl := p["pull_request"].(map[string]any)
			pl["head"].(map[string]any)["ref"] = "copilot/fix-login"
			pl["head"].(map[string]any)["sha"] = r.git("rev-parse", "copilot/fix-login")
			return []outcome{r.run("pull_request", p)}
		}},
	}
	for _, rc := range recipes {
		t.Run(rc.file, func(t *testing.T) {
			t.Parallel()
			perms := readmeRecipe(t, rc.file)
			r := newRig(t)
			r.git("checkout", "-q", "-b", "copilot/fix-login")
			r.commit("Start the login")
			r.results(map[string]string{"TestLogin": "pass"})
			r.push("main")
			rc.setup(r)
			before := len(r.srv.Calls())
			for _, o := range rc.run(r) {
				if o.Err != nil {
					t.Fatalf("the recipe's run: %v\n%s", o.Err, o.stdout)
				}
			}
			if len(r.srv.Calls()) == before {
				t.Fatal("the recipe's runs sent no request: nothing was checked")
			}
			if rc.file == "breaker-cleanup.yml" && len(r.srv.Tags()) != 0 {
				t.Errorf("the cleanup left the pull request's tags: %v", r.srv.Tags())
			}
			missing := map[string]bool{}
			for _, c := range r.srv.Calls()[before:] {
				known := false
				for _, rp := range requestPermissions {
					if c.Method != rp.method || !rp.path.MatchString(c.Path) {
						continue
					}
					known = true
					for _, need := range rp.needs {
						if !grants(perms, need) {
							missing[fmt.Sprintf("%s %s needs %s", c.Method, c.Path, need)] = true
						}
					}
				}
				if !known {
					t.Errorf("%s %s: no permission is known for this request; add it to requestPermissions from GitHub's reference", c.Method, c.Path)
				}
			}
			out := make([]string, 0, len(missing))
			for m := range missing {
				out = append(out, m)
			}
			sort.Strings(out)
			for _, m := range out {
				t.Errorf("docs/action.md's %s (permissions %v): %s", rc.file, perms, m)
			}
		})
	}
}
