package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/greenlight-ci/breaker/internal/report"
)

// fetchWait bounds one fetch of a head the clone lacks.
const fetchWait = 2 * time.Minute

// fetchHead asks the clone's origin for a head the clone lacks (a head a
// force push took away, which no branch or pull request ref holds now), by
// its id. GitHub serves a commit by its id until it collects it: `git
// fetch <url> <sha>` fetches one no branch holds (NixOS/nixpkgs#112645),
// as actions/checkout fetches a run's commit (go-git/go-git#56); go-git
// asks so when the server allows it (allow-reachable-sha1-in-want,
// allow-tip-sha1-in-want: go-git's remote.isSupportedRefSpec). The commit
// is fetched under a ref of its own, which is removed again: its objects
// stay in the clone, no branch, tag or remote ref changes. It uses no
// credentials: a private repository's origin answers that it needs them,
// and the push keeps its evidence without a verdict.
func fetchHead(ctx context.Context, dir, sha string) error {
	sha = strings.ToLower(sha)
	if !plumbing.IsHash(sha) {
		return fmt.Errorf("%q is not a commit id", report.SafeLine(report.Clip(sha, 60)))
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return fmt.Errorf("open the clone: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, fetchWait)
	defer cancel()
	ref := plumbing.ReferenceName("refs/greenlight/replay/" + sha)
	err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", Tags: git.NoTags,
		RefSpecs: []config.RefSpec{config.RefSpec(sha + ":" + ref.String())}})
	if rerr := repo.Storer.RemoveReference(ref); rerr != nil && err == nil {
		err = rerr
	}
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("fetch %s from origin: no answer in %s", sha[:12], fetchWait)
	}
	return fmt.Errorf("fetch %s from origin: %s", sha[:12], report.SafeLine(report.Clip(err.Error(), 200)))
}
