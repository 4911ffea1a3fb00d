package packfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/go-git/go-git/v5/plumbing"
)

// Pack entry types beyond the four object types.
const (
	ofsDelta = 6
	refDelta = 7
)

// maxDeltaDepth bounds delta chains, against corrupt packs.
const maxDeltaDepth = 10000

var errCorruptPack = errors.New("corrupt pack entry")

// pack is one mapped packfile and its index.
type pack struct {
	data []byte
	idx  *packIndex
	set  *Set // for REF_DELTA bases
}

// entryHeader parses the header of the entry at off: its type, its
// inflated size and where its compressed data starts.
func (p *pack) entryHeader(off int64) (typ byte, size int64, data int64, err error) {
	if off < 12 || off >= int64(len(p.data)) {
		return 0, 0, 0, errCorruptPack
	}
	c := p.data[off]
	typ, size = (c>>4)&7, int64(c&15)
	shift := uint(4)
	for off++; c&0x80 != 0; off++ {
		if off >= int64(len(p.data)) || shift > 56 {
			return 0, 0, 0, errCorruptPack
		}
		c = p.data[off]
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	return typ, size, off, nil
}

// read returns the type and content of the object at off, applying deltas.
func (p *pack) read(off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, errCorruptPack
	}
	if got, ok := p.set.cache.get(p, off); ok {
		return got.typ, got.data, nil
	}
	typ, size, at, err := p.entryHeader(off)
	if err != nil {
		return 0, nil, err
	}
	var baseType plumbing.ObjectType
	var base []byte
	if typ == ofsDelta || typ == refDelta {
		if baseType, base, at, err = p.deltaBase(typ, off, at, depth); err != nil {
			return 0, nil, err
		}
	}
	raw, err := p.inflate(at, size)
	if err != nil {
		return 0, nil, err
	}
	if typ == ofsDelta || typ == refDelta {
		if raw, err = applyDelta(base, raw); err != nil {
			return 0, nil, err
		}
		typ = byte(baseType)
	}
	out := cached{typ: plumbing.ObjectType(typ), data: raw}
	if depth > 0 { // a delta base: others in its chain will want it again
		p.set.cache.put(p, off, out)
	}
	return out.typ, out.data, nil
}

// deltaBase reads the base of the delta entry at off, whose header ends at
// at, and returns where the delta's compressed data starts.
func (p *pack) deltaBase(typ byte, off, at int64, depth int) (plumbing.ObjectType, []byte, int64, error) {
	if typ == ofsDelta {
		rel, next, err := p.baseOffset(at)
		if err != nil {
			return 0, nil, 0, err
		}
		if rel <= 0 || rel > off {
			return 0, nil, 0, errCorruptPack
		}
		bt, base, err := p.read(off-rel, depth+1)
		return bt, base, next, err
	}
	if at+20 > int64(len(p.data)) {
		return 0, nil, 0, errCorruptPack
	}
	var h plumbing.Hash
	copy(h[:], p.data[at:at+20])
	bt, base, err := p.set.read(h, depth+1)
	return bt, base, at + 20, err
}

// baseOffset parses an OFS_DELTA's distance back to its base.
func (p *pack) baseOffset(at int64) (rel, next int64, err error) {
	if at >= int64(len(p.data)) {
		return 0, 0, errCorruptPack
	}
	c := p.data[at]
	rel = int64(c & 0x7f)
	for at++; c&0x80 != 0; at++ {
		if at >= int64(len(p.data)) || rel > 1<<48 {
			return 0, 0, errCorruptPack
		}
		c = p.data[at]
		rel = (rel+1)<<7 | int64(c&0x7f)
	}
	return rel, at, nil
}

// zlibReaders keeps inflaters for reuse: a fresh one allocates a 32 KiB
// window, more than most commits and trees.
var zlibReaders sync.Pool

