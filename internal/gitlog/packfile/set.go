package packfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zlib"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrNotHere is returned for an object the Set does not hold (alternates,
// promisor remotes): the caller reads it another way.
var ErrNotHere = errors.New("object not in the mapped packs or loose objects")

// Set reads objects straight from the mapped packfiles and the loose
// object directories, its own and its alternates'. go-git's own object
// storage decodes every pack index into maps on first use, which costs a
// second and hundreds of megabytes on a large repository; this reader only
// touches the pages it needs.
type Set struct {
	dirs    []string // the objects directory, then its alternates
	packs   []*pack
	release []func() error
	cache   *lru
}

// Alternates are followed as git follows them: at most this deep, and at
// most this many directories in all.
const (
	maxAlternateDepth = 5
	maxObjectDirs     = 64
)

// Open maps every pack of the objects directory and of the directories
// its objects/info/alternates file names (git clone --shared, --reference).
// An index this reader does not understand, or one that does not match its
// pack, is an error naming the file.
func Open(objects string) (*Set, error) {
	s := &Set{cache: newLRU(32 << 20)}
	if err := s.addDir(objects, 0); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// addDir adds an objects directory and, recursively, its alternates.
func (s *Set) addDir(dir string, depth int) error {
	dir = filepath.Clean(dir)
	if slices.Contains(s.dirs, dir) {
		return nil
	}
	if len(s.dirs) >= maxObjectDirs {
		return fmt.Errorf("%s: more than %d object directories through alternates", dir, maxObjectDirs)
	}
	s.dirs = append(s.dirs, dir)
	idxs, err := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
	if err != nil {
		return err
	}
	for _, idxPath := range idxs {
		if err := s.add(idxPath); err != nil {
			return fmt.Errorf("%s: %w", idxPath, err)
		}
	}
	alts, err := alternates(dir)
	if err != nil {
		return err
	}
	if len(alts) > 0 && depth >= maxAlternateDepth {
		return fmt.Errorf("%s: alternates nested more than %d deep", filepath.Join(dir, "info", "alternates"), maxAlternateDepth)
	}
	for _, alt := range alts {
		if fi, err := os.Stat(alt); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s names %s, which is not an objects directory: the repository it borrows objects from is gone", filepath.Join(dir, "info", "alternates"), alt)
		}
		if err := s.addDir(alt, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// alternates reads dir/info/alternates: one objects directory a line,
// relative to dir unless absolute; blank lines and # comments skipped.
func alternates(dir string) ([]string, error) {
	path := filepath.Join(dir, "info", "alternates")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil || len(raw) > 1<<20 {
		return nil, fmt.Errorf("%s: unreadable or larger than 1 MiB", path)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(dir, line)
		}
		out = append(out, line)
	}
	return out, nil
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
	packPath := strings.TrimSuffix(idxPath, ".idx") + ".pack"
	packData, release, err := mapFile(packPath)
	if err != nil {
		return err
	}
	s.release = append(s.release, release)
	if len(packData) < 32 || string(packData[:4]) != "PACK" {
		return errCorruptPack
	}
	// The index ends with its pack's checksum, the pack with its own; the
	// pack's header counts its objects. An index for another pack would
	// send every lookup to the wrong offset.
	if !bytes.Equal(idxData[len(idxData)-40:len(idxData)-20], packData[len(packData)-20:]) ||
		int(binary.BigEndian.Uint32(packData[8:])) != idx.count {
		return fmt.Errorf("the index does not match %s (another pack's index, or a pack rewritten in place): delete both and fetch again", filepath.Base(packPath))
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
	for _, dir := range s.dirs {
		typ, data, err := loose(dir, h)
		if !errors.Is(err, ErrNotHere) {
			return typ, data, err
		}
	}
	return 0, nil, ErrNotHere
}

// loose reads a loose object: zlib("<type> <size>\x00<content>").
func loose(dir string, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	name := h.String()
	raw, err := os.ReadFile(filepath.Join(dir, name[:2], name[2:]))
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
