package ghfake

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultGraphQLLimit is the GraphQL points an hour a workflow's
// GITHUB_TOKEN has on github.com (1,000 per repository: "Rate limits for
// the GraphQL API", docs.github.com).
const DefaultGraphQLLimit = 1000

// BodyGraphQLRateLimited is GitHub's answer to a GraphQL query over the
// primary rate limit: HTTP 200 with an error of type RATE_LIMITED
// (github/docs#22607; yanyongyu/githubkit#271 shows the same body).
const BodyGraphQLRateLimited = `{"errors":[{"type":"RATE_LIMITED","code":"graphql_rate_limit","message":"API rate limit already exceeded for installation ID 1."}]}`

// SetGraphQLRemaining sets the GraphQL points left in the current hour.
func (s *Server) SetGraphQLRemaining(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gqlUsed = s.gqlLimit - n
}

// GraphQLCosts returns the cost of every GraphQL query answered, by
// GitHub's published calculation.
func (s *Server) GraphQLCosts() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.gqlCosts...)
}

// graphql answers a query by executing it over the server's state (see
// graphql_exec.go): check runs under check suites under commits, a pull
// request's commits, force-push timeline and comments, a branch's
// history, tags, the viewer and rateLimit, with GitHub's costs, limits
// and errors (HTTP 200 with "errors").
func (s *Server) graphql(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Query     string
		Variables map[string]any
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/graphql")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, in.Query)
	cost, _, err := queryCost(in.Query, in.Variables)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "Parse error: " + err.Error()}}})
		return
	}
	reset := epoch.Add(time.Hour)
	h := w.Header()
	h.Set("X-Ratelimit-Limit", strconv.Itoa(s.gqlLimit))
	h.Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-Ratelimit-Resource", "graphql")
	if s.gqlUsed+cost > s.gqlLimit {
		h.Set("X-Ratelimit-Remaining", strconv.Itoa(max(s.gqlLimit-s.gqlUsed, 0)))
		h.Set("X-Ratelimit-Used", strconv.Itoa(s.gqlUsed))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(BodyGraphQLRateLimited))
		return
	}
	s.gqlUsed += cost
	s.gqlCosts = append(s.gqlCosts, cost)
	h.Set("X-Ratelimit-Remaining", strconv.Itoa(s.gqlLimit-s.gqlUsed))
	h.Set("X-Ratelimit-Used", strconv.Itoa(s.gqlUsed))
	root := map[string]any{
		"__typename": "Query",
		"viewer":     s.viewerNode(),
		"rateLimit": map[string]any{"__typename": "RateLimit", "cost": cost, "limit": s.gqlLimit, "nodeCount": 0,
			"remaining": s.gqlLimit - s.gqlUsed, "used": s.gqlUsed, "resetAt": reset.Format(time.RFC3339)},
		// The two mutations that turn a pull request into a draft and back
		// (GitHub's schema: input {pullRequestId}, payload {pullRequest}).
		"convertPullRequestToDraft":     s.draftMutation(true),
		"markPullRequestReadyForReview": s.draftMutation(false),
		"repository": resolver(func(args map[string]any) (any, *gqlError) {
			owner, _ := args["owner"].(string)
			name, _ := args["name"].(string)
			if !strings.EqualFold(owner, s.owner) || !strings.EqualFold(name, s.repo) {
				return nil, &gqlError{Type: "NOT_FOUND", Message: "Could not resolve to a Repository with the name '" + owner + "/" + name + "'."}
			}
			return s.repositoryNode(), nil
		}),
	}
	data, errs, missing, err := execute(in.Query, in.Variables, root)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": err.Error()}}})
		return
	}
	for _, m := range missing {
		s.t.Errorf("ghfake: the GraphQL query asks for %s, which the fake does not serve", m)
	}
	out := map[string]any{"data": data}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	writeJSON(w, http.StatusOK, out)
}

// draftMutation resolves convertPullRequestToDraft (draft) or
// markPullRequestReadyForReview: the pull request of the input's id
// becomes a draft, or ready. Called with the server's lock held.
func (s *Server) draftMutation(draft bool) resolver {
	return func(args map[string]any) (any, *gqlError) {
		input, _ := args["input"].(map[string]any)
		id, _ := input["pullRequestId"].(string)
		for n, pr := range s.prs {
			if pullNodeID(n) == id {
				pr.Draft = draft
				s.prs[n] = pr
				return map[string]any{"__typename": "Payload", "pullRequest": map[string]any{"__typename": "PullRequest", "id": id, "isDraft": draft}}, nil
			}
		}
		return nil, &gqlError{Type: "NOT_FOUND", Message: "Could not resolve to a node with the global id of '" + id + "'"}
	}
}

