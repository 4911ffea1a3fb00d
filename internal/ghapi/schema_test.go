package ghapi

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// schemaPaths are where GitHub's published GraphQL schema is looked for:
// the pinned npm package @octokit/graphql-schema that .ci/run installs
// (.ci/npm), else the copy kept beside the project.
var schemaPaths = []string{
	filepath.Join("..", "..", ".ci", "npm", "node_modules", "@octokit", "graphql-schema", "schema.graphql"),
	filepath.Join("..", "..", "..", "shared", "fixtures", "github-graphql", "schema.graphql"),
}

// TestLedgerQueries_ValidateAgainstGitHubsSchema reads a ledger that
// needs every query shape (the first query, pages of commits and of force
// pushes, a commit's suites, a branch's history) from the fake and
// validates the text the client sent against GitHub's published schema: a
// query that does not validate would fail on GitHub. It skips locally
// without the schema, saying how to install it; CI always runs it.
func TestLedgerQueries_ValidateAgainstGitHubsSchema(t *testing.T) {
	t.Parallel()
	schema := githubSchema(t)
	srv := ghfake.New(t)
	richLedger(srv) // every page and follow-up query is sent
	c, err := New(Config{Token: "schema-test-token", APIURL: srv.URL(), Owner: srv.Owner(), Repo: srv.Repo()})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []forge.LedgerQuery{
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/"},
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", AppID: 912345},
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Base: sha(3)},
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Newest: true},
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Newest: true, Base: sha(3)},
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Newest: true, Before: sha(60)},
		{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/", Newest: true, Base: sha(3), Before: sha(60)},
		{Branch: "agent/fix", CheckName: "greenlight-breaker", TagPrefix: "greenlight/"},
	} {
		if _, err := c.ReadLedger(context.Background(), q); err != nil {
			t.Fatalf("ReadLedger(%+v): %v", q, err)
		}
	}
	q := forge.LedgerQuery{PR: 7, CheckName: "greenlight-breaker", TagPrefix: "greenlight/"}
	if _, err := c.ReadAncestry(context.Background(), q, sha(129), sha(129)); err != nil {
		t.Fatalf("ReadAncestry: %v", err)
	}
	if _, errs := gqlparser.LoadQueryWithRules(schema, `query { repository(owner: "a", name: "b") { checkRunz { id } } }`, nil); len(errs) == 0 {
		t.Fatal("a query with an unknown field validates: the check proves nothing")
	}
	queries := srv.GraphQLQueries()
	depth := "history(first: $depth)"
	if !slices.ContainsFunc(queries, func(q string) bool { return strings.Contains(q, "object(oid: $before)") && strings.Contains(q, depth) }) {
		t.Errorf("no query read the push's before's history %s", depth)
	}
	if len(queries) < 6 {
		t.Fatalf("the fake received %d queries, want every shape: the first, commit pages, force-push pages, a commit's suites, a branch", len(queries))
	}
	for _, q := range queries {
		if _, errs := gqlparser.LoadQueryWithRules(schema, q, nil); len(errs) > 0 {
			t.Errorf("query does not validate against GitHub's schema: %v\n%s", errs, q)
		}
		if !strings.Contains(q, "checkRuns") || !strings.Contains(q, "rateLimit") {
			t.Errorf("query lacks checkRuns or rateLimit:\n%s", q)
		}
	}
}

// githubSchema is GitHub's published GraphQL schema, or a skip saying how
// to install it (CI always has it: a fatal error there).
func githubSchema(t *testing.T) *ast.Schema {
	t.Helper()
	var sdl []byte
	var err error
	for _, p := range schemaPaths {
		if sdl, err = os.ReadFile(p); err == nil {
			break
		}
	}
	if err != nil {
		msg := "GitHub's GraphQL schema is not installed (" + err.Error() + "); install it with: npm ci --prefix .ci/npm"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return loadSchema(t, string(sdl))
}

// loadSchema parses GitHub's SDL. The published file defines a few fields
// twice (EnterpriseOwnerInfo.repositoryDeployKeySetting), which GitHub's
// server tolerates and gqlparser's validator does not: the repeats are
// dropped before validation.
func loadSchema(t *testing.T, sdl string) *ast.Schema {
	t.Helper()
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "schema.graphql", Input: sdl})
	if err != nil {
		t.Fatalf("parse the schema: %v", err)
	}
	for _, defs := range []ast.DefinitionList{doc.Definitions, doc.Extensions} {
		for _, d := range defs {
			seen := map[string]bool{}
			var fields ast.FieldList
			for _, f := range d.Fields {
				if !seen[f.Name] {
					seen[f.Name] = true
					fields = append(fields, f)
				}
			}
			d.Fields = fields
		}
	}
	schema, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		t.Fatalf("validate the schema: %v", err)
	}
	return schema
}

