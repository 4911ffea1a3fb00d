package ledger

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// A large suite's passing tests are packed: their names, gzipped
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
