package gitlog

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNoFile reports that a commit's tree holds no file at a path.
var ErrNoFile = errors.New("no such file in the commit")

// FileAt reads the regular file at the slash-separated, repository-relative
// name in commit's tree, at most max bytes: what the base commit says, which
// no branch can change (the slice graph and its contracts are read so). A
// path the tree lacks is ErrNoFile; a symlink, a directory or a submodule
// there is an error naming it, as is a file over max.
func (r *Repo) FileAt(commit, name string, max int64) ([]byte, error) {
	c, err := r.git.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", commit, err)
	}
	clean := path.Clean(name)
	if path.IsAbs(clean) || clean == "." || clean == ".." || len(clean) > 2 && clean[:3] == "../" {
		return nil, fmt.Errorf("%s is not a path inside the repository", name)
	}
	entry, err := tree.FindEntry(clean)
	if errors.Is(err, plumbing.ErrObjectNotFound) && throughFile(tree, clean) {
		err = object.ErrEntryNotFound // a path below a file: go-git looks for a tree that is a blob
	}
	switch {
	case errors.Is(err, object.ErrEntryNotFound), errors.Is(err, object.ErrDirectoryNotFound):
		return nil, fmt.Errorf("%s at %s: %w", clean, commit[:min(len(commit), 12)], ErrNoFile)
	case err != nil:
		return nil, fmt.Errorf("find %s at %s: %w", clean, commit, err)
	case entry.Mode != filemode.Regular && entry.Mode != filemode.Executable:
		return nil, fmt.Errorf("%s at %s is not a regular file (mode %s)", clean, commit, entry.Mode)
	}
	blob, err := r.git.BlobObject(entry.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", clean, commit, err)
	}
	if blob.Size > max {
		return nil, fmt.Errorf("%s at %s is %d bytes, over the %d-byte bound", clean, commit, blob.Size, max)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", clean, commit, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", clean, commit, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s at %s is over the %d-byte bound", clean, commit, max)
	}
	return data, nil
}

// throughFile reports whether a leading part of the slash-separated name
// is a file (not a directory) in tree.
func throughFile(tree *object.Tree, name string) bool {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		e, err := tree.FindEntry(strings.Join(parts[:i], "/"))
		if err != nil {
			return false
		}
		if e.Mode != filemode.Dir {
			return true
		}
	}
	return false
}

// MergeBase is the best common ancestor of commits a and b, as git
// merge-base gives it (the first of several); an error when they share no
// history or a commit is missing (a shallow clone).
func (r *Repo) MergeBase(a, b string) (string, error) {
	ca, err := r.git.CommitObject(plumbing.NewHash(a))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", a, err)
	}
	cb, err := r.git.CommitObject(plumbing.NewHash(b))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", b, err)
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return "", fmt.Errorf("%s and %s share no history", a, b)
	}
	return bases[0].Hash.String(), nil
}
