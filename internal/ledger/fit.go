package ledger

import (
	"sort"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// An entry fits a check run's text (fit): the failing tests and those that
// failed before are a few hundred bytes for most pushes, and a line's
// first entry adds the filter of the tests it ran (known.go), sized to the
// room the rest leaves: ten bits a test when they fit (a suite of 20,000
// in about 33 KB of text), fewer when not, never under minFilterBytes.
// Past the bound, tests are cut: failures first kept, then tests that did
// not run, then passes of tests that failed before, then the rest.

// minFilterBytes is the least room a filter is given before tests are cut.
const minFilterBytes = 8 << 10

// fit keeps the canonical JSON under maxEntryBytes.
func fit(e Entry) Entry {
	if names := e.KnownNames; names != nil {
		e.KnownNames = nil
		e.Known = &Known{Filter: ""}
		room := maxEntryBytes - len(e.Canonical()) - 16
		bits := max(room*3/4-len(filterPrefix)-4, minFilterBytes)
		e.Known = &Known{Filter: NewFilter(names, bits)}
	}
	if len(e.Canonical()) <= maxEntryBytes {
		return e
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
	return e
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
