package ghfake_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// gql posts a query and returns the decoded answer.
func gql(t *testing.T, srv *ghfake.Server, query string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	a := do(t, "POST", strings.TrimSuffix(srv.URL(), "/")+"/graphql", string(body))
	if a.Status != 200 {
		t.Fatalf("GraphQL answered HTTP %d, want 200 (GitHub answers errors in the body)", a.Status)
	}
	return a.Body
}

// The fake answers GraphQL as GitHub does: exactly the fields asked, a
// bot's author login without "[bot]", ids past 2^31, the default
// checkType LATEST hiding a re-run, GitHub's cost, and its errors.
func TestGraphQL_AnswersAsGitHub(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	head := strings.Repeat("a", 40)
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: head, HeadRef: "x", BaseRef: "main"})
	srv.SetPullRequestCommits(7, []string{head})
	srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: head, Text: "first", AppID: ghfake.ActionsAppID, AppSlug: "github-actions"})
	srv.AddCheckRun(ghfake.CheckRun{Name: "greenlight-breaker", HeadSHA: head, Text: "re-run", AppID: ghfake.ActionsAppID, AppSlug: "github-actions"})
	srv.AddComment(7, ghfake.BotLogin, "hi")
	const q = `query($n: Int!, $t: CheckRunType) { viewer { login } rateLimit { cost }
	  repository(owner: "Codertocat", name: "Hello-World") { pullRequest(number: $n) {
	    comments(last: 5) { nodes { fullDatabaseId author { __typename login } } }
	    commits(first: 100) { nodes { commit { oid checkSuites(first: 1) { nodes { checkRuns(first: 100, filterBy: {checkType: $t}) { nodes { databaseId text } } } } } } } } } }`
	got := gql(t, srv, q, map[string]any{"n": 7})
	data := got["data"].(map[string]any)
	if v := data["viewer"].(map[string]any)["login"]; v != ghfake.BotLogin {
		t.Errorf("viewer %v, want %s: an installation token's viewer has the [bot] form", v, ghfake.BotLogin)
	}
	pr := data["repository"].(map[string]any)["pullRequest"].(map[string]any)
	cm := pr["comments"].(map[string]any)["nodes"].([]any)[0].(map[string]any)
	if diff := cmp.Diff(map[string]any{"fullDatabaseId": "2500000001", "author": map[string]any{"__typename": "Bot", "login": "github-actions"}}, cm); diff != "" {
		t.Errorf("comment (-want +got):\n%s", diff)
	}
	runsOf := func(ans map[string]any) []any {
		c := ans["data"].(map[string]any)["repository"].(map[string]any)["pullRequest"].(map[string]any)["commits"].(map[string]any)["nodes"].([]any)[0]
		suite := c.(map[string]any)["commit"].(map[string]any)["checkSuites"].(map[string]any)["nodes"].([]any)[0]
		return suite.(map[string]any)["checkRuns"].(map[string]any)["nodes"].([]any)
	}
	if runs := runsOf(got); len(runs) != 1 || runs[0].(map[string]any)["text"] != "re-run" || runs[0].(map[string]any)["databaseId"] != 40000000002.0 {
		t.Errorf("default checkType: runs %v, want the re-run alone, its id past 2^31", runs)
	}
	if runs := runsOf(gql(t, srv, q, map[string]any{"n": 7, "t": "ALL"})); len(runs) != 2 {
		t.Errorf("checkType ALL: %d runs, want 2", len(runs))
	}
	// 1 (commits) + 100 (suites) + 100 (runs) + 1 (comments) = 202 → 2.
	if cost := data["rateLimit"].(map[string]any)["cost"]; cost != 2.0 {
		t.Errorf("cost %v, want 2 by GitHub's calculation", cost)
	}
	for _, tc := range []struct{ query, want string }{
		{`query { repository(owner: "Codertocat", name: "Hello-World") { pullRequest(number: 99) { number } } }`, "NOT_FOUND"},
		{`query { repository(owner: "someone", name: "else") { name } }`, "NOT_FOUND"},
		{`query { repository(owner: "Codertocat", name: "Hello-World") { refs(refPrefix: "refs/tags/") { nodes { name } } } }`, "MISSING_PAGINATION_BOUNDARIES"},
		{`query { repository(owner: "Codertocat", name: "Hello-World") { refs(refPrefix: "refs/tags/", first: 101) { nodes { name } } } }`, "EXCESSIVE_PAGINATION"},
	} {
		ans := gql(t, srv, tc.query, nil)
		errs, _ := ans["errors"].([]any)
		if len(errs) != 1 || errs[0].(map[string]any)["type"] != tc.want {
			t.Errorf("%s: errors %v, want one of type %s", tc.query, ans["errors"], tc.want)
		}
	}
}

// Past the hour's points, a query is answered HTTP 200 with RATE_LIMITED.
func TestGraphQL_RateLimited(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	srv.SetGraphQLRemaining(1)
	q := `query { repository(owner: "Codertocat", name: "Hello-World") { refs(refPrefix: "refs/tags/", first: 100) { nodes { name target { ... on Commit { history(first: 100) { nodes { oid } } } } } } } }`
	ans := gql(t, srv, q, nil) // 1 + 100 = 101 requests: 1 point
	if ans["errors"] != nil {
		t.Fatalf("first query: %v", ans["errors"])
	}
	ans = gql(t, srv, q, nil)
	errs, _ := ans["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["type"] != "RATE_LIMITED" {
		t.Errorf("errors %v, want RATE_LIMITED", ans["errors"])
	}
}

// A comment body over GitHub's 65,536 characters is refused with 422.
func TestServer_CommentBodyLimit(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: strings.Repeat("a", 40)})
	body, _ := json.Marshal(map[string]string{"body": strings.Repeat("é", 65537)})
	if a := do(t, "POST", srv.URL()+"repos/Codertocat/Hello-World/issues/7/comments", string(body)); a.Status != 422 {
		t.Errorf("65,537 characters: HTTP %d, want 422", a.Status)
	}
	body, _ = json.Marshal(map[string]string{"body": strings.Repeat("é", 65536)})
	if a := do(t, "POST", srv.URL()+"repos/Codertocat/Hello-World/issues/7/comments", string(body)); a.Status != 201 {
		t.Errorf("65,536 characters: HTTP %d, want 201", a.Status)
	}
}
