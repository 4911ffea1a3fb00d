package packfile

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// A commit's header is the first two or three hundred bytes of its zlib
// stream. klauspost/compress builds full decoding tables for every dynamic
// Huffman block before the first byte comes out, which is most of the cost
// of so short a read, and the walk makes one per commit it reads (30,000
// when the fork is 30,000 commits behind). inflateHead decodes just that
// prefix with small tables: an 8-bit first-level table for the common
// short codes and a canonical decode (RFC 1951, as zlib's puff.c does) for
// the rest.
//
// It is written here because no library decodes a prefix without paying
// for the whole block's tables. It is checked against compress/zlib by a
// differential fuzz test, and it gives up (ok false) on anything it does
// not expect — an incomplete code, a distance before the start, a preset
// dictionary, input that ends early — so the caller decodes that entry
// with klauspost/compress, which reports the error properly.

// Code lengths are at most 15 bits; first-level tables index this many.
const (
	maxCodeBits = 15
	litFastBits = 8
	clFastBits  = 7
	distFast    = 7
)

// huffman is a canonical Huffman code: fast maps the next fastBits input
// bits (LSB first) to symbol<<4 | length for codes that short; count and
// symbol decode the rest a bit at a time.
type huffman struct {
	count    [maxCodeBits + 1]uint16
	symbol   [288]uint16
	fast     [1 << 9]uint16
	fastBits uint
}

// build makes the code for lengths; false for an over-subscribed or
// incomplete set of lengths, except that a distance code (sparse) may
// have one code or none, as RFC 1951 allows for data all or nearly all
// literals; decoding an unused code then fails.
func (h *huffman) build(lengths []uint8, fastBits uint, sparse bool) bool {
	// Four histograms, summed: most lengths repeat (0 or 8), and one
	// counter incremented back to back waits on its own last store.
	var c [4][maxCodeBits + 1]uint16
	i := 0
	for ; i+4 <= len(lengths); i += 4 {
		c[0][lengths[i]&15]++
		c[1][lengths[i+1]&15]++
		c[2][lengths[i+2]&15]++
		c[3][lengths[i+3]&15]++
	}
	for ; i < len(lengths); i++ {
		c[0][lengths[i]&15]++
	}
	for l := range h.count {
		h.count[l] = c[0][l] + c[1][l] + c[2][l] + c[3][l]
	}
	left := 1
	for l := 1; l <= maxCodeBits; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return false
		}
	}
	if left != 0 && !(sparse && len(lengths)-int(h.count[0]) <= 1) {
		return false
	}
	// Canonical codes: within a length, in symbol order (RFC 1951 3.2.2).
	var offs [maxCodeBits + 2]uint16
	var next [maxCodeBits + 1]int
	code := 0
	for l := 1; l <= maxCodeBits; l++ {
		offs[l+1] = offs[l] + h.count[l]
		code = (code + int(h.count[l-1])) << 1
		next[l] = code
	}
	h.fastBits = fastBits
	clear(h.fast[:1<<fastBits])
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		h.symbol[offs[l]] = uint16(s)
		offs[l]++
		if uint(l) <= fastBits {
			entry := uint16(s)<<4 | uint16(l)
			for k := int(bits.Reverse16(uint16(next[l]))) >> (16 - l); k < 1<<fastBits; k += 1 << l {
				h.fast[k] = entry
			}
		}
		next[l]++
	}
	return true
}

// bitReader reads a deflate stream LSB first.
type bitReader struct {
	src   []byte
	pos   int
	bits  uint64
	nbits uint
}

// need makes n (at most 56) bits available; false when the input ends first.
func (br *bitReader) need(n uint) bool {
	for br.nbits < n {
		if br.pos >= len(br.src) {
			return false
		}
		br.bits |= uint64(br.src[br.pos]) << br.nbits
		br.pos++
		br.nbits += 8
	}
	return true
}

