package ghfake

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// The descriptions the contract checks against are installed: always in
// CI (.ci/run installs them), and a local run says how to install them.
func TestContract_DescriptionsPresent(t *testing.T) {
	t.Parallel()
	if err := ContractAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the contract cannot be checked in CI: %v", err)
		}
		t.Skipf("%v", err)
	}
}

// The contract fails on what GitHub's descriptions refuse: a request body
// GitHub would reject, a path GitHub does not have, an answer GitHub never
// gives; and it passes what GitHub accepts.
func TestContract_RefusesWhatGitHubRefuses(t *testing.T) {
	t.Parallel()
	if err := ContractAvailable(); err != nil {
		t.Skipf("%v", err)
	}
	const repo = "/repos/Codertocat/Hello-World"
	sha := strings.Repeat("a", 40)
	ok := func(x exchange) exchange {
		if x.status == 0 {
			x.status = http.StatusCreated
		}
		x.header = http.Header{"Content-Type": {"application/json"}}
		return x
	}
	for _, tc := range []struct {
		name string
		x    exchange
		want string // "" = accepted
	}{
		{"a check run as GitHub takes it", ok(exchange{Call: Call{Method: "POST", Path: repo + "/check-runs",
			Body: `{"name":"greenlight-breaker","head_sha":"` + sha + `","status":"completed","conclusion":"failure","output":{"title":"t","summary":"s"}}`}}), "request"},
		{"a conclusion GitHub does not know", exchange{Call: Call{Method: "POST", Path: repo + "/check-runs",
			Body: `{"name":"greenlight-breaker","head_sha":"` + sha + `","status":"completed","conclusion":"tripped"}`}}, "refused"},
		{"a check run without its name", exchange{Call: Call{Method: "POST", Path: repo + "/check-runs",
			Body: `{"head_sha":"` + sha + `"}`}}, "refused"},
		{"a comment body that is a number", exchange{Call: Call{Method: "POST", Path: repo + "/issues/7/comments", Body: `{"body":42}`}}, "refused"},
		{"a path GitHub does not have", exchange{Call: Call{Method: "GET", Path: repo + "/breaker/state"}}, "no such operation"},
		{"an answer missing what GitHub always sends", ok(exchange{Call: Call{Method: "POST", Path: repo + "/issues/7/comments", Body: `{"body":"hi"}`},
			response: []byte(`{"id":1,"body":"hi"}`)}), "not GitHub's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkExchange(tc.x)
			switch {
			case tc.want == "request" && err != nil && strings.Contains(err.Error(), "request"):
				t.Fatalf("a valid request is refused: %v", err)
			case tc.want != "request" && tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("checkExchange = %v; want an error saying %q", err, tc.want)
			}
		})
	}
}
