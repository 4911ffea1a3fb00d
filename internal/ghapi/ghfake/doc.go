// Package ghfake is a stateful fake of the GitHub REST API subset the
// breaker uses, for tests. It runs an httptest.Server shaped as the real
// API (payloads based on the webhook fixtures in ../shared/fixtures) and
// fails the test on any request it does not know.
//
// Routes, relative to the API base URL (URL):
//
//	GET    /user                                      403 until SetUser
//	GET    /repos/{o}/{r}/pulls/{n}
//	GET    /repos/{o}/{r}/commits/{sha}/pulls         pull requests whose head is sha
//	GET    /repos/{o}/{r}/issues/{n}/comments         per_page (default 30, max 100), page, Link
//	POST   /repos/{o}/{r}/issues/{n}/comments
//	PATCH  /repos/{o}/{r}/issues/comments/{id}
//	GET    /repos/{o}/{r}/git/ref/{ref}
//	POST   /repos/{o}/{r}/git/refs                    422 "Reference already exists"
//	PATCH  /repos/{o}/{r}/git/refs/{ref}              422 when missing or not a fast forward
//	DELETE /repos/{o}/{r}/git/refs/{ref}              422 "Reference does not exist"
//	GET    /repos/{o}/{r}/collaborators/{login}/permission
//	GET    /repos/{o}/{r}/git/commits/{sha}
//	POST   /repos/{o}/{r}/git/commits
//
// The comment endpoints answer 404 for a pull request that was not
// added. A ref update without force is refused only when the new commit
// is known to the server (AddCommit or created through the API) and does
// not descend from the old one.
//
// Typical use:
//
//	srv := ghfake.New(t)
//	srv.AddPullRequest(breaker.PullRequest{Number: 7, HeadSHA: sha, HeadRef: "agent/s-3", BaseRef: "main", Author: "agent"})
//	srv.SetPermission("alice", "write")
//	srv.FailNext("POST", "/repos/*/*/issues/*/comments", 429, map[string]string{"Retry-After": "2"})
//	// point the code under test at srv.URL(), srv.Owner(), srv.Repo()
//	got := srv.Comments(7)
//	calls := srv.Calls()
package ghfake