// fill tops the buffer up to at least 56 bits as far as the input
// allows. With eight bytes at hand it loads them at once; the bits above
// nbits are then the next input bits, which the next load ORs in again.
func (br *bitReader) fill() {
	if br.pos+8 <= len(br.src) {
		br.bits |= binary.LittleEndian.Uint64(br.src[br.pos:]) << br.nbits
		br.pos += int(63-br.nbits) >> 3
		br.nbits |= 56
		return
	}
	for br.nbits <= 56 && br.pos < len(br.src) {
		br.bits |= uint64(br.src[br.pos]) << br.nbits
		br.pos++
		br.nbits += 8
	}
}

func (br *bitReader) take(n uint) (uint32, bool) {
	if !br.need(n) {
		return 0, false
	}
	v := uint32(br.bits & (1<<n - 1))
	br.bits >>= n
	br.nbits -= n
	return v, true
}

// decode reads one symbol of h.
func (br *bitReader) decode(h *huffman) (int, bool) {
	br.fill()
	if e := h.fast[br.bits&(1<<h.fastBits-1)]; e != 0 {
		n := uint(e & 15)
		if n > br.nbits {
			return 0, false
		}
		br.bits >>= n
		br.nbits -= n
		return int(e >> 4), true
	}
	code, first, index := 0, 0, 0
	for l := 1; l <= maxCodeBits; l++ {
		if br.nbits == 0 {
			return 0, false
		}
		code |= int(br.bits & 1)
		br.bits >>= 1
		br.nbits--
		count := int(h.count[l])
		if code-first < count {
			return int(h.symbol[index+code-first]), true
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, false
}

var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder     = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// fixedCodes are the lengths and distances of fixed-Huffman blocks.
var fixedCodes = sync.OnceValue(func() *[2]huffman {
	var lengths [288]uint8
	for i := range lengths {
		switch {
		case i < 144:
			lengths[i] = 8
		case i < 256:
			lengths[i] = 9
		case i < 280:
			lengths[i] = 7
		default:
			lengths[i] = 8
		}
	}
	var codes [2]huffman
	codes[0].build(lengths[:], 9, false)
	// 30 five-bit distance codes complete with the two unused ones.
	dist := make([]uint8, 32)
	for i := range dist {
		dist[i] = 5
	}
	codes[1].build(dist, 5, false)
	return &codes
})

// headInflater holds the tables of one decode, kept for reuse.
type headInflater struct {
	lit, dist, cl huffman
	lengths       [288 + 32]uint8
}

var headInflaters = sync.Pool{New: func() any { return new(headInflater) }}

// inflateHead decodes the zlib stream src into out[:0] until the output
// holds stop ("\n\n", a commit's blank line), size bytes, or the stream's
// last block ends. ok is false when it cannot tell: the caller decodes the
// entry another way.
func inflateHead(src []byte, size int, stop byte, out []byte) ([]byte, bool) {
	if len(src) < 2 || src[0]&0x0f != 8 || src[0]>>4 > 7 || src[1]&0x20 != 0 || (uint(src[0])<<8|uint(src[1]))%31 != 0 {
		return nil, false
	}
	hi := headInflaters.Get().(*headInflater)
	defer headInflaters.Put(hi)
	br := bitReader{src: src, pos: 2}
	out = out[:0]
	for {
		final, ok := br.take(1)
		if !ok {
			return nil, false
		}
		typ, ok := br.take(2)
		if !ok {
			return nil, false
		}
		var lit, dist *huffman
		switch typ {
		case 0:
			var done bool
			if out, done, ok = hi.stored(&br, out, size, stop); !ok {
				return nil, false
			}
			if done {
				return out, true
			}
		case 1:
			codes := fixedCodes()
			lit, dist = &codes[0], &codes[1]
		case 2:
			if !hi.dynamic(&br) {
				return nil, false
			}
			lit, dist = &hi.lit, &hi.dist
		default:
			return nil, false
		}
		if lit != nil {
			var done bool
			if out, done, ok = codes(&br, lit, dist, out, size, stop); !ok {
				return nil, false
			}
			if done {
				return out, true
			}
		}
		if final == 1 {
			return out, true
		}
	}
}

// stored copies a stored block; done when the output is complete.
func (hi *headInflater) stored(br *bitReader, out []byte, size int, stop byte) ([]byte, bool, bool) {
	// Drop to the byte boundary; whole bytes still buffered go back.
	br.bits >>= br.nbits % 8
	br.nbits -= br.nbits % 8
	br.pos -= int(br.nbits / 8)
	br.bits, br.nbits = 0, 0
	if br.pos+4 > len(br.src) {
		return nil, false, false
	}
	n := int(br.src[br.pos]) | int(br.src[br.pos+1])<<8
	if nn := int(br.src[br.pos+2]) | int(br.src[br.pos+3])<<8; n != ^nn&0xffff {
		return nil, false, false
	}
	br.pos += 4
	if br.pos+n > len(br.src) {
		return nil, false, false
	}
	for _, b := range br.src[br.pos : br.pos+n] {
		if out = append(out, b); done(out, size, stop) {
			return out, true, true
		}
	}
	br.pos += n
	return out, false, true
}

// done reports whether out is complete: size bytes, or ending in two stop bytes.
func done(out []byte, size int, stop byte) bool {
	n := len(out)
	return n >= size || n >= 2 && out[n-1] == stop && out[n-2] == stop
}

// dynamic reads a dynamic block's code definitions into hi.lit and hi.dist.
func (hi *headInflater) dynamic(br *bitReader) bool {
	v, ok := br.take(14)
	if !ok {
		return false
	}
	nlen, ndist, ncode := int(v&31)+257, int(v>>5&31)+1, int(v>>10)+4
	if nlen > 286 || ndist > 30 {
		return false
	}
	var clLengths [19]uint8
	for i := range ncode {
		l, ok := br.take(3)
		if !ok {
			return false
		}
		clLengths[clOrder[i]] = uint8(l)
	}
	if !hi.cl.build(clLengths[:], clFastBits, false) {
		return false
	}
	lengths := hi.lengths[:nlen+ndist]
	for i := 0; i < len(lengths); {
		sym, ok := br.decode(&hi.cl)
		if !ok {
			return false
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep uint32
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				return false
			}
			val = lengths[i-1]
			rep, ok = br.take(2)
			rep += 3
		case 17:
			rep, ok = br.take(3)
			rep += 3
		default:
			rep, ok = br.take(7)
			rep += 11
		}
		if !ok || i+int(rep) > len(lengths) {
			return false
		}
		for range rep {
			lengths[i] = val
			i++
		}
	}
	if lengths[256] == 0 {
		return false
	}
	return hi.lit.build(lengths[:nlen], litFastBits, false) && hi.dist.build(lengths[nlen:], distFast, true)
}

// codes decodes one Huffman-coded block; done when the output is complete.
func codes(br *bitReader, lit, dist *huffman, out []byte, size int, stop byte) ([]byte, bool, bool) {
	for {
		sym, ok := br.decode(lit)
		if !ok {
			return nil, false, false
		}
		switch {
		case sym < 256:
			if out = append(out, byte(sym)); done(out, size, stop) {
				return out, true, true
			}
			continue
		case sym == 256:
			return out, false, true
		case sym > 285:
			return nil, false, false
		}
		sym -= 257
		extra, ok := br.take(uint(lengthExtra[sym]))
		if !ok {
			return nil, false, false
		}
		n := int(lengthBase[sym]) + int(extra)
		d, ok := br.decode(dist)
		if !ok || d > 29 {
			return nil, false, false
		}
		extra, ok = br.take(uint(distExtra[d]))
		if !ok {
			return nil, false, false
		}
		back := int(distBase[d]) + int(extra)
		if back > len(out) {
			return nil, false, false
		}
		for range n {
			if out = append(out, out[len(out)-back]); done(out, size, stop) {
				return out, true, true
			}
		}
	}
}
