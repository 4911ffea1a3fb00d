package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// objectStore is go-git's storage with object reads served by a packfile.Set
// (packs and loose objects, alternates included); an object the Set does
// not hold is asked of go-git before it is reported missing.
type objectStore struct {
	storage.Storer
	fast   *packfile.Set
	closer io.Closer  // go-git's storage
	mu     sync.Mutex // go-git's object storage is not safe for concurrent reads
}

// EncodedObject returns object h if it has type t (or t is AnyObject).
func (s *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, err := s.fast.Read(h)
	if errors.Is(err, packfile.ErrNotHere) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.Storer.EncodedObject(t, h)
	}
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	return &rawObject{hash: h, typ: typ, data: data}, nil
}

// rawObject is a read-only object over bytes the packfile.Set decoded. Unlike
// plumbing.MemoryObject it neither copies them nor hashes them again: the
// hash is the one the object was looked up by.
type rawObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	data []byte
}

var errReadOnly = errors.New("read-only object")

// Hash returns the object's hash.
func (o *rawObject) Hash() plumbing.Hash { return o.hash }

// Type returns the object's type.
func (o *rawObject) Type() plumbing.ObjectType { return o.typ }

// SetType is a no-op: the object is read-only.
func (o *rawObject) SetType(plumbing.ObjectType) {}

// Size returns the object's size.
func (o *rawObject) Size() int64 { return int64(len(o.data)) }

// SetSize is a no-op: the object is read-only.
func (o *rawObject) SetSize(int64) {}

// Reader returns the object's content.
func (o *rawObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

// Writer fails: the object is read-only.
func (o *rawObject) Writer() (io.WriteCloser, error) { return nil, errReadOnly }

// HasEncodedObject reports whether object h exists.
func (s *objectStore) HasEncodedObject(h plumbing.Hash) error {
	if _, _, err := s.fast.Read(h); err == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storer.HasEncodedObject(h)
}