// inflater returns a pooled zlib reader over src.
func inflater(src []byte) (io.ReadCloser, error) {
	z, _ := zlibReaders.Get().(io.ReadCloser)
	var err error
	if z == nil {
		z, err = zlib.NewReader(bytes.NewReader(src))
	} else {
		err = z.(zlib.Resetter).Reset(bytes.NewReader(src), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return z, nil
}

// inflate decompresses size bytes of zlib data starting at at. The size
// is the entry's claim, written by whoever made the pack: memory grows with
// what the data really inflates to (deflate cannot exceed about 1032:1 of
// the bytes left in the pack), never with the claim alone.
func (p *pack) inflate(at, size int64) ([]byte, error) {
	if size < 0 || size > (int64(len(p.data))-at)*1100 {
		return nil, errCorruptPack
	}
	z, err := inflater(p.data[at:])
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(z)
	if size <= 1<<20 {
		// The usual object: read into a buffer of exactly its size (a
		// growing buffer copies it again to find the end).
		out := make([]byte, size)
		n, err := io.ReadFull(z, out)
		if err != nil {
			return nil, fmt.Errorf("inflate: %d of the %d bytes the entry claims: %w", n, size, cmpErr(err, io.ErrUnexpectedEOF))
		}
		return out, nil
	}
	// A larger claim grows as the bytes arrive: a forged size allocates
	// no more than the stream holds.
	out := bytes.NewBuffer(make([]byte, 0, 1<<20))
	n, err := io.CopyN(out, z, size)
	if err != nil || n != size {
		return nil, fmt.Errorf("inflate: %d of the %d bytes the entry claims: %w", n, size, cmpErr(err, io.ErrUnexpectedEOF))
	}
	return out.Bytes(), nil
}

func cmpErr(err, otherwise error) error {
	if err != nil && err != io.EOF {
		return err
	}
	return otherwise
}

// applyDelta rebuilds an object from its base and a git delta.
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta, ok := deltaSize(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errCorruptPack
	}
	dstSize, delta, ok := deltaSize(delta)
	if !ok || dstSize > uint64(len(delta))*0x10000 { // each op yields at most 64 KiB
		return nil, errCorruptPack
	}
	// Preallocate no more than the delta can be seen to make at once (its
	// literal bytes and the base); a claim beyond that grows as copies land.
	out := make([]byte, 0, min(dstSize, uint64(len(base)+len(delta))))
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n uint64
			if off, n, delta, ok = copyOp(op, delta); !ok || off+n > uint64(len(base)) {
				return nil, errCorruptPack
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) {
				return nil, errCorruptPack
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, errCorruptPack
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errCorruptPack
	}
	return out, nil
}

// copyOp decodes the offset and length of a delta copy instruction.
func copyOp(op byte, delta []byte) (off, n uint64, rest []byte, ok bool) {
	for i := range 7 {
		if op&(1<<i) == 0 {
			continue
		}
		if len(delta) == 0 {
			return 0, 0, nil, false
		}
		if i < 4 {
			off |= uint64(delta[0]) << (8 * i)
		} else {
			n |= uint64(delta[0]) << (8 * (i - 4))
		}
		delta = delta[1:]
	}
	if n == 0 {
		n = 0x10000
	}
	return off, n, delta, true
}

// deltaSize reads a size varint at the start of a delta.
func deltaSize(b []byte) (uint64, []byte, bool) {
	var n uint64
	for i := 0; i < len(b) && i < 10; i++ {
		n |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return n, b[i+1:], true
		}
	}
	return 0, nil, false
}

// commitHeader reads the header of commit h into scratch, inflating only
// as far as the blank line before the message, and parses it. ok is false
// when h is not a plain packed commit (a delta, a loose object, another
// type): the caller then reads it whole.
func (s *Set) CommitHeader(h plumbing.Hash, scratch *[]byte) (hd Header, ok bool, err error) {
	for _, p := range s.packs {
		off, found := p.idx.find(h)
		if !found {
			continue
		}
		typ, size, at, err := p.entryHeader(off)
		if err != nil || typ != byte(plumbing.CommitObject) {
			return Header{}, false, err
		}
		raw, ok := []byte(nil), false
		if size > 0 && size <= int64(len(p.data)-int(at))*1100 {
			raw, ok = inflateHead(p.data[at:], int(size), '\n', (*scratch)[:0])
		}
		if ok {
			*scratch = raw
		} else if raw, err = p.inflatePrefix(at, size, []byte("\n\n"), scratch); err != nil {
			return Header{}, false, err
		}
		hd, err = ParseHeader(raw)
		return hd, err == nil, err
	}
	return Header{}, false, nil
}

// inflatePrefix decompresses the zlib data at at into *buf until the
// inflated bytes contain stop or size bytes are out.
func (p *pack) inflatePrefix(at, size int64, stop []byte, buf *[]byte) ([]byte, error) {
	if size > int64(len(p.data))*1100 {
		return nil, errCorruptPack
	}
	z, err := inflater(p.data[at:])
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(z)
	out := (*buf)[:0]
	for int64(len(out)) < size && !bytes.Contains(out, stop) {
		if cap(out)-len(out) < 256 {
			out = append(out, make([]byte, 512)...)[:len(out)]
		}
		n, err := z.Read(out[len(out):min(cap(out), len(out)+int(size)-len(out))])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("inflate: %w", err)
		}
	}
	*buf = out
	return out, nil
}
