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

// The comment-commands recipe the README shows grants every permission
// the requests of a reset with --rollback and of a debug need: run each
// through the Action, map each request to its permission, and read the
// recipe's permissions block (issue 30: a reset is a check run, which
// checks: read did not allow).
func TestRecipes_CommentCommandsHaveThePermissionsTheirRequestsNeed(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var recipe string
	for _, block := range strings.Split(string(readme), "```yaml\n")[1:] {
		body, _, _ := strings.Cut(block, "\n```")
		if strings.Contains(body, "issue_comment:") && strings.Contains(body, "\njobs:") {
			recipe = body
		}
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
	}
	if err := yaml.Unmarshal([]byte(recipe), &wf); err != nil || len(wf.Permissions) == 0 {
		t.Fatalf("the README's comment-commands recipe: %v, permissions %v", err, wf.Permissions)
	}
	r := newRig(t)
	r.git("checkout", "-q", "-b", "copilot/fix-login")
	r.tripOn(7, "copilot/fix-login")
	before := len(r.srv.Calls())
	for _, cmd := range []string{"/breaker debug", "/breaker reset copilot-fix-login --rollback try the cache"} {
		if o := r.comment(7, "alice", cmd); o.Err != nil || o.Decision == nil {
			t.Fatalf("%s: err %v, decision %v\n%s", cmd, o.Err, o.Decision, o.stdout)
		}
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
				if !grants(wf.Permissions, need) {
					missing[fmt.Sprintf("%s %s needs %s", c.Method, c.Path, need)] = true
				}
			}
		}
		if !known {
			t.Errorf("%s %s: no permission is known for this request; add it to requestPermissions from GitHub's reference", c.Method, c.Path)
		}
	}
	var out []string
	for m := range missing {
		out = append(out, m)
	}
	sort.Strings(out)
	for _, m := range out {
		t.Errorf("the README's comment-commands recipe (permissions %v): %s", wf.Permissions, m)
	}
}
