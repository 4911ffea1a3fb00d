package ledger

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
)

// Which tests a line of work has run, without a list of them (DESIGN §6,
// docs/ledger.md). The progress rule asks one thing of a test's passes:
// did the test run, and pass, at the pushes before it first failed (a
// test the agent breaks and then mends has not made progress; a new test
// made to pass has). An entry that kept every pass answered it at 50 KB
// an entry for a suite of 20,000; a run that read a thousand of them spent
// a minute and gigabytes. So the first entry of a line of work carries a
// filter of every test name it ran (a Bloom filter: about ten bits a test,
// a test that ran is always found, one that did not is found about once in
// a hundred), and each later entry names only the tests its run had that
// no filter or earlier entry knew (Known.Added). A reader asks the filter
// only about the tests that failed somewhere in the line: a few, however
// large the suite.
//
// A false "known" makes a new test's first pass no progress: the breaker
// errs towards counting, never towards letting a spiral through. The
// filter is written by the breaker and covered by the MAC; the agent
// chooses test names, which only decide where in the filter bits fall.
//
// The Bloom filter is ours (forty lines over hash/fnv): the well-kept Go
// implementations hash with functions whose output their own next release
// may change, and an entry must read the same bytes the same way for as
// long as the ledger lives.

// Known is what an entry says about the tests its line of work has run.
type Known struct {
	// Filter holds every test its run had: "bloom1:<hashes>:<base64 bits>".
	// Written by the first entry of a line, and again when a run has more
	// new tests than Added may hold.
	Filter string `json:"filter,omitempty"`
	// Added are the full names of tests this run had that no earlier
	// entry of the line knew, sorted.
	Added []string `json:"added,omitempty"`
}

// Bounds on what a Known holds and what a reader accepts.
const (
	// MaxAdded is the most names Added holds; past it the run writes a
	// new filter instead.
	MaxAdded = 200
	// MaxAddedBytes bounds Added's names together, for the same reason.
	MaxAddedBytes = 8 << 10
	// maxFilterBytes bounds a filter's bits: 48 KiB (about 390,000 tests at
	// ten bits, far fewer than fit the entry anyway).
	maxFilterBytes = 48 << 10
	filterPrefix   = "bloom1:"
	bitsPerTest    = 10
)

// Filter is a decoded test-name filter.
type Filter struct {
	hashes int
	bits   []byte
}

// hashPair is a name's two 64-bit hashes, from which every probe is
// derived (double hashing): FNV-1a of the name and of the name after a
// zero byte.
func hashPair(name string) (uint64, uint64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name)) // hash.Hash never fails
	a := h.Sum64()
	_, _ = h.Write([]byte{0})
	b := h.Sum64() | 1 // odd: every probe lands elsewhere
	return a, b
}

// NewFilter builds the filter of names in at most maxBytes bytes of bits:
// ten bits a name when they fit, fewer (more false "known", never a miss)
// when not.
func NewFilter(names []string, maxBytes int) string {
	n := max(len(names), 1)
	size := min((n*bitsPerTest+7)/8, maxBytes, maxFilterBytes)
	size = max(size, 8)
	hashes := int(math.Round(float64(size*8) / float64(n) * math.Ln2))
	hashes = min(max(hashes, 1), 16)
	f := Filter{hashes: hashes, bits: make([]byte, size)}
	for _, name := range names {
		f.add(name)
	}
	return filterPrefix + strconv.Itoa(hashes) + ":" + base64.StdEncoding.EncodeToString(f.bits)
}

// FilterSize is the length of NewFilter's text for n names in at most
// maxBytes bytes of bits.
func FilterSize(n, maxBytes int) int {
	size := max(min((max(n, 1)*bitsPerTest+7)/8, maxBytes, maxFilterBytes), 8)
	return len(filterPrefix) + 3 + base64.StdEncoding.EncodedLen(size)
}

// ParseFilter reads a filter's text, bounded; the error names the field.
func ParseFilter(s string) (Filter, error) {
	rest, ok := strings.CutPrefix(s, filterPrefix)
	if !ok {
		return Filter{}, fmt.Errorf("known.filter: not a %s filter", strings.TrimSuffix(filterPrefix, ":"))
	}
	k, bits, ok := strings.Cut(rest, ":")
	hashes, err := strconv.Atoi(k)
	if !ok || err != nil || hashes < 1 || hashes > 16 {
		return Filter{}, fmt.Errorf("known.filter: hash count %q is not 1 to 16", k)
	}
	if base64.StdEncoding.DecodedLen(len(bits)) > maxFilterBytes+3 {
		return Filter{}, fmt.Errorf("known.filter: over %d bytes", maxFilterBytes)
	}
	raw, err := base64.StdEncoding.DecodeString(bits)
	if err != nil {
		return Filter{}, fmt.Errorf("known.filter: not base64: %w", err)
	}
	if len(raw) < 8 {
		return Filter{}, fmt.Errorf("known.filter: %d bytes, under 8", len(raw))
	}
	return Filter{hashes: hashes, bits: raw}, nil
}

func (f Filter) add(name string) {
	a, b := hashPair(name)
	m := uint64(len(f.bits)) * 8
	for i := range uint64(f.hashes) {
		p := (a + i*b) % m
		f.bits[p/8] |= 1 << (p % 8)
	}
}

// Has reports whether name may be in the filter: always true for a name
// that was added.
func (f Filter) Has(name string) bool {
	if len(f.bits) == 0 {
		return false
	}
	a, b := hashPair(name)
	m := uint64(len(f.bits)) * 8
	for i := range uint64(f.hashes) {
		p := (a + i*b) % m
		if f.bits[p/8]&(1<<(p%8)) == 0 {
			return false
		}
	}
	return true
}

// check validates a decoded Known: its filter reads, Added is bounded and
// sorted without repeats.
func (k *Known) check() error {
	if k == nil {
		return nil
	}
	if k.Filter != "" {
		if _, err := ParseFilter(k.Filter); err != nil {
			return err
		}
	}
	if len(k.Added) > MaxAdded {
		return fmt.Errorf("known.added: %d names, over the %d bound", len(k.Added), MaxAdded)
	}
	size := 0
	for i, n := range k.Added {
		size += len(n)
		if n == "" || (i > 0 && k.Added[i-1] >= n) {
			return fmt.Errorf("known.added: not sorted names without repeats at %d", i)
		}
	}
	if size > MaxAddedBytes {
		return fmt.Errorf("known.added: %d bytes of names, over %d", size, MaxAddedBytes)
	}
	return nil
}
