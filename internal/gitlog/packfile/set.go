package packfile

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

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrNotHere is returned for an object the Set does not hold (alternates,
// promisor remotes): the caller reads it another way.
var ErrNotHere = errors.New("object not in the mapped packs or loose objects")

// Set reads objects straight from the mapped packfiles and the loose
// object directory. go-git's own object storage decodes every pack index
// into maps on first use, which costs a second and hundreds of megabytes on
// a large repository; this reader only touches the pages it needs.
type Set struct {
	objects string // the objects directory
	packs   []*pack
	release []func() error
	cache   *lru
}

// Open maps every pack of the objects directory. An index this
// reader does not understand is an error: the caller then uses go-git.
func Open(objects string) (*Set, error) {
	s := &Set{objects: objects, cache: newLRU(32 << 20)}
	idxs, err := filepath.Glob(filepath.Join(objects, "pack", "pack-*.idx"))
	if err != nil {
		return nil, err
	}
	for _, idxPath := range idxs {
		if err := s.add(idxPath); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", filepath.Base(idxPath), err)
		}
	}
	return s, nil
}

func (s *Set) add(idxPath string) error {
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

// Close unmaps every pack. The Set must not be used afterwards.
func (s *Set) Close() error {
	var errs []error
	for _, r := range s.release {
		errs = append(errs, r())
	}
	s.release, s.packs = nil, nil
	return errors.Join(errs...)
}

// Read returns the type and content of object h; ErrNotHere when neither a
// mapped pack nor the loose objects hold it.
func (s *Set) Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return s.read(h, 0)
}

// read returns the type and content of object h.
func (s *Set) read(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	for _, p := range s.packs {
		if off, ok := p.idx.find(h); ok {
			return p.read(off, depth)
		}
	}
	return s.loose(h)
}

// loose reads a loose object: zlib("<type> <size>\x00<content>").
func (s *Set) loose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	name := h.String()
	raw, err := os.ReadFile(filepath.Join(s.objects, name[:2], name[2:]))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil, ErrNotHere
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
