// Package ghfake is a stateful fake of the GitHub API the breaker uses,
// REST and GraphQL, for tests. It runs an httptest.Server that answers as
// GitHub does, not as the code expects, and fails the test on any request
// it does not know:
//
//   - ids past 2^31 (check runs from 40,000,000,001, comments from
//     2,500,000,001), as github.com's are;
//   - GraphQL executed over the fake's state (graphql.go): exactly the
//     fields asked, a Bot's author login without "[bot]" (viewer with it),
//     the default checkType LATEST hiding a re-run, pagination limits,
//     GitHub's published cost and an hourly budget, errors at HTTP 200
//     (NOT_FOUND with a null object, RATE_LIMITED past the budget);
//   - a fork's pull request absent from commits/{sha}/pulls, found by
//     GET pulls?head=OWNER:BRANCH; comments over 65,536 characters and
//     check runs over GitHub's limits refused with 422; a tag ruleset
//     (SetRuleset) refusing refs with 422 "Repository rule violations".
//
// REST answers are built from the project's own objects (testdata/rest),
// one per schema of GitHub's OpenAPI description. When the server closes,
// every REST exchange is validated against GitHub's descriptions
// (contract.go); CheckWebhook validates an event payload against GitHub's
// webhook description (webhooks.go).
//
// Routes, relative to the API base URL (URL):
//
//	GET    /user                                      403 until SetUser
//	GET    /repos/{o}/{r}/pulls                       state, head=OWNER:BRANCH
//	GET    /repos/{o}/{r}/pulls/{n}
//	GET    /repos/{o}/{r}/commits/{sha}/pulls         pull requests of this repository's branches whose head is sha
//	GET    /repos/{o}/{r}/issues/{n}/comments         per_page (default 30, max 100), page, Link
//	POST   /repos/{o}/{r}/issues/{n}/comments
//	PATCH  /repos/{o}/{r}/issues/comments/{id}
//	DELETE /repos/{o}/{r}/issues/comments/{id}
//	GET    /repos/{o}/{r}/git/ref/{ref}
//	POST   /repos/{o}/{r}/git/refs                    422 "Reference already exists"
//	PATCH  /repos/{o}/{r}/git/refs/{ref}              422 when missing or not a fast forward
//	DELETE /repos/{o}/{r}/git/refs/{ref}              422 "Reference does not exist"
//	GET    /repos/{o}/{r}/collaborators/{login}/permission
//	GET    /repos/{o}/{r}/git/commits/{sha}
//	POST   /repos/{o}/{r}/git/commits
//	POST   /repos/{o}/{r}/check-runs
//	GET    /repos/{o}/{r}/actions/runs/{run}/artifacts  name, per_page, page
//	GET    /repos/{o}/{r}/actions/artifacts/{id}/zip    302 to the archive
//	POST   /repos/{o}/{r}/issues/{n}/labels             {"labels": [...]}: the labels after
//	DELETE /repos/{o}/{r}/issues/{n}/labels/{name}      404 "Label does not exist"
//	POST   /repos/{o}/{r}/issues/{n}/assignees          201, the issue
//	DELETE /repos/{o}/{r}/issues/{n}/assignees          200, the issue
//	POST   /repos/{o}/{r}/pulls/{n}/requested_reviewers 201, the pull request
//	DELETE /repos/{o}/{r}/pulls/{n}/requested_reviewers 200, the pull request
//	GET    /repos/{o}/{r}/actions/runs                  branch, status
//	GET    /repos/{o}/{r}/actions/runs/{run}            the run; 404 when unknown
//	POST   /repos/{o}/{r}/actions/runs/{id}/cancel      202 {}; 409 once completed
//	POST   /graphql (and /api/graphql, as GHES)         queries, and the draft mutations
//
// The comment endpoints answer 404 for a pull request that was not
// added. A ref update without force is refused only when the new commit
// is known to the server (AddCommit or created through the API) and does
// not descend from the old one.
//
// Typical use:
//
//	srv := ghfake.New(t)
//	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: sha, HeadRef: "agent/s-3", BaseRef: "main", Author: "agent"})
//	srv.SetPermission("alice", "write")
//	srv.FailNext("POST", "/repos/*/*/issues/*/comments", 429, map[string]string{"Retry-After": "2"})
//	// point the code under test at srv.URL(), srv.Owner(), srv.Repo()
//	got := srv.Comments(7)
//	calls := srv.Calls()
package ghfake
