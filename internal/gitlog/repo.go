package gitlog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/go-git/go-billy/v5/osfs"
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
	git    *git.Repository
	store  storage.Storer
	layout layout
	ext    map[string]string // the repository extensions in use, lower-cased
}

// Open opens the git repository containing dir, looking upwards for the
// .git directory as git does. Linked worktrees, submodules (a .git file),
// bare repositories, alternates and sparse checkouts (worktreeConfig) are
// read; a SHA-256 or reftable repository is refused with the cause named.
func Open(dir string) (*Repo, error) {
	l, err := findLayout(dir)
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	ext, err := checkFormat(l)
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	// Keep the packfiles open (go-git otherwise opens a packfile for every
	// object it reads), and serve object reads from the mapped packs.
	st := filesystem.NewStorageWithOptions(l.filesystem(), cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true, ExclusiveAccess: true, AlternatesFS: osfs.New("/")})
	r := &Repo{store: vettedConfig{st}, layout: l, ext: ext}
	fast, err := packfile.Open(l.objects())
	if err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	r.store = &objectStore{Storer: r.store, fast: fast, closer: st}
	runtime.AddCleanup(r, func(s *packfile.Set) { _ = s.Close() }, fast)
	if r.git, err = git.Open(r.store, nil); err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	return r, nil
}

// Close releases the files the repository holds open. A Repo is not
// usable after Close.
func (r *Repo) Close() error {
	o := r.store.(*objectStore)
	return errors.Join(o.fast.Close(), o.closer.Close())
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
	Branch    string   // short branch name of Head when it names a branch, else ""
	BaseRef   string   // the ref (or revision) used as the base; "" when none
	BaseSHA   string   // the commit the base resolved to; "" when none
	Notes     []string // what the reader should know, e.g. that no base was found
}

// noBaseNote explains a Log read without a base.
const noBaseNote = "no base branch found (tried refs/remotes/origin/HEAD, origin/main, origin/master, main, master): every commit reachable from the head is treated as the branch"

// Log reads the commits of opts.Head that are not reachable from
// opts.Base (git's base..head).
func (r *Repo) Log(ctx context.Context, opts Options) (Log, error) {
	// The packs stay mapped while r is reachable (Open's cleanup unmaps
	// them); the walk and the readers use them through other pointers.
	defer runtime.KeepAlive(r)
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
		out.Notes = append(out.Notes, noBaseNote)
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
	var notes []string
	out.Commits, notes, err = r.commits(ctx, res.branch, opts, early)
	out.Notes = append(out.Notes, notes...)
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
			return namedRevision{}, fmt.Errorf("base: %w: name a branch, tag or commit this clone holds (git branch -a lists them); in CI, %s", err, shallowFix)
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
	src := &source{objects: r.store, fast: r.store.(*objectStore).fast}
	// A commit-graph of another version or hash is not read: the walk goes by date.
	if g, err := packfile.OpenGraph(filepath.Join(r.layout.objects(), "info")); err == nil {
		src.graph = g
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

// WorkTree is the top of the repository's working tree, the directory the
// repository's paths are relative to; "" for a bare repository.
func (r *Repo) WorkTree() string { return r.layout.workTree }
