package gitlog

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// source loads commit headers, from the commit-graph file when it covers
// the commit and from the object store otherwise.
type source struct {
	objects storer.EncodedObjectStorer
	graph   *packfile.Graph // nil without a commit-graph
	fast    *packfile.Set   // nil when go-git reads the objects
	scratch []byte          // reused to inflate commit headers
}

// close releases the commit-graph file.
func (s *source) close() {
	if s.graph != nil {
		_ = s.graph.Close()
	}
}

// loadObject returns the header of commit h read from the objects (the
// walk looks in the commit-graph first).
func (s *source) loadObject(h plumbing.Hash) (packfile.Header, error) {
	if s.fast != nil {
		if hd, ok, err := s.fast.CommitHeader(h, &s.scratch); ok || err != nil {
			return hd, err
		}
		typ, raw, err := s.fast.Read(h)
		switch {
		case err == nil && typ == plumbing.CommitObject:
			return packfile.ParseHeader(raw)
		case err == nil:
			return packfile.Header{}, fmt.Errorf("object %s is a %s, not a commit", h, typ)
		case !errors.Is(err, packfile.ErrNotHere):
			return packfile.Header{}, err
		}
	}
	c, err := object.GetCommit(s.objects, h)
	if err != nil {
		return packfile.Header{}, err
	}
	return packfile.Header{Parents: c.ParentHashes, When: c.Committer.When.Unix(), Gen: packfile.GenUnknown}, nil
}
