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

// maxPaths bounds the changed paths read of one commit. A tree of twenty
// objects can name a million paths (each level ten copies of the one
// below); past the bound the commit's Files are cut, a note says so and the
// scope lock counts the unread rest as out of scope.
const maxPaths = 20000

// commits returns the branch commits, given newest first, oldest first:
// those the reader already read, and the others read now in parallel.
func (r *Repo) commits(ctx context.Context, branch []plumbing.Hash, opts Options, early *reader) ([]breaker.Commit, []string, error) {
	rd := newReader(ctx, r, opts, runtime.GOMAXPROCS(0))
	for _, h := range branch {
		if _, ok := early.result(h); !ok {
			rd.add(h)
		}
	}
	rd.finish()
	out := make([]breaker.Commit, len(branch))
	var errs []error
	var notes []string
	for i, h := range branch {
		res, ok := early.result(h)
		if !ok {
			res, _ = rd.result(h)
		}
		out[len(branch)-1-i] = res.commit
		errs = append(errs, res.err)
		notes = append(notes, res.notes...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	slices.Reverse(notes) // oldest commit first, as the commits
	return out, notes, nil
}

// commit reads one branch commit, its trailers and, for an attempt, its
// changed paths; notes say what the reader should know about them.
func (r *Repo) commit(ctx context.Context, h plumbing.Hash, opts Options) (breaker.Commit, []string, error) {
	c, err := object.GetCommit(r.store, h)
	if err != nil {
		return breaker.Commit{}, nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	bc := translate(c)
	if opts.Parse != nil {
		bc.Trailers = opts.Parse(c.Message)
	}
	var notes []string
	if opts.NeedsFiles != nil && opts.NeedsFiles(bc.Trailers) {
		if bc.Files, bc.FilesCut, notes, err = r.changes(ctx, c); err != nil {
			return breaker.Commit{}, nil, fmt.Errorf("changed paths of %s: %w", c.Hash, err)
		}
	}
	return bc, notes, nil
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
// cut says the list stops at maxPaths; notes say when renames were not
// looked for, and why.
func (r *Repo) changes(ctx context.Context, c *object.Commit) (files []breaker.FileChange, cut bool, notes []string, err error) {
	var from plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parent, err := object.GetCommit(r.store, c.ParentHashes[0])
		if err != nil {
			return nil, false, nil, err
		}
		from = parent.TreeHash
	}
	changes, cut, err := r.diffTrees(from, c.TreeHash, maxPaths)
	if err != nil {
		return nil, false, nil, err
	}
	short := breaker.ShortSHA(c.Hash.String())
	diff := changes
	switch {
	case cut:
		notes = append(notes, fmt.Sprintf("commit %s changes more than %d paths: only the first %d were read, renames were not looked for, "+
			"and the scope lock counts the rest as out of scope", short, maxPaths, maxPaths))
	case !withinRenameLimit(changes):
		notes = append(notes, fmt.Sprintf("commit %s adds or deletes more than %d files (git's rename limit): renames were not looked for, "+
			"so every path reads as deleted or added", short, renameLimit))
	default:
		opts := *object.DefaultDiffTreeOptions
		opts.RenameScore, opts.RenameLimit = renameScore, renameLimit
		renamed, err := object.DetectRenames(changes, &opts)
		switch {
		case err == nil:
			diff = renamed
		case errors.Is(err, plumbing.ErrObjectNotFound) && r.ext["partialclone"] != "":
			notes = append(notes, fmt.Sprintf("commit %s: renames were not looked for because the repository is a partial clone "+
				"without the files' contents (--filter=blob:none): an edited rename reads as a deletion and an addition; "+
				"check out with filter: none (the default) to see renames", short))
		default:
			notes = append(notes, fmt.Sprintf("commit %s: renames were not looked for (%v): a renamed path reads as a deletion and an addition", short, err))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, false, nil, err
	}
	out := make([]breaker.FileChange, 0, len(diff))
	for _, ch := range diff {
		fc, err := fileChange(ch)
		if err != nil {
			return nil, false, nil, err
		}
		out = append(out, fc)
	}
	slices.SortFunc(out, func(a, b breaker.FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out, cut, notes, nil
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

// diffTrees lists the file changes from tree a to tree b (zero: empty),
// at most limit of them; cut says there were more.
func (r *Repo) diffTrees(a, b plumbing.Hash, limit int) (changes object.Changes, cut bool, err error) {
	if a == b {
		return nil, false, nil // an empty commit, or a merge taking its first parent's tree
	}
	empty := &plumbing.MemoryObject{}
	empty.SetType(plumbing.TreeObject)
	blobs, err := object.DecodeTree(r.store, empty)
	if err != nil {
		return nil, false, err
	}
	d := &treeDiff{repo: r, blobs: blobs, limit: limit}
	from, err := d.tree(a)
	if err != nil {
		return nil, false, err
	}
	to, err := d.tree(b)
	if err != nil {
		return nil, false, err
	}
	if err := d.diff("", from, to); errors.Is(err, errPathLimit) {
		return d.changes, true, nil
	} else if err != nil {
		return nil, false, err
	}
	return d.changes, false, nil
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
