package trailer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// gitParse is git's own answer for each message: it commits every message
// into one fresh repository with a single `git fast-import` (which stores the
// message bytes as given), then reads all trailers back with a single
// `git log --format=%(trailers:only,unfold)`. It skips the test when git is
// not installed.
func gitParse(t *testing.T, msgs []string) [][][2]string {
	t.Helper()
	repo := gitrepo.Init(t) // skips the differential test without git
	repo.GitRaw(fastImportStream(msgs), "fast-import", "--quiet")
	out := repo.GitRaw(nil, "log", "-z", "--reverse", "--format=%(trailers:only,unfold)", "refs/heads/oracle")
	records := strings.Split(string(out), "\x00")
	if len(records) > 0 && records[len(records)-1] == "" {
		records = records[:len(records)-1]
	}
	if len(records) != len(msgs) {
		t.Fatalf("git log gave %d records for %d messages", len(records), len(msgs))
	}
	got := make([][][2]string, len(records))
	for i, r := range records {
		got[i] = parseGitOutput(t, r)
	}
	return got
}

// fastImportStream is a fast-import stream of one commit per message, each on
// top of the previous one on refs/heads/oracle, all with the empty tree.
func fastImportStream(msgs []string) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		fmt.Fprintf(&b, "commit refs/heads/oracle\ncommitter O <o@example.com> 0 +0000\ndata %d\n%s\n", len(m), m)
	}
	b.WriteString("done\n")
	return b.Bytes()
}

// parseGitOutput splits git's "Key: value" lines into pairs. A key never
// holds a ':' and a value never holds a newline, so the split is exact.
func parseGitOutput(t *testing.T, record string) [][2]string {
	t.Helper()
	out := [][2]string{}
	for _, line := range strings.SplitAfter(record, "\n") {
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ": ")
		if !ok {
			t.Fatalf("unexpected git trailer line %q", line)
		}
		out = append(out, [2]string{key, value})
	}
	return out
}
