package trailer

import (
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	randomSeed  = flag.Uint64("trailer.seed", 1, "seed of the messages TestParse_RandomAgainstGit generates")
	randomCount = flag.Int("trailer.count", 1500, "how many messages TestParse_RandomAgainstGit checks against git")
)

// TestParse_AgainstGit checks the hand-written cases against git itself.
func TestParse_AgainstGit(t *testing.T) {
	t.Parallel()
	var msgs []string
	for _, tc := range parseCases {
		msgs = append(msgs, tc.msg)
	}
	fromGit := gitParse(t, msgs)
	for i, tc := range parseCases {
		if diff := cmp.Diff(fromGit[i], pairs(Parse(tc.msg))); diff != "" {
			t.Errorf("%s: Parse(%q) disagrees with git (-git +ours):\n%s", tc.name, tc.msg, diff)
		}
	}
}

// TestParse_RandomAgainstGit checks generated messages against git: one
// repository, one fast-import and one git log for the whole batch.
func TestParse_RandomAgainstGit(t *testing.T) {
	t.Parallel()
	r := newRand(*randomSeed)
	msgs := make([]string, *randomCount)
	for i := range msgs {
		if i%3 == 2 {
			msgs[i] = genNoise(r)
			continue
		}
		msgs[i] = genMessage(r)
	}
	fromGit := gitParse(t, msgs)
	withTrailers, failures := 0, 0
	for i, msg := range msgs {
		if len(fromGit[i]) > 0 {
			withTrailers++
		}
		if diff := cmp.Diff(fromGit[i], pairs(Parse(msg))); diff != "" {
			failures++
			if failures <= 10 {
				t.Errorf("message %d: Parse(%q) disagrees with git (-git +ours):\n%s", i, msg, diff)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d generated messages disagree with git (seed %d)", failures, len(msgs), *randomSeed)
	}
	// The generator must exercise both outcomes, or the check proves little.
	if withTrailers < len(msgs)/10 || withTrailers > len(msgs)*9/10 {
		t.Errorf("%d of %d generated messages have trailers: the generator is lopsided", withTrailers, len(msgs))
	}
	t.Logf("%d generated messages agree with git, %d with trailers", len(msgs)-failures, withTrailers)
}

// TestGitParse_ReadsEveryRecord guards the oracle itself: a wrong split of
// git's output would make every comparison meaningless.
func TestGitParse_ReadsEveryRecord(t *testing.T) {
	t.Parallel()
	msgs := []string{"s\n\nA: 1\nB: 2: 3\n", "no trailers\n", "s\n\nC:\n"}
	got := gitParse(t, msgs)
	want := [][][2]string{{{"A", "1"}, {"B", "2: 3"}}, {}, {{"C", ""}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gitParse mismatch (-want +got):\n%s", diff)
	}
}
