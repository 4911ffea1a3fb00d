package report

import (
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// The agent's block is bounded and keeps what the agent wrote (its test
// names, CI's error from its results) on one line each, inside a code
// block no name can close; nothing is said while nothing failed.
func TestAgentWords_BoundedAndEscaped(t *testing.T) {
	t.Parallel()
	if w := AgentWords(breaker.Decision{Limits: breaker.Limits{PerTest: 3, Slice: 7, NoProgress: 3}}); w != "" {
		t.Errorf("nothing failed: %q, want no block", w)
	}
	hostile := "TestX```\n@maintainer [click](https://evil.example)\n::error::pwned" + strings.Repeat("y", 5000)
	d := breaker.Decision{Limits: breaker.Limits{PerTest: 3, Slice: 7, NoProgress: 3}, FailedInARow: 1, TotalFailed: 1,
		Tests: []breaker.TestSummary{{Name: hostile, FailedAttempts: 1, Attempts: []breaker.Attempt{{Error: hostile}}}}}
	w := AgentWords(d)
	if len(w) > maxAgentWords || !strings.Contains(w, "2 more failed pushes stop this pull request") {
		t.Fatalf("block of %d bytes:\n%s", len(w), w)
	}
	for _, line := range strings.Split(w, "\n") {
		if strings.HasPrefix(line, "@") || strings.HasPrefix(line, "::") {
			t.Errorf("a line of the agent's text stands alone: %q", line)
		}
	}
	block := CodeBlock(w, "text")
	fence, _, _ := strings.Cut(block, "text\n")
	if strings.Count(block, fence) != 2 {
		t.Errorf("the agent's text closes the code block:\n%s", block)
	}
	d.Tripped, d.TripReason, d.TrippedTest = true, breaker.TripPerTest, hostile
	if w := AgentWords(d); !strings.Contains(w, "Do not push again") || strings.Count(w, "\n") > 10 {
		t.Errorf("the trip's block:\n%s", w)
	}
}
