package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

var errTreeFormat = errors.New("malformed tree object")

// treeEntry is one entry of a raw tree; name points into the tree's bytes.
type treeEntry struct {
	name []byte
	mode filemode.FileMode
	hash plumbing.Hash
}

func (e treeEntry) isDir() bool { return e.mode == filemode.Dir }

// parseTree splits a raw tree object ("<octal mode> <name>\0<20-byte hash>"
// repeated) into its entries, in git's order.
func parseTree(raw []byte) ([]treeEntry, error) {
	out := make([]treeEntry, 0, len(raw)/32+1) // an entry is about 30 bytes or more
	for len(raw) > 0 {
		e, rest, err := nextEntry(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		raw = rest
	}
	return out, nil
}

// nextEntry reads the first entry of a raw tree and returns the bytes
// after it. The diff walks two trees entry by entry with it, allocating
// nothing: a root tree of 5,000 entries read for every attempt commit is
// otherwise the largest allocation of a run.
func nextEntry(raw []byte) (treeEntry, []byte, error) {
	sp := bytes.IndexByte(raw, ' ')
	nul := bytes.IndexByte(raw, 0)
	if sp <= 0 || nul < sp+2 || len(raw) < nul+21 {
		return treeEntry{}, nil, errTreeFormat
	}
	var mode uint32
	for _, c := range raw[:sp] {
		if c < '0' || c > '7' {
			return treeEntry{}, nil, errTreeFormat
		}
		if mode > 1<<29-1 {
			return treeEntry{}, nil, errTreeFormat // over 32 bits
		}
		mode = mode<<3 | uint32(c-'0')
	}
	e := treeEntry{name: raw[sp+1 : nul], mode: canonicalMode(mode)}
	copy(e.hash[:], raw[nul+1:nul+21])
	return e, raw[nul+21:], nil
}

// canonicalMode maps a tree entry's mode to one of the four git knows, as
// git's canon_mode (and go-git) do: a tree the agent wrote with "040755" is
// still a directory, and "100664" a regular file, so no change hides behind
// an odd mode.
func canonicalMode(mode uint32) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}

// compareEntries orders entries as git does: by name, a directory's name
// compared as if it ended with '/'.
func compareEntries(a, b treeEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	ca, cb := nextByte(a, n), nextByte(b, n)
	return int(ca) - int(cb)
}

func nextByte(e treeEntry, n int) byte {
	if n < len(e.name) {
		return e.name[n]
	}
	if e.isDir() {
		return '/'
	}
	return 0
}

// treeDiff collects the file changes between two trees, reading only the
// subtrees whose hashes differ, so its cost follows the size of the change
// rather than the width of the tree.
type treeDiff struct {
	repo    *Repo
	blobs   *object.Tree // reads blobs for rename detection
	changes object.Changes
	limit   int // changes kept at most; one more ends the diff with errPathLimit
}

// errPathLimit ends a diff that reached treeDiff.limit.
var errPathLimit = errors.New("path limit reached")

// record adds one change, or reports that the limit is reached.
func (d *treeDiff) record(ch *object.Change) error {
	if len(d.changes) >= d.limit {
		return errPathLimit
	}
	d.changes = append(d.changes, ch)
	return nil
}

// diff compares two raw trees whose paths start with prefix, entry by
// entry.
func (d *treeDiff) diff(prefix string, from, to []byte) error {
	var o, e treeEntry
	var err error
	haveO, haveE := false, false
	for {
		if !haveO && len(from) > 0 {
			if o, from, err = nextEntry(from); err != nil {
				return err
			}
			haveO = true
		}
		if !haveE && len(to) > 0 {
			if e, to, err = nextEntry(to); err != nil {
				return err
			}
			haveE = true
		}
		c := 0
		switch {
		case !haveO && !haveE:
			return nil
		case !haveO:
			c = 1
		case !haveE:
			c = -1
		default:
			c = compareEntries(o, e)
		}
		switch {
		case c < 0:
			err, haveO = d.side(prefix, o, false), false
		case c > 0:
			err, haveE = d.side(prefix, e, true), false
		default:
			err, haveO, haveE = d.both(prefix, o, e), false, false
		}
		if err != nil {
			return err
		}
	}
}

// both compares two entries of the same name and kind.
func (d *treeDiff) both(prefix string, o, e treeEntry) error {
	switch {
	case o.hash == e.hash && o.mode == e.mode:
		return nil
	case e.isDir():
		a, err := d.tree(o.hash)
		if err != nil {
			return err
		}
		b, err := d.tree(e.hash)
		if err != nil {
			return err
		}
		return d.diff(prefix+string(e.name)+"/", a, b)
	default:
		return d.record(&object.Change{From: d.entry(prefix, o), To: d.entry(prefix, e)})
	}
}

// side records an entry present on one side only: every file under it is
// added (added is true) or deleted.
func (d *treeDiff) side(prefix string, e treeEntry, added bool) error {
	if !e.isDir() {
		if added {
			return d.record(&object.Change{To: d.entry(prefix, e)})
		}
		return d.record(&object.Change{From: d.entry(prefix, e)})
	}
	children, err := d.tree(e.hash)
	if err != nil {
		return err
	}
	for len(children) > 0 {
		var child treeEntry
		if child, children, err = nextEntry(children); err != nil {
			return err
		}
		if err := d.side(prefix+string(e.name)+"/", child, added); err != nil {
			return err
		}
	}
	return nil
}

// entry is how go-git's rename detection finds a file: its full path and
// a tree able to read its blob.
func (d *treeDiff) entry(prefix string, e treeEntry) object.ChangeEntry {
	return object.ChangeEntry{
		Name:      prefix + string(e.name),
		Tree:      d.blobs,
		TreeEntry: object.TreeEntry{Name: string(e.name), Mode: e.mode, Hash: e.hash},
	}
}

// tree reads tree h, raw; the zero hash is the empty tree.
func (d *treeDiff) tree(h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	obj, err := d.repo.store.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	raw, err := objectBytes(obj)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	return raw, nil
}

// objectBytes returns an object's content, without copying a rawObject's.
func objectBytes(obj plumbing.EncodedObject) ([]byte, error) {
	if raw, ok := obj.(*rawObject); ok {
		return raw.data, nil
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
