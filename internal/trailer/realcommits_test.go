package trailer

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// realCommitsPath holds 6,000 real commit messages with git's own parse of
// their trailers (`git log --format=%(trailers:only,unfold)`).
const realCommitsPath = "../../../shared/fixtures/trailers/real-commits.jsonl"

type realCommit struct {
	SHA      string      `json:"sha"`
	Message  string      `json:"message"`
	Trailers [][2]string `json:"trailers"`
}

// loadRealCommits reads the fixture, skipping the test when it is absent.
func loadRealCommits(tb testing.TB) []realCommit {
	tb.Helper()
	f, err := os.Open(realCommitsPath)
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("corpus: %s not found (the ../shared corpus beside the repository)", realCommitsPath)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var commits []realCommit
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c realCommit
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s line %d: %v", realCommitsPath, len(commits)+1, err)
		}
		commits = append(commits, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return commits
}

// pairs renders trailers as the fixture does: [key, value] pairs, never nil.
func pairs(ts []breaker.Trailer) [][2]string {
	out := [][2]string{}
	for _, t := range ts {
		out = append(out, [2]string{t.Key, t.Value})
	}
	return out
}

func TestParse_RealCommits(t *testing.T) {
	t.Parallel()
	commits := loadRealCommits(t)
	if got, want := len(commits), 6000; got < want {
		t.Fatalf("fixture has %d commits, want at least %d", got, want)
	}
	agree, withTrailers := 0, 0
	for i, c := range commits {
		want := c.Trailers
		if want == nil {
			want = [][2]string{}
		}
		if len(want) > 0 {
			withTrailers++
		}
		if diff := cmp.Diff(want, pairs(Parse(c.Message))); diff != "" {
			t.Errorf("line %d (%s): Parse mismatch (-git +ours):\n%s\nmessage: %q", i+1, c.SHA, diff, c.Message)
			continue
		}
		agree++
	}
	t.Logf("agreement with git: %d/%d messages (%d with trailers)", agree, len(commits), withTrailers)
}

func BenchmarkParse_RealCommits(b *testing.B) {
	commits := loadRealCommits(b)
	var size int64
	for _, c := range commits {
		size += int64(len(c.Message))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range commits {
			Parse(c.Message)
		}
	}
}
