package cli

import (
	"testing"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// testRepo is the shop repository (gitrepo.Shop) the command's tests
// drive: real git in t.TempDir(), a minute a commit, so its SHAs are
// reproducible.
type testRepo struct {
	*gitrepo.Repo
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	g := gitrepo.Shop(t)
	return &testRepo{Repo: g, t: t, dir: g.Dir}
}

// git runs a git command in the repository and returns its trimmed stdout.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return r.Git(args...)
}

// commit writes files and commits them with message; it returns the SHA.
func (r *testRepo) commit(message string, files map[string]string) string {
	r.t.Helper()
	return r.CommitFiles(message, files)
}

// results writes a JUnit XML result file (untracked) with the given statuses.
func (r *testRepo) results(name string, statuses map[string]string) {
	r.t.Helper()
	r.JUnit(name, statuses)
}
