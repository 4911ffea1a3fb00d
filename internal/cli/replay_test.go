package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/replay"
)

func TestReplay_UsageErrorsNameTheFlagAndTheFix(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GITHUB_TOKEN": "t0ken-for-the-test"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--repo must be OWNER/NAME"},
		{[]string{"--repo", "acme"}, "--repo must be OWNER/NAME"},
		{[]string{"--repo", "acme/shop", "--since", "last tuesday"}, `--since "last tuesday": want a duration (30d, 2w, 72h) or a date`},
		{[]string{"--repo", "acme/shop", "--format", "html"}, `--format "html": want markdown or json`},
		{[]string{"--repo", "acme/shop", "--budget", "-1"}, "--budget must be 0"},
		{[]string{"--repo", "acme/shop", "--policy", "yolo"}, "--policy"},
		{[]string{"--repo", "acme/shop", "extra"}, `unexpected argument "extra"`},
	} {
		_, stderr, code := runCLIEnv(t, env, "", append([]string{"replay"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("replay %q: exit %d, stderr %q; want 2 and one line naming %q", c.args, code, stderr, c.want)
		}
	}
	_, stderr, code := runCLIEnv(t, nil, "", "replay", "--repo", "acme/shop")
	if code != ExitError || !strings.Contains(stderr, "no token: set GITHUB_TOKEN") {
		t.Errorf("replay without a token: exit %d, stderr %q", code, stderr)
	}
}

// A window without agent pull requests: the JSON report says so, in its
// schema, and the progress lines go to stderr as plain lines. It cost the
// listing: a page of pull requests and, for each known agent, the runs its
// pushes made.
func TestReplay_EmptyWindowJSON(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t, ghfake.WithToken("t0ken-for-the-test"))
	env := map[string]string{"GITHUB_TOKEN": "t0ken-for-the-test", "GITHUB_API_URL": srv.URL(), "CI": "true"}
	stdout, stderr, code := runCLIEnv(t, env, "", "replay", "--repo", srv.Owner()+"/"+srv.Repo(), "--format", "json", "--git-dir", t.TempDir())
	if code != ExitClosed {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var rep struct {
		Schema       string `json:"schema"`
		PullRequests []any  `json:"pull_requests"`
		Requests     int    `json:"requests"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Schema != "greenlight-replay/v1" || len(rep.PullRequests) != 0 || rep.Requests != 1+len(replay.KnownAgents) {
		t.Errorf("report %+v (%v):\n%s", rep, err, stdout)
	}
	if !strings.Contains(stderr, "breaker replay: list: 0 agent pull requests of 0 created since") {
		t.Errorf("stderr: %q", stderr)
	}
}

// stats shares replay's window flags and their errors, and reads an empty
// window to a report in its own schema.
func TestStats_UsageAndEmptyWindow(t *testing.T) {
	t.Parallel()
	_, stderr, code := runCLIEnv(t, map[string]string{"GITHUB_TOKEN": "x"}, "", "stats", "--repo", "acme/shop", "--since", "soon")
	if code != ExitUsage || !strings.Contains(stderr, "breaker stats: --since \"soon\"") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	srv := ghfake.New(t, ghfake.WithToken("t0ken-for-the-test"))
	env := map[string]string{"GITHUB_TOKEN": "t0ken-for-the-test", "GITHUB_API_URL": srv.URL(), "CI": "true"}
	stdout, stderr, code := runCLIEnv(t, env, "", "stats", "--repo", srv.Owner()+"/"+srv.Repo())
	if code != ExitClosed || !strings.Contains(stdout, "## Circuit breaker stats: Codertocat/Hello-World") || !strings.Contains(stdout, "0 observed by the breaker") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	stdout, _, _ = runCLIEnv(t, env, "", "stats", "--repo", srv.Owner()+"/"+srv.Repo(), "--format", "json")
	var st struct {
		Schema  string `json:"schema"`
		ByAgent []any  `json:"by_agent"`
		Errors  []any  `json:"errors"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.Schema != "greenlight-stats/v1" || st.ByAgent == nil || st.Errors == nil {
		t.Errorf("%+v (%v): empty lists must be [] not null:\n%s", st, err, stdout)
	}
}
