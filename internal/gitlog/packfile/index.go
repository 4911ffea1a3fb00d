package packfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"

	"github.com/go-git/go-git/v5/plumbing"
)

// idxMagic starts a version 2 pack index.
var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// errIndexFormat reports a pack index this reader does not understand.
var errIndexFormat = errors.New("unsupported pack index format")

// packIndex is a version 2 pack index read in place, without decoding it
// into maps: a lookup costs one binary search over the mapped file.
type packIndex struct {
	data    []byte
	count   int
	names   int // offset of the sorted object names
	offsets int // offset of the 32-bit offsets
	large   int // offset of the 64-bit offsets
}

func newPackIndex(data []byte) (*packIndex, error) {
	if len(data) < 8+256*4 || !bytes.Equal(data[:8], idxMagic) {
		return nil, errIndexFormat
	}
	n := int(binary.BigEndian.Uint32(data[8+255*4:]))
	idx := &packIndex{data: data, count: n, names: 8 + 256*4}
	idx.offsets = idx.names + n*20 + n*4
	idx.large = idx.offsets + n*4
	if len(data) < idx.large+40 {
		return nil, errIndexFormat
	}
	return idx, nil
}

// find returns the pack offset of object h.
func (x *packIndex) find(h plumbing.Hash) (int64, bool) {
	i, ok := searchNames(x.data, 8, x.names, x.count, h)
	if !ok {
		return 0, false
	}
	return x.offset(i)
}

// searchNames finds h among count sorted 20-byte names at names, given a
// 256-entry fanout table at fanout (the layout of pack indexes and
// commit-graphs). Object names are uniformly distributed, so the search
// interpolates first: a couple of probes, each a page the kernel may have
// to map, instead of a dozen.
func searchNames(data []byte, fanout, names, count int, h plumbing.Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(data[fanout+(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(data[fanout+int(h[0])*4:]))
	if hi > count || lo > hi || names+hi*20 > len(data) {
		return 0, false
	}
	key := binary.BigEndian.Uint64(h[1:9])
	lowKey, highKey := uint64(0), uint64(math.MaxUint64)
	for probes := 0; lo < hi; probes++ {
		mid := int(uint(lo+hi) >> 1)
		if probes < 4 && highKey > lowKey {
			frac := float64(key-lowKey) / float64(highKey-lowKey)
			mid = min(max(lo+int(frac*float64(hi-lo)), lo), hi-1)
		}
		name := data[names+mid*20 : names+mid*20+20]
		switch bytes.Compare(name, h[:]) {
		case 0:
			return mid, true
		case -1:
			lo, lowKey = mid+1, binary.BigEndian.Uint64(name[1:9])
		default:
			hi, highKey = mid, binary.BigEndian.Uint64(name[1:9])
		}
	}
	return 0, false
}

func (x *packIndex) offset(i int) (int64, bool) {
	off := binary.BigEndian.Uint32(x.data[x.offsets+i*4:])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	at := x.large + int(off&0x7fffffff)*8
	if at+8 > len(x.data) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(x.data[at:])), true
}