// The two mutations the on-trip-draft input sends, the query of the
// issues a pull request closes (on-trip-unassign) and of the pull requests
// that close an issue (the gate on an issue) validate against GitHub's
// schema, and the fake answers them.
func TestDraftMutations_ValidateAgainstGitHubsSchema(t *testing.T) {
	t.Parallel()
	schema := githubSchema(t)
	srv := ghfake.New(t)
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadRef: "agent/fix", BaseRef: "main", State: "open"})
	c, err := New(Config{Token: "schema-test-token", APIURL: srv.URL(), Owner: srv.Owner(), Repo: srv.Repo()})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c.PullRequest(context.Background(), 7)
	if err != nil || pr.NodeID == "" {
		t.Fatalf("PullRequest: %+v, %v", pr, err)
	}
	if err := c.ConvertToDraft(context.Background(), pr.NodeID); err != nil || !srv.Draft(7) {
		t.Fatalf("ConvertToDraft: %v, draft %v", err, srv.Draft(7))
	}
	if err := c.MarkReadyForReview(context.Background(), pr.NodeID); err != nil || srv.Draft(7) {
		t.Fatalf("MarkReadyForReview: %v, draft %v", err, srv.Draft(7))
	}
	srv.AddIssue(12, []string{"Copilot"}, 7)
	issues, err := c.ClosingIssues(context.Background(), 7)
	if err != nil || len(issues) != 1 || issues[0].Number != 12 || strings.Join(issues[0].Assignees, ",") != "Copilot" {
		t.Fatalf("ClosingIssues: %+v, %v", issues, err)
	}
	if prs, err := c.IssueReferences(context.Background(), 12); err != nil || len(prs) != 1 || prs[0] != 7 {
		t.Fatalf("IssueReferences: %v, %v", prs, err)
	}
	queries := srv.GraphQLQueries()
	if len(queries) != 4 {
		t.Fatalf("%d GraphQL requests, want the two mutations and the two queries of closing references", len(queries))
	}
	for _, q := range queries {
		if _, errs := gqlparser.LoadQueryWithRules(schema, q, nil); len(errs) > 0 {
			t.Errorf("mutation does not validate against GitHub's schema: %v\n%s", errs, q)
		}
	}
}

// The agent's other lines of work (issue 46): the query of the newest pull
// requests with their heads' breaker check runs and who closed them, and
// the query of an issue's references, validate against GitHub's schema;
// the fake answers them, and an issue reference edited out of a body is
// still found through the timeline.
func TestLines_ValidateAgainstGitHubsSchema(t *testing.T) {
	t.Parallel()
	schema := githubSchema(t)
	srv := ghfake.New(t)
	srv.AddCommit("a1", "tree-a", "Fix the login")
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: "a1", HeadRef: "agent/fix", BaseRef: "main", State: "open", Author: "Copilot[bot]"})
	srv.SetPullRequestCommits(7, []string{"a1"})
	srv.AddPullRequest(forge.PullRequest{Number: 8, HeadRef: "person/docs", BaseRef: "main", State: "open", Author: "alice"})
	srv.SetPullRequestCommits(8, []string{"a1"})
	srv.ClosePullRequest(8, "bob")
	srv.AddIssue(12, nil, 7)
	srv.UnlinkIssue(7, 12)
	c, err := New(Config{Token: "schema-test-token", APIURL: srv.URL(), Owner: srv.Owner(), Repo: srv.Repo()})
	if err != nil {
		t.Fatal(err)
	}
	prs, tree, err := c.RecentPullRequests(context.Background(), forge.LedgerQuery{CheckName: "greenlight-breaker"}, "a1")
	if err != nil || tree != "tree-a" || len(prs) != 2 {
		t.Fatalf("RecentPullRequests: %+v, tree %q, %v", prs, tree, err)
	}
	if p := prs[0]; p.Number != 8 || p.State != "closed" || p.ClosedBy != "bob" || p.ClosedByBot || p.Author != "alice" {
		t.Errorf("the newest updated: %+v; want #8 closed by bob", p)
	}
	if p := prs[1]; p.Number != 7 || p.State != "open" || p.Author != "Copilot[bot]" || p.HeadSHA != "a1" || p.HeadTree != "tree-a" {
		t.Errorf("the agent's: %+v; want #7 open by Copilot[bot] at a1", p)
	}
	if refs, err := c.IssueReferences(context.Background(), 12); err != nil || len(refs) != 1 || refs[0] != 7 {
		t.Errorf("IssueReferences(12): %v, %v; want #7, whose body no longer closes it", refs, err)
	}
	for _, q := range srv.GraphQLQueries() {
		if _, errs := gqlparser.LoadQueryWithRules(schema, q, nil); len(errs) > 0 {
			t.Errorf("query does not validate against GitHub's schema: %v\n%s", errs, q)
		}
	}
	if costs := srv.GraphQLCosts(); len(costs) != 2 || costs[0] != 1 || costs[1] != 1 {
		t.Errorf("GraphQL costs %v, want one point each", costs)
	}
}