// viewerNode is the token's identity as GraphQL's viewer gives it: an
// installation token (GITHUB_TOKEN) answers its bot login with the [bot]
// suffix, unlike an author field (actorNode).
func (s *Server) viewerNode() map[string]any {
	if s.user == "" {
		return map[string]any{"__typename": "Bot", "login": s.botLogin}
	}
	kind := "User"
	if strings.HasSuffix(strings.ToLower(s.user), "[bot]") {
		kind = "Bot"
	}
	return map[string]any{"__typename": kind, "login": s.user}
}

// actorNode is a comment's author as GraphQL gives it: a Bot's login
// without the [bot] suffix REST gives ("github-actions", not
// "github-actions[bot]"), with its __typename.
func actorNode(login string) map[string]any {
	if base, ok := strings.CutSuffix(login, "[bot]"); ok {
		return map[string]any{"__typename": "Bot", "login": base}
	}
	return map[string]any{"__typename": "User", "login": login}
}

func (s *Server) repositoryNode() map[string]any {
	repo := map[string]any{
		"__typename":       "Repository",
		"defaultBranchRef": nil,
		"refs": conn("refs", func(args map[string]any) []any {
			prefix, _ := args["refPrefix"].(string)
			return s.tagNodes(prefix)
		}),
		"issue": resolver(func(args map[string]any) (any, *gqlError) {
			n, _ := intArg(args["number"])
			if _, ok := s.issues[n]; !ok {
				return nil, &gqlError{Type: "NOT_FOUND", Message: "Could not resolve to an Issue with the number of " + strconv.Itoa(n) + "."}
			}
			return map[string]any{"__typename": "Issue", "number": n,
				"closedByPullRequestsReferences": conn("closedByPullRequestsReferences", func(args map[string]any) []any {
					withClosed, _ := args["includeClosedPrs"].(bool)
					var prs []int
					for pr, issues := range s.closing {
						if slices.Contains(issues, n) && (withClosed || s.prs[pr].State != "closed") {
							prs = append(prs, pr)
						}
					}
					slices.Sort(prs)
					var out []any
					for _, pr := range prs {
						out = append(out, map[string]any{"__typename": "PullRequest", "number": pr, "merged": s.merged[pr]})
					}
					return out
				}),
				"timelineItems": conn("timelineItems", func(args map[string]any) []any { return s.issueTimeline(n, args) }),
			}, nil
		}),
		"pullRequests": conn("pullRequests", s.recentPulls),
		"pullRequest": resolver(func(args map[string]any) (any, *gqlError) {
			n, _ := intArg(args["number"])
			if _, ok := s.prs[n]; !ok && s.prCommits[n] == nil && !s.anyComment(n) {
				return nil, &gqlError{Type: "NOT_FOUND", Message: "Could not resolve to a PullRequest with the number of " + strconv.Itoa(n) + "."}
			}
			return s.pullRequestNode(n), nil
		}),
		"ref": resolver(func(args map[string]any) (any, *gqlError) {
			name, _ := args["qualifiedName"].(string)
			sha, ok := s.refs[strings.TrimPrefix(name, "refs/")]
			if !ok {
				return nil, nil // GitHub answers null for a ref that does not exist
			}
			return map[string]any{"__typename": "Ref", "name": name, "target": s.commitNode(sha)}, nil
		}),
		"object": resolver(func(args map[string]any) (any, *gqlError) {
			oid, _ := args["oid"].(string)
			return s.commitNode(oid), nil
		}),
	}
	if s.defaultSHA != "" {
		repo["defaultBranchRef"] = map[string]any{"__typename": "Ref", "name": s.defaultBranch, "target": s.commitNode(s.defaultSHA)}
	}
	return repo
}

func (s *Server) anyComment(pr int) bool {
	return slices.ContainsFunc(s.comments, func(c comment) bool { return c.Issue == pr })
}

