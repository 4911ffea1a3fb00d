package action_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/cli"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// Rate limits on the comment are waited out for as long as GitHub asks
// (the client's sleep is injected), then the comment is written.
func TestAction_RateLimitIsWaitedOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		header map[string]string
		want   time.Duration
	}{
		{"secondary limit, Retry-After", 429, map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"primary limit, reset time", 403, map[string]string{"X-RateLimit-Remaining": "0",
			"X-RateLimit-Reset": strconv.FormatInt(actionNow.Add(20*time.Second).Unix(), 10)}, 21 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newActionHarness(t)
			_, head := h.spiral(3)
			h.openPR(head)
			h.srv.FailNext("POST", "/repos/*/*/issues/*/comments", tt.status, tt.header)

			res := h.run("push", pushEvent(t, "agent/S-3", head))
			if res.code != cli.ExitTripped {
				t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitTripped, res.stdout)
			}
			if waits := h.waits(); !slices.Contains(waits, tt.want) {
				t.Errorf("waits = %v, want the %v GitHub asked for", waits, tt.want)
			}
			if got := h.countCalls("POST", "/issues/7/comments"); got != 2 {
				t.Errorf("comment requests = %d, want 2 (limited, then retried)", got)
			}
			if got := h.comments(7); len(got) != 1 {
				t.Errorf("comments = %d, want 1 after the retry", len(got))
			}
			if !strings.Contains(res.summary, "create the breaker comment on #\u200d7: done") {
				t.Errorf("step summary does not report the comment as done:\n%s", res.summary)
			}
		})
	}
}

// A token that may not comment (a fork pull request's GITHUB_TOKEN) loses
// the comment, never the verdict: the summary, the outputs and exit 42.
func TestAction_ForbiddenCommentKeepsVerdict(t *testing.T) {
	t.Parallel()
	h := newActionHarness(t)
	_, head := h.spiral(3)
	h.openPR(head)
	h.srv.Fail(ghfake.Failure{Method: "POST", Path: "/repos/*/*/issues/*/comments", Status: 403, Times: 5})

	res := h.run("push", pushEvent(t, "agent/S-3", head))
	if res.code != cli.ExitTripped {
		t.Fatalf("exit = %d, want %d\n%s", res.code, cli.ExitTripped, res.stdout)
	}
	if got := h.comments(7); len(got) != 0 {
		t.Errorf("comments = %+v, want none", got)
	}
	if got := h.countCalls("POST", "/issues/7/comments"); got != 1 {
		t.Errorf("comment requests = %d, want 1: a plain 403 is not retried", got)
	}
	for _, want := range []string{"## Stopped: ", testDup, "could not create the breaker comment on #\u200d7"} {
		if !strings.Contains(res.summary, want) {
			t.Errorf("step summary lacks %q:\n%s", want, res.summary)
		}
	}
	if res.outputs["tripped"] != "true" {
		t.Errorf("output tripped = %q, want true", res.outputs["tripped"])
	}
	if _, ok := h.srv.Ref("tags/greenlight/checkpoint/S-3"); !ok {
		t.Errorf("checkpoint not created: only the comment was forbidden")
	}
}
