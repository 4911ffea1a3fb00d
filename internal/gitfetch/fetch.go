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

// Shallow fetches into dir (a repository made there when there is none,
// its origin url) the newest depth commits of branch and of each of
// commits, by id (0 = their whole history): a clone pays for the history
// a judgement reads, never the repository's age (go-git's full clone of a 20,000-commit
// branch took 2.8 s and 240 MB; its newest commits, 20 ms and 3 MB). The
// error never holds the credentials.
func Shallow(ctx context.Context, dir, url, branch string, commits []string, depth int, auth transport.AuthMethod) error {
	repo, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		repo, err = git.PlainInit(dir, false)
		if err == nil {
			_, err = repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}})
		}
	}
	if err != nil {
		return fmt.Errorf("make the clone: %w", err)
	}
	specs := []config.RefSpec{config.RefSpec("+" + plumbing.NewBranchReferenceName(branch).String() + ":" + plumbing.NewRemoteReferenceName("origin", branch).String())}
	var refs []plumbing.ReferenceName
	for _, c := range commits {
		c = strings.ToLower(c)
		if !plumbing.IsHash(c) {
			return fmt.Errorf("%q is not a commit id", report.SafeLine(report.Clip(c, 60)))
		}
		ref := plumbing.ReferenceName("refs/greenlight/fetch/" + c)
		refs = append(refs, ref)
		specs = append(specs, config.RefSpec(c+":"+ref.String()))
	}
	ctx, cancel := context.WithTimeout(ctx, cloneWait)
	defer cancel()
	err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", Tags: git.NoTags, Auth: auth, Depth: depth, RefSpecs: specs})
	for _, ref := range refs {
		if rerr := repo.Storer.RemoveReference(ref); rerr != nil && err == nil {
			err = rerr
		}
	}
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("fetch from %s: no answer in %s", report.SafeLine(url), cloneWait)
	}
	return fmt.Errorf("fetch from %s: %s", report.SafeLine(url), report.SafeLine(report.Clip(err.Error(), 200)))
}

// maxMeet bounds the commits Meets reads from either side.
const maxMeet = 1 << 20

// Meets reports whether the clone in dir holds head's history down to
// where it meets base's (their fork point, both sides of it): what the
// breaker reads to judge head. base "" is the default branch as fetched.
// A shallow clone's boundary, or a missing commit, ends a side's walk.
func Meets(dir, branch, head, base string) (bool, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return false, fmt.Errorf("open the clone: %w", err)
	}
	from := plumbing.NewHash(strings.ToLower(base))
	if base == "" {
		ref, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
		if err != nil {
			return false, fmt.Errorf("the clone's %s: %w", report.SafeLine(branch), err)
		}
		from = ref.Hash()
	}
	onBase := map[plumbing.Hash]bool{}
	walk(repo, from, func(h plumbing.Hash) bool { onBase[h] = true; return true })
	met := false
	walk(repo, plumbing.NewHash(strings.ToLower(head)), func(h plumbing.Hash) bool {
		met = met || onBase[h]
		return !onBase[h] // a fork point's ancestors are the base's
	})
	return met, nil
}

// walk visits the commits the clone holds from start down, each once, in
// no order, while visit says go on below it; at most maxMeet of them.
func walk(repo *git.Repository, start plumbing.Hash, visit func(plumbing.Hash) bool) {
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{start}
	for len(queue) > 0 && len(seen) < maxMeet {
		h := queue[0]
		queue = queue[1:]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := repo.CommitObject(h)
		if err != nil || !visit(h) {
			continue // beyond what the clone holds, or below a fork point
		}
		queue = append(queue, c.ParentHashes...)
	}
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
