package gitlog

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

var errNotHere = errors.New("object not in the mapped packs or loose objects")

// packSet reads objects straight from the mapped packfiles and the loose
// object directory. go-git's own object storage decodes every pack index
// into maps on first use, which costs a second and hundreds of megabytes on
// a large repository; this reader only touches the pages it needs.
type packSet struct {
	objects string // the objects directory
	packs   []*pack
	release []func() error
	cache   *lru
}

// openPackSet maps every pack of the objects directory. An index this
// reader does not understand is an error: the caller then uses go-git.
func openPackSet(objects string) (*packSet, error) {
	s := &packSet{objects: objects, cache: newLRU(32 << 20)}
	idxs, err := filepath.Glob(filepath.Join(objects, "pack", "pack-*.idx"))
	if err != nil {
		return nil, err
	}
	for _, idxPath := range idxs {
		if err := s.add(idxPath); err != nil {
			s.close()
			return nil, fmt.Errorf("%s: %w", filepath.Base(idxPath), err)
		}
	}
	return s, nil
}

func (s *packSet) add(idxPath string) error {
	idxData, release, err := mapFile(idxPath)
	if err != nil {
		return err
	}
	s.release = append(s.release, release)
	idx, err := newPackIndex(idxData)
	if err != nil {
		return err
	}
	packData, release, err := mapFile(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		return err
	}
	s.release = append(s.release, release)
	if len(packData) < 32 || string(packData[:4]) != "PACK" {
		return errCorruptPack
	}
	s.packs = append(s.packs, &pack{data: packData, idx: idx, set: s})
	return nil
}

func (s *packSet) close() error {
	var errs []error
	for _, r := range s.release {
		errs = append(errs, r())
	}
	s.release, s.packs = nil, nil
	return errors.Join(errs...)
}

// read returns the type and content of object h.
func (s *packSet) read(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	for _, p := range s.packs {
		if off, ok := p.idx.find(h); ok {
			return p.read(off, depth)
		}
	}
	return s.loose(h)
}

// loose reads a loose object: zlib("<type> <size>\x00<content>").
func (s *packSet) loose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	name := h.String()
	raw, err := os.ReadFile(filepath.Join(s.objects, name[:2], name[2:]))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil, errNotHere
	}
	if err != nil {
		return 0, nil, err
	}
	z, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", name, err)
	}
	all, err := io.ReadAll(io.LimitReader(z, 1<<31))
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", name, err)
	}
	head, body, ok := bytes.Cut(all, []byte{0})
	typName, sizeText, _ := strings.Cut(string(head), " ")
	typ, err := plumbing.ParseObjectType(typName)
	if size, serr := strconv.Atoi(sizeText); !ok || err != nil || serr != nil || size != len(body) {
		return 0, nil, fmt.Errorf("loose object %s: malformed header", name)
	}
	return typ, body, nil
}

// objectStore is go-git's storage with object reads served by a packSet;
// objects the packSet does not hold (alternates, odd layouts) still come
// from go-git.
type objectStore struct {
	storage.Storer
	fast *packSet
	mu   sync.Mutex // go-git's object storage is not safe for concurrent reads
}

// EncodedObject returns object h if it has type t (or t is AnyObject).
func (s *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, err := s.fast.read(h, 0)
	if errors.Is(err, errNotHere) {
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

// rawObject is a read-only object over bytes the packSet decoded. Unlike
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
	if _, _, err := s.fast.read(h, 0); err == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storer.HasEncodedObject(h)
}
