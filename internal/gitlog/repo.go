package gitlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// Repo is an open git repository. Close releases its files.
type Repo struct {
	git   *git.Repository
	store storage.Storer
	dot   billy.Filesystem // the .git directory; nil for non-filesystem storage
}

// Open opens the git repository containing dir, looking upwards for the
// .git directory as git does.
func Open(dir string) (*Repo, error) {
	found, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	fsys, ok := found.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		return &Repo{git: found, store: found.Storer}, nil
	}
	// Reopen the same .git directory keeping the packfiles open (go-git
	// otherwise opens a packfile for every object it reads), and serve
	// object reads from the mapped packs.
	dot := fsys.Filesystem()
	st := filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true, ExclusiveAccess: true})
	r := &Repo{store: st, dot: dot}
	if fast, err := packfile.Open(objectsDir(dot)); err == nil {
		r.store = &objectStore{Storer: st, fast: fast}
		runtime.AddCleanup(r, func(s *packfile.Set) { _ = s.Close() }, fast)
	}
	if r.git, err = git.Open(r.store, nil); err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	return r, nil
}

// objectsDir is the objects directory of a .git directory, following the
// commondir file of a linked worktree.
func objectsDir(dot billy.Filesystem) string {
	root := dot.Root()
	if b, err := os.ReadFile(filepath.Join(root, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(root, common)
		}
		return filepath.Join(common, "objects")
	}
	return filepath.Join(root, "objects")
}

// Close releases the files the repository holds open. A Repo is not
// usable after Close.
func (r *Repo) Close() error {
	var errs []error
	if o, ok := r.store.(*objectStore); ok {
		errs = append(errs, o.fast.Close(), o.Storer.(io.Closer).Close())
	} else if c, ok := r.store.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Options say which branch Log reads and how it reads each commit.
type Options struct {
	Head string // revision of the branch head; "" = HEAD
	Base string // revision of the base; "" = the repository's default branch
	// Parse extracts the trailers of a commit message; nil leaves Trailers empty.
	Parse func(message string) []breaker.Trailer
	// NeedsFiles says whether a commit with these trailers needs its changed
	// paths; nil means no commit does.
	NeedsFiles func([]breaker.Trailer) bool
}

// Log is the agent branch as Repo.Log reads it.
type Log struct {
	// Commits are base..head: every commit reachable from the head and not
	// from the base, merges and their other parents included, oldest first
	// in a topological order: the reverse of `git log --date-order
	// base..head` (no commit before its parents; otherwise by committer
	// date). Without a base, every commit reachable from the head.
	Commits []breaker.Commit
	// ForkPoint is the first commit of the head's first-parent chain that is
	// reachable from the base: where the branch left the base. It is the
	// merge base in the usual case; after the base was merged into the
	// branch it is still where the branch forked, not the newer merge base.
	// "" when no base exists or the histories are unrelated.
	ForkPoint string
	HeadSHA   string
	Branch    string // short branch name of Head when it names a branch, else ""
	BaseRef   string // the ref (or revision) used as the base; "" when none
	BaseSHA   string // the commit the base resolved to; "" when none
	Note      string // what the reader should know, e.g. that no base was found
}

// noBaseNote explains a Log read without a base.
const noBaseNote = "no base branch found (tried refs/remotes/origin/HEAD, origin/main, origin/master, main, master): every commit reachable from the head is treated as the branch"

// Log reads the commits of opts.Head that are not reachable from
// opts.Base (git's base..head).
func (r *Repo) Log(ctx context.Context, opts Options) (Log, error) {
	head, err := r.resolve(opts.Head)
	if err != nil {
		return Log{}, err
	}
	out := Log{HeadSHA: head.hash.String(), Branch: r.headBranch(head)}
	base, err := r.base(opts.Base)
	if err != nil {
		return Log{}, err
	}
	src, shallow, err := r.walkSource()
	if err != nil {
		return Log{}, err
	}
	defer src.close()
	if base.hash.IsZero() {
		out.Note = noBaseNote
	} else {
		out.BaseRef, out.BaseSHA = base.name, base.hash.String()
	}
	early := newReader(ctx, r, opts, runtime.GOMAXPROCS(0)-1)
	w := newWalker(src, shallow)
	w.onBranch = early.offer
	res, err := w.walk(ctx, head.hash, base.hash)
	if err != nil {
		early.stop()
		return Log{}, fmt.Errorf("read branch %s: %w", describe(opts.Head), err)
	}
	early.finish()
	if !res.fork.IsZero() {
		out.ForkPoint = res.fork.String()
	}
	out.Commits, err = r.commits(ctx, res.branch, opts, early)
	return out, err
}

// namedRevision is a resolved base and the name it is reported under.
type namedRevision struct {
	hash plumbing.Hash
	name string
}

// base resolves the base revision, or the default branch when rev is "".
func (r *Repo) base(rev string) (namedRevision, error) {
	if rev != "" {
		got, err := r.resolve(rev)
		if err != nil {
			return namedRevision{}, fmt.Errorf("base: %w", err)
		}
		name := got.ref.String()
		if name == "" {
			name = rev
		}
		return namedRevision{hash: got.hash, name: name}, nil
	}
	got, err := r.defaultBase()
	return namedRevision{hash: got.hash, name: got.ref.String()}, err
}

// walkSource opens the commit-graph when there is one and reads the
// shallow boundary.
func (r *Repo) walkSource() (*source, map[plumbing.Hash]bool, error) {
	src := &source{objects: r.store}
	if o, ok := r.store.(*objectStore); ok {
		src.fast = o.fast
	}
	if r.dot != nil {
		// A chain or another version is not read: the walk goes by date.
		if g, err := packfile.OpenGraph(filepath.Join(objectsDir(r.dot), "info", "commit-graph")); err == nil {
			src.graph = g
		}
	}
	list, err := r.store.Shallow()
	if err != nil {
		return nil, nil, fmt.Errorf("read shallow boundary: %w", err)
	}
	shallow := make(map[plumbing.Hash]bool, len(list))
	for _, h := range list {
		shallow[h] = true
	}
	return src, shallow, nil
}

func describe(rev string) string {
	if rev == "" {
		return "HEAD"
	}
	return rev
}
