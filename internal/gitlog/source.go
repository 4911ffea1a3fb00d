package gitlog

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// genUnknown is the generation of a commit the commit-graph does not cover.
// Such commits are newer than every covered one, so they sort first.
const genUnknown = math.MaxUint64

// header is what the walk needs of a commit: its parents, its committer
// time and, when a commit-graph covers it, its generation number.
type header struct {
	parents []plumbing.Hash
	when    int64
	gen     uint64
}

// source loads commit headers, from the commit-graph file when it covers
// the commit and from the object store otherwise.
type source struct {
	objects storer.EncodedObjectStorer
	graph   *graphFile   // nil without a commit-graph
	fast    *packSet     // nil when go-git reads the objects
	scratch []byte       // reused to inflate commit headers
	release func() error // unmaps the commit-graph
}

// close releases the commit-graph file.
func (s *source) close() {
	if s.release != nil {
		_ = s.release()
	}
}

// load returns the header of commit h.
func (s *source) load(h plumbing.Hash) (header, error) {
	if s.graph != nil {
		if hd, ok := s.graph.header(h); ok {
			return hd, nil
		}
	}
	if s.fast != nil {
		if hd, ok, err := s.fast.commitHeader(h, &s.scratch); ok || err != nil {
			return hd, err
		}
		typ, raw, err := s.fast.read(h, 0)
		switch {
		case err == nil && typ == plumbing.CommitObject:
			return parseHeader(raw)
		case err == nil:
			return header{}, fmt.Errorf("object %s is a %s, not a commit", h, typ)
		case !errors.Is(err, errNotHere):
			return header{}, err
		}
	}
	c, err := object.GetCommit(s.objects, h)
	if err != nil {
		return header{}, err
	}
	return header{parents: c.ParentHashes, when: c.Committer.When.Unix(), gen: genUnknown}, nil
}
