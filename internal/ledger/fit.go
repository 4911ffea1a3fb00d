package ledger

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// An entry fits a check run's text (fit): whole when it can, else a large
// suite's passing tests are packed: their names, gzipped
// (compress/gzip, the standard library's: no compressor of our own) and
// base64'd into one field, passed_z, so that the entry keeps every test of
// a suite of thousands where the plain JSON would have to cut the passes.
// The passes are the history the progress rule reads ("a test missing from
// the entry did not run").
//
// The MAC covers the packed bytes as written: a reader never re-packs to
// verify, so a newer Go whose gzip writes other bytes still verifies an
// older entry.

// Bounds on what unpacking reads: a packed field is at most the entry's
// size, and a small one must not unfold into a large one.
const (
	maxUnpackedBytes = 16 << 20
	maxPackedTests   = 500_000
)

// pack returns the passing tests of tests, gzipped and base64'd, as a JSON
// array of [suite, name] pairs in canonical order ("" when none pass).
func pack(tests []Test) string {
	var pairs [][2]string
	for _, t := range tests {
		if t.Status == breaker.StatusPass {
			pairs = append(pairs, [2]string{t.Suite, t.Name})
		}
	}
	if len(pairs) == 0 {
		return ""
	}
	raw, _ := json.Marshal(pairs) // strings only: cannot fail
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: cannot fail
	_, _ = zw.Write(raw)                                     // a bytes.Buffer does not fail
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// unpack reads a passed_z field back into passing tests, bounded in bytes
// and in tests; every error names the field.
func unpack(s string) ([]Test, error) {
	z, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("passed_z: not base64: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("passed_z: not gzip: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxUnpackedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("passed_z: %w", err)
	}
	if len(raw) > maxUnpackedBytes {
		return nil, fmt.Errorf("passed_z: unpacks to over %d bytes", maxUnpackedBytes)
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("passed_z: not a list of [suite, name] pairs: %w", err)
	}
	if len(pairs) > maxPackedTests {
		return nil, fmt.Errorf("passed_z: %d tests, over the %d bound", len(pairs), maxPackedTests)
	}
	if len(pairs) == 0 {
		return nil, errors.New("passed_z: packs no test")
	}
	out := make([]Test, len(pairs))
	for i, p := range pairs {
		out[i] = Test{Suite: p[0], Name: p[1], Status: breaker.StatusPass}
	}
	return out, nil
}

// withoutPasses returns the tests that are not passing.
func withoutPasses(tests []Test) []Test {
	out := make([]Test, 0, len(tests))
	for _, t := range tests {
		if t.Status != breaker.StatusPass {
			out = append(out, t)
		}
	}
	return out
}

// fit keeps the canonical JSON under maxEntryBytes: whole if it fits, else
// with the passes packed, else with tests cut (the failing ones kept first).
func fit(e Entry) Entry {
	e.PassedZ = ""
	if len(e.Canonical()) <= maxEntryBytes {
		return e
	}
	if packed, ok := fitPacked(e); ok {
		return packed
	}
	tests := append([]Test(nil), e.Tests...)
	sort.SliceStable(tests, func(i, j int) bool { return e.rank(tests[i]) < e.rank(tests[j]) })
	lo, hi := 0, len(tests)
	for lo < hi { // the most tests that fit
		mid := (lo + hi + 1) / 2
		e.Tests = tests[:mid]
		if len(e.Canonical()) <= maxEntryBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	e.Tests, e.Cut = tests[:lo], e.Cut+len(tests)-lo
	if e.Cut > 0 {
		e.AllTests = false
	}
	return e
}

// fitPacked packs the passes, as many as fit with every other test kept in
// plain: all of them when they fit, else History's first, then the others
// in canonical order, Cut saying how many were left out. It reports false when there is no pass,
// or the other tests alone do not fit.
func fitPacked(e Entry) (Entry, bool) {
	all := e.normal().Tests
	others := withoutPasses(all)
	ranked := e.passesByRank(all)
	passes := len(ranked)
	if passes == 0 {
		return e, false
	}
	try := func(n int) (Entry, bool) {
		c := e
		c.Tests = append(append([]Test(nil), others...), ranked[:n]...)
		c.PassedZ = ""
		if n > 0 {
			c.PassedZ = pack(c.Tests)
		}
		if cut := passes - n; cut > 0 {
			c.Cut, c.AllTests = e.Cut+cut, false
		}
		return c, len(c.Canonical()) <= maxEntryBytes
	}
	whole, ok := try(passes)
	if ok {
		return whole, true
	}
	none, ok := try(0)
	if !ok {
		return e, false
	}
	// The packed size grows about linearly with the passes: start from the
	// share of the room left by the other tests that should fit, then step
	// down until it does (each step packs every kept pass again, so few).
	room, need := maxEntryBytes-len(none.Canonical()), len(whole.PassedZ)
	n := int(float64(passes) * float64(room) / float64(need))
	for n = min(max(n, 0), passes-1); n > 0; n = n * 95 / 100 {
		if c, ok := try(n); ok {
			return c, true
		}
	}
	return try(0)
}

// passesByRank returns the passing tests, those of History first, each
// group in the order given.
func (e Entry) passesByRank(tests []Test) []Test {
	out := make([]Test, 0, len(tests))
	for _, t := range tests {
		if t.Status == breaker.StatusPass {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return e.rank(out[i]) < e.rank(out[j]) })
	return out
}

// rank orders tests for a cut, the first kept first: failures, then tests
// that did not run, then passes of tests that failed before, then passes.
func (e Entry) rank(t Test) int {
	switch t.Status {
	case breaker.StatusFail, breaker.StatusError:
		return 0
	case breaker.StatusAbsent, breaker.StatusSkip:
		return 1
	}
	if e.History[t.FullName()] {
		return 2
	}
	return 3
}