func (s *Server) pullRequestNode(pr int) map[string]any {
	author := any(nil)
	if a := s.prs[pr].Author; a != "" {
		author = actorNode(a)
	}
	return map[string]any{
		"__typename": "PullRequest",
		"number":     pr,
		"state":      s.pullState(s.prs[pr]),
		"merged":     s.merged[pr],
		"author":     author,
		"closingIssuesReferences": conn("closingIssuesReferences", func(map[string]any) []any {
			var out []any
			for _, n := range s.closing[pr] {
				var assignees []any
				for _, a := range s.issues[n] {
					assignees = append(assignees, actorNode(a))
				}
				out = append(out, map[string]any{"__typename": "Issue", "number": n,
					"assignees": conn("assignees", func(map[string]any) []any { return assignees })})
			}
			return out
		}),
		"commits": conn("commits", func(map[string]any) []any {
			shas, ok := s.prCommits[pr]
			if !ok {
				shas = s.runHeads()
			}
			out := make([]any, 0, len(shas))
			for _, sha := range shas {
				out = append(out, map[string]any{"__typename": "PullRequestCommit", "commit": s.commitNode(sha)})
			}
			return out
		}),
		"timelineItems": conn("timelineItems", func(args map[string]any) []any { return s.timelineOf(pr, args) }),
		"comments": conn("comments", func(map[string]any) []any {
			var out []any
			for _, c := range s.comments {
				if c.Issue != pr {
					continue
				}
				out = append(out, map[string]any{"__typename": "IssueComment",
					// BigInt is a string in JSON (the schema's scalar BigInt);
					// databaseId is a plain number, past 2^31 on github.com.
					"fullDatabaseId": strconv.FormatInt(c.ID, 10), "databaseId": c.ID,
					"body": c.Body, "isMinimized": c.Minimized, "author": actorNode(c.Author)})
			}
			return out
		}),
	}
}

// commitNode is a commit: its author's GitHub user when SetCommitLogin
// tied one, its check suites (one per app and suite, holding its check
// runs) and its history through the commits the server knows.
func (s *Server) commitNode(sha string) map[string]any {
	var author any
	if login, ok := s.commitLogins[sha]; ok {
		author = map[string]any{"__typename": "GitActor", "user": map[string]any{"__typename": "User", "login": login}}
	}
	return map[string]any{
		"__typename": "Commit",
		"oid":        sha,
		"tree":       map[string]any{"__typename": "Tree", "oid": s.commits[sha].Tree},
		"author":     author,
		"committer":  map[string]any{"__typename": "GitActor", "user": nil},
		"checkSuites": conn("checkSuites", func(args map[string]any) []any {
			return s.suiteNodes(sha, filterOf(args))
		}),
		"history": conn("history", func(map[string]any) []any {
			var out []any
			for _, c := range s.firstParentChain(sha) {
				out = append(out, s.commitNode(c))
			}
			return out
		}),
	}
}

// firstParentChain lists sha and its ancestors the server knows, newest
// first, as GitHub's history does (by date; here by walking parents
// breadth first).
func (s *Server) firstParentChain(sha string) []string {
	seen := map[string]bool{}
	var out []string
	queue := []string{sha}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		out = append(out, cur)
		queue = append(queue, s.commits[cur].Parents...)
	}
	return out
}

func filterOf(args map[string]any) map[string]any {
	f, _ := args["filterBy"].(map[string]any)
	return f
}

// suiteNodes are the check suites on sha, filtered as CheckSuiteFilter
// does (appId, checkName).
func (s *Server) suiteNodes(sha string, filter map[string]any) []any {
	type suite struct {
		app, id int64
		slug    string
		runs    []CheckRun
	}
	var suites []*suite
	for _, run := range s.checkRuns {
		if run.HeadSHA != sha {
			continue
		}
		i := slices.IndexFunc(suites, func(x *suite) bool { return x.app == run.AppID && x.id == run.Suite })
		if i < 0 {
			suites = append(suites, &suite{app: run.AppID, id: run.Suite, slug: run.AppSlug})
			i = len(suites) - 1
		}
		suites[i].runs = append(suites[i].runs, run)
	}
	var out []any
	for _, su := range suites {
		if app, ok := intArg(filter["appId"]); ok && int64(app) != su.app {
			continue
		}
		if name, ok := filter["checkName"].(string); ok && !slices.ContainsFunc(su.runs, func(r CheckRun) bool { return r.Name == name }) {
			continue
		}
		runs := su.runs
		out = append(out, map[string]any{
			"__typename": "CheckSuite",
			"app":        map[string]any{"__typename": "App", "databaseId": su.app, "slug": su.slug},
			"checkRuns": conn("checkRuns", func(args map[string]any) []any {
				return runNodes(runs, filterOf(args))
			}),
		})
	}
	return out
}

// runNodes are a suite's check runs, filtered as CheckRunFilter does. Its
// checkType defaults to LATEST: only the newest run of each name (a
// re-run hides the run before it); ALL lists every run.
func runNodes(runs []CheckRun, filter map[string]any) []any {
	name, byName := filter["checkName"].(string)
	all := filter["checkType"] == "ALL"
	var out []any
	for i, run := range runs {
		if byName && run.Name != name {
			continue
		}
		if !all && slices.ContainsFunc(runs[i+1:], func(r CheckRun) bool { return r.Name == run.Name }) {
			continue
		}
		out = append(out, map[string]any{"__typename": "CheckRun", "databaseId": run.ID, "name": run.Name,
			"conclusion": strings.ToUpper(run.Conclusion), "text": run.Text})
	}
	return out
}
