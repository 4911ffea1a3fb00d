package ledger

import (
	"strconv"
	"testing"
)

// The cost of writing and reading an entry as the suite grows: plain
// (300 tests), packed whole (3,000 and 10,000) and packed with passes cut
// (60,000). Compare within one run: go test -bench . ./internal/ledger/
func BenchmarkEncode(b *testing.B) {
	for _, n := range []int{300, 3_000, 10_000, 60_000} {
		e := entry()
		e.Tests = suite(n)
		e.AllTests = true
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Encode(e, key)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{300, 3_000, 10_000, 60_000} {
		e := entry()
		e.Tests = suite(n)
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
