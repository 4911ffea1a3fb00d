package ledger

import (
	"strconv"
	"testing"
)

// The cost of writing and reading a line's first entry as the suite grows:
// the failing tests (one in 500) and the filter of every test's name.
// Compare within one run: go test -bench . ./internal/ledger/
func BenchmarkEncode(b *testing.B) {
	for _, n := range []int{300, 3_000, 20_000, 60_000} {
		e := entry()
		e.Tests, e.KnownNames = failingOf(suite(n))
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Encode(e, key)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{300, 3_000, 20_000, 60_000} {
		e := entry()
		e.Tests, e.KnownNames = failingOf(suite(n))
		text, _ := Encode(e, key)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// failingOf splits a suite as the writer does: the failing tests, kept in
// the entry, and every test's name, for the filter.
func failingOf(tests []Test) (failing []Test, names []string) {
	for _, t := range tests {
		names = append(names, t.FullName())
		if t.Status.Failed() {
			failing = append(failing, t)
		}
	}
	return failing, names
}
