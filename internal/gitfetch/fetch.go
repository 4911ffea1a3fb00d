// Package gitfetch brings commits into a local clone with go-git: a
// clone of a repository, and one commit a clone lacks, asked for by its
// id. replay fills gaps of a user's clone; the App server (internal/app)
// clones the repository a delivery names.
package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/greenlight-ci/breaker/internal/report"
)

// fetchWait bounds one fetch of a head the clone lacks.
const fetchWait = 2 * time.Minute

// cloneWait bounds one clone.
const cloneWait = 10 * time.Minute

// Token is the credentials of an installation access token over HTTPS
// (GitHub's documented form: user x-access-token, the token as password);
// nil for an empty token.
func Token(token string) transport.AuthMethod {
	if token == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: "x-access-token", Password: token}
}

// Clone clones branch of url into dir (that branch alone, its full
// history, no tags, no work tree checked out: the breaker reads objects,
// never runs the code), with auth (nil = none); Commit then fetches the
// judged head. A repository's other branches are never fetched: a clone
// of every branch costs what the whole repository holds (with a hundred
// agent branches, a hundred times one line's history). The error never
// holds the credentials.
func Clone(ctx context.Context, dir, url, branch string, auth transport.AuthMethod) error {
	ctx, cancel := context.WithTimeout(ctx, cloneWait)
	defer cancel()
	_, err := git.PlainCloneContext(ctx, dir, false, &git.CloneOptions{URL: url, Auth: auth, NoCheckout: true, Tags: git.NoTags,
		SingleBranch: true, ReferenceName: plumbing.NewBranchReferenceName(branch)})
	if err != nil {
		return fmt.Errorf("clone %s: %s", report.SafeLine(url), report.SafeLine(report.Clip(err.Error(), 200)))
	}
	return nil
}

// Commit is Head with credentials: it asks origin for the commit sha
// unless the clone holds it.
func Commit(ctx context.Context, dir, sha string, auth transport.AuthMethod) error {
	repo, err := git.PlainOpen(dir)
	if err == nil {
		if _, err := repo.CommitObject(plumbing.NewHash(strings.ToLower(sha))); err == nil {
			return nil
		}
	}
	return fetch(ctx, dir, sha, auth)
}

// Head asks the clone's origin for a head the clone lacks (a head a
// force push took away, which no branch or pull request ref holds now), by
// its id. GitHub serves a commit by its id until it collects it: `git
// fetch <url> <sha>` fetches one no branch holds (NixOS/nixpkgs#112645),
// as actions/checkout fetches a run's commit (go-git/go-git#56); go-git
// asks so when the server allows it (allow-reachable-sha1-in-want,
// allow-tip-sha1-in-want: go-git's remote.isSupportedRefSpec). The commit
// is fetched under a ref of its own, which is removed again: its objects
// stay in the clone, no branch, tag or remote ref changes. It uses no
// credentials: a private repository's origin answers that it needs them
// (replay: the push keeps its evidence without a verdict).
func Head(ctx context.Context, dir, sha string) error {
	return fetch(ctx, dir, sha, nil)
}

func fetch(ctx context.Context, dir, sha string, auth transport.AuthMethod) error {
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
	ref := plumbing.ReferenceName("refs/greenlight/fetch/" + sha)
	err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", Tags: git.NoTags, Auth: auth,
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
