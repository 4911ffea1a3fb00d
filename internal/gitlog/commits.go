package gitlog

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/merkletrie"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// renameScore is git's default similarity threshold for renames (50%).
const renameScore = 50

// renameLimit is git's default diff.renameLimit: with more added or more
// deleted files than this in one commit, renames are not looked for and
// the commit reads as deletions and additions (the scope lock then checks
// both paths, so nothing escapes it). go-git compares every deleted file
// with every added one, even for exact renames; an agent replacing 12,000
// identical files would otherwise exhaust memory.
const renameLimit = 1000

// commits returns the branch commits, given newest first, oldest first:
// those the reader already read, and the others read now in parallel.
func (r *Repo) commits(ctx context.Context, branch []plumbing.Hash, opts Options, early *reader) ([]breaker.Commit, error) {
	rd := newReader(ctx, r, opts, runtime.GOMAXPROCS(0))
	for _, h := range branch {
		if _, ok := early.result(h); !ok {
			rd.add(h)
		}
	}
	rd.finish()
	out := make([]breaker.Commit, len(branch))
	var errs []error
	for i, h := range branch {
		res, ok := early.result(h)
		if !ok {
			res, _ = rd.result(h)
		}
		out[len(branch)-1-i] = res.commit
		errs = append(errs, res.err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// commit reads one branch commit, its trailers and, for an attempt, its
// changed paths.
func (r *Repo) commit(ctx context.Context, h plumbing.Hash, opts Options) (breaker.Commit, error) {
	c, err := object.GetCommit(r.store, h)
	if err != nil {
		return breaker.Commit{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	bc := translate(c)
	if opts.Parse != nil {
		bc.Trailers = opts.Parse(c.Message)
	}
	if opts.NeedsFiles != nil && opts.NeedsFiles(bc.Trailers) {
		if bc.Files, err = r.changes(ctx, c); err != nil {
			return breaker.Commit{}, fmt.Errorf("changed paths of %s: %w", c.Hash, err)
		}
	}
	return bc, nil
}

// translate copies a go-git commit into the domain type.
func translate(c *object.Commit) breaker.Commit {
	out := breaker.Commit{
		SHA:         c.Hash.String(),
		Subject:     subject(c.Message),
		Message:     c.Message,
		AuthorName:  c.Author.Name,
		AuthorEmail: c.Author.Email,
		Time:        c.Author.When,
	}
	if len(c.ParentHashes) > 0 {
		out.Parent = c.ParentHashes[0].String()
	}
	return out
}

// subject is git's %s: the first paragraph of the message on one line.
func subject(msg string) string {
	msg = strings.TrimLeft(msg, "\n")
	para, _, _ := strings.Cut(msg, "\n\n")
	lines := strings.Split(strings.TrimSpace(para), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " ")
}

// changes lists the paths c changed against its first parent (against the
// empty tree for a root commit), renames detected as git does by default.
func (r *Repo) changes(ctx context.Context, c *object.Commit) ([]breaker.FileChange, error) {
	var from plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parent, err := object.GetCommit(r.store, c.ParentHashes[0])
		if err != nil {
			return nil, err
		}
		from = parent.TreeHash
	}
	changes, err := r.diffTrees(from, c.TreeHash)
	if err != nil {
		return nil, err
	}
	diff := changes
	if withinRenameLimit(changes) {
		opts := *object.DefaultDiffTreeOptions
		opts.RenameScore, opts.RenameLimit = renameScore, renameLimit
		if renamed, err := object.DetectRenames(changes, &opts); err == nil {
			diff = renamed
		} // else (a submodule has no content to compare): no renames
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]breaker.FileChange, 0, len(diff))
	for _, ch := range diff {
		fc, err := fileChange(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, fc)
	}
	slices.SortFunc(out, func(a, b breaker.FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// withinRenameLimit reports whether changes has at most renameLimit added
// and at most renameLimit deleted files.
func withinRenameLimit(changes object.Changes) bool {
	var added, deleted int
	for _, ch := range changes {
		switch {
		case ch.From.Name == "":
			added++
		case ch.To.Name == "":
			deleted++
		}
	}
	return added <= renameLimit && deleted <= renameLimit
}

// diffTrees lists the file changes from tree a to tree b (zero: empty).
func (r *Repo) diffTrees(a, b plumbing.Hash) (object.Changes, error) {
	empty := &plumbing.MemoryObject{}
	empty.SetType(plumbing.TreeObject)
	blobs, err := object.DecodeTree(r.store, empty)
	if err != nil {
		return nil, err
	}
	d := &treeDiff{repo: r, blobs: blobs}
	from, err := d.tree(a)
	if err != nil {
		return nil, err
	}
	to, err := d.tree(b)
	if err != nil {
		return nil, err
	}
	err = d.diff("", from, to)
	return d.changes, err
}

// fileChange classifies one tree change.
func fileChange(ch *object.Change) (breaker.FileChange, error) {
	action, err := ch.Action()
	if err != nil {
		return breaker.FileChange{}, err
	}
	switch {
	case action == merkletrie.Insert:
		return breaker.FileChange{Path: ch.To.Name, Change: breaker.ChangeAdded}, nil
	case action == merkletrie.Delete:
		return breaker.FileChange{Path: ch.From.Name, Change: breaker.ChangeDeleted}, nil
	case ch.From.Name != ch.To.Name:
		return breaker.FileChange{Path: ch.To.Name, Change: breaker.ChangeRenamed, From: ch.From.Name}, nil
	default:
		return breaker.FileChange{Path: ch.To.Name, Change: breaker.ChangeModified}, nil
	}
}
