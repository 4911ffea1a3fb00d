package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/replay"
	"github.com/greenlight-ci/breaker/internal/report"
)

var replayHelp = strings.Replace(replayHelpText, "{policies}", policyList(), 1)

const replayHelpText = `Usage: breaker replay --repo OWNER/NAME [flags]

Replay a repository's past agent pull requests through the breaker, read
only, before installing it: for each pull request created in the window by
a coding agent, read the workflow runs on each pushed head and what they
left (result files in an artifact, else the failing tests the job logs
name, else the conclusion alone), judge every push with the engine and the
policy the Action uses, and report where the breaker would have stopped
the agent and what stopping would have saved.

It needs a read token (GITHUB_TOKEN, else GH_TOKEN: pull requests and
actions, read) and a clone of the repository holding the pull requests'
heads (run it in the clone, or give --git-dir):
  git fetch origin '+refs/pull/*/head:refs/remotes/origin/pull/*'
A head the clone does not have is reported, not judged. GITHUB_API_URL is
honoured (GitHub Enterprise Server).

Flags:
  --repo OWNER/NAME    the repository (required)
  --since DURATION     the window: pull requests created in the last
                       DURATION (30d, 2w, 72h) or since a date
                       (2026-10-01) (default 30d)
  --agents LOGINS      the agents' logins, comma-separated (default: the
                       known coding agents' logins and branch prefixes:
                       Copilot, claude[bot], chatgpt-codex-connector[bot],
                       openhands-agent, devin-ai-integration[bot],
                       cursor[bot]; copilot/, claude/, codex/, devin/,
                       cursor/)
  --workflow FILE      the workflow whose runs are CI, e.g. ci.yml
                       (default: every workflow's runs on the branch)
  --artifacts GLOBS    the artifacts that may hold result files,
                       comma-separated (default "*test*,*result*,*junit*,
                       *report*")
  --results GLOBS      the result files read in such an artifact,
                       comma-separated (default "**/*.xml,**/*.trx,
                       **/*.tap,**/*test*.json")
  --policy NAME        {policies}
  --git-dir DIR        the clone (default ".")
  --budget N           at most N API requests; the window is cut where
                       they run out, and the report says where (default 0:
                       no bound). The report says what the window will cost
                       before its reads start.
  --cache DIR          keep what was read in DIR; a second run reads again
                       only the pull requests updated since
  --format FORMAT      markdown (default; for a job summary: it renders on
                       GitHub, with a chart of trips per week) or json
                       (schema greenlight-replay/v1, docs/replay.md)

Progress goes to stderr: a bar on a terminal, plain lines otherwise (CI).

Exit codes:
  0   the report was printed (even when the budget cut the window)
  1   error: no token, GitHub unreachable, an unreadable clone
  2   usage error
`

func runReplay(ctx context.Context, env *Env, args []string) int {
	fs := newFlags("replay")
	repo := fs.String("repo", "", "")
	since := fs.String("since", "30d", "")
	agents := fs.String("agents", "", "")
	workflow := fs.String("workflow", "", "")
	artifacts := fs.String("artifacts", "", "")
	results := fs.String("results", "", "")
	policy := fs.String("policy", breaker.PolicyGreenlight, "")
	gitDir := fs.String("git-dir", ".", "")
	budget := fs.Int("budget", 0, "")
	cacheDir := fs.String("cache", "", "")
	format := fs.String("format", "markdown", "")
	if code, ok := parseFlags(fs, args, replayHelp, env); !ok {
		return code
	}
	owner, name, found := strings.Cut(*repo, "/")
	now := time.Now().UTC()
	from, err := parseSince(*since, now)
	switch {
	case fs.NArg() > 0:
		return usageError(env, "replay", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case !found || owner == "" || name == "" || strings.Contains(name, "/"):
		return usageError(env, "replay", "--repo must be OWNER/NAME, e.g. --repo acme/shop")
	case err != nil:
		return usageError(env, "replay", err.Error())
	case *format != "markdown" && *format != "json":
		return usageError(env, "replay", fmt.Sprintf("--format %q: want markdown or json", *format))
	case *budget < 0:
		return usageError(env, "replay", "--budget must be 0 (no bound) or more")
	}
	if err := breaker.CheckPolicy(*policy); err != nil {
		return usageError(env, "replay", "--policy: "+err.Error())
	}
	token := env.Getenv("GITHUB_TOKEN")
	if token == "" {
		token = env.Getenv("GH_TOKEN")
	}
	if token == "" {
		fmt.Fprintln(env.Stderr, "breaker replay: no token: set GITHUB_TOKEN (or GH_TOKEN) to a token that may read the repository's pull requests and actions")
		return ExitError
	}
	limit := &ghapi.Budget{Limit: *budget}
	client, err := ghapi.New(ghapi.Config{Token: token, APIURL: env.Getenv("GITHUB_API_URL"), Owner: owner, Repo: name,
		UserAgent: "greenlight-breaker/" + Version, Budget: limit})
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker replay: %v\n", err)
		return ExitError
	}
	p := breaker.DefaultPolicy()
	p.Name = *policy
	opts := replay.Options{Repo: owner + "/" + name, Since: from, Until: now, Agents: list(*agents), Workflow: *workflow,
		Artifacts: list(*artifacts), Results: list(*results), RepoDir: *gitDir, Policy: p, Budget: *budget, Requests: limit.Used, CacheDir: *cacheDir,
		Progress: progressTo(env)}
	rep, err := replay.Run(ctx, client, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker replay: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	if *format == "json" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			fmt.Fprintf(env.Stderr, "breaker replay: %v\n", err)
			return ExitError
		}
		env.Stdout.Write(append(data, '\n'))
	} else {
		io.WriteString(env.Stdout, report.DefuseCommands(replay.Markdown(rep)))
	}
	if rep.Cut != "" {
		fmt.Fprintf(env.Stderr, "breaker replay: %s\n", report.SafeLine(rep.Cut))
	}
	return ExitClosed
}

// parseSince reads --since: a duration back from now (30d, 2w, 72h) or a
// date (2026-10-01).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.UTC(), nil
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		if k, err := strconv.Atoi(s[:n-1]); err == nil && k > 0 && k <= 3660 {
			days := k
			if s[n-1] == 'w' {
				days *= 7
			}
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (30d, 2w, 72h) or a date (2026-10-01)", s)
}

func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// progressTo reports a replay's progress on stderr: a bar redrawn in place
// on a terminal, a plain line a step otherwise (CI logs keep every line).
func progressTo(env *Env) func(replay.Progress) {
	f, ok := env.Stderr.(*os.File)
	tty := false
	if ok && env.Getenv("CI") == "" {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	last := ""
	return func(p replay.Progress) {
		switch {
		case tty && p.Total > 0:
			const width = 30
			done := min(p.Done*width/p.Total, width)
			fmt.Fprintf(env.Stderr, "\r%-8s [%s%s] %d/%d ", p.Phase, strings.Repeat("#", done), strings.Repeat(".", width-done), p.Done, p.Total)
			if p.Done == p.Total {
				fmt.Fprintln(env.Stderr)
			}
		case p.Line != "" && p.Line != last:
			fmt.Fprintf(env.Stderr, "breaker replay: %s: %s\n", p.Phase, report.SafeLine(p.Line))
			last = p.Line
		}
	}
}
