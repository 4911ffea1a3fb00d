package testresult_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// BenchmarkReadJobLog reads a 16 MiB job log (the most replay keeps of
// one): go test -v over 100,000 tests, with GitHub's timestamps.
func BenchmarkReadJobLog(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 16<<20; i++ {
		fmt.Fprintf(&sb, "2026-11-25T10:00:01.1234567Z === RUN   TestCase%d\n", i)
		if i%50 == 0 {
			fmt.Fprintf(&sb, "2026-11-25T10:00:01.1234567Z     case_test.go:12: got %d, want %d\n", i, i+1)
			fmt.Fprintf(&sb, "2026-11-25T10:00:01.1234567Z --- FAIL: TestCase%d (0.00s)\n", i)
		} else {
			fmt.Fprintf(&sb, "2026-11-25T10:00:01.1234567Z --- PASS: TestCase%d (0.00s)\n", i)
		}
	}
	sb.WriteString("2026-11-25T10:00:02.0000000Z FAIL\texample.com/big\t9.001s\n")
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if l := testresult.ReadJobLog(data); len(l.Tests) == 0 {
			b.Fatal("no tests read")
		}
	}
}

// BenchmarkReadJobLogNoTests reads 16 MiB of a build's chatter: no line
// any runner wrote, so every reader looks at every line.
func BenchmarkReadJobLogNoTests(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 16<<20; i++ {
		fmt.Fprintf(&sb, "2026-11-25T10:00:01.1234567Z   compiling module %d of the workspace: ok (cached), 3 warnings\n", i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		testresult.ReadJobLog(data)
	}
}
