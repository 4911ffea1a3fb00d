package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/replay"
	"github.com/greenlight-ci/breaker/internal/report"
)

var replayHelp = strings.Replace(replayHelpText, "{policies}", policyList(), 1)

const statsHelp = `Usage: breaker stats --repo OWNER/NAME [flags]

Sum up the breaker's own ledger across a window's pull requests, once it is
installed: the pull requests it observed, by agent; trips by reason, with a
chart of trips per week; how long trips waited for a maintainer's reset;
pushes to green; the errors that trip most, the same error across pull
requests as one row; and the CI minutes spent on pushes that made no
progress (the pushes the breaker counted as failed).

It needs a read token (GITHUB_TOKEN, else GH_TOKEN: pull requests, checks
and actions, read). GITHUB_API_URL and GITHUB_GRAPHQL_URL are honoured
(GitHub Enterprise Server). No clone is needed.

Flags:
  --repo OWNER/NAME       the repository (required)
  --since DURATION        the window: pull requests created in the last
                          DURATION (30d, 2w, 72h) or since a date
                          (2026-10-01) (default 30d)
  --agents LOGINS         only these authors' pull requests,
                          comma-separated (default: every author)
  --workflow FILE         the workflow whose runs' minutes are counted,
                          e.g. ci.yml (default: every workflow's)
  --check-name NAME       the breaker's check run name (default
                          "greenlight-breaker")
  --app-id ID             the breaker's GitHub App id (default: the GitHub
                          Actions app, which GITHUB_TOKEN writes as)
  --ledger-key-file FILE  verify each entry's MAC with the ledger key; an
                          entry that does not verify is left out and named
  --budget N              at most N API requests; the window is cut where
                          they run out, and the report says where (default
                          0: no bound)
  --cache DIR             keep what was read in DIR; a second run reads
                          again only the pull requests updated since
  --format FORMAT         markdown (default; renders on GitHub, with a
                          chart of trips per week) or json (schema
                          greenlight-stats/v1, docs/replay.md)

Progress goes to stderr: a bar on a terminal, plain lines otherwise (CI).

Exit codes:
  0   the report was printed (even when the budget cut the window)
  1   error: no token, GitHub unreachable, an unreadable ledger
  2   usage error
`

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
A head the clone does not have (force-pushed away) is fetched from its
origin by its id, as GitHub still serves it; one origin does not serve gets
no verdict, but its run's failures still count for the pushes after it. A
maintainer's /breaker reset comment resets the counts where the Action
would have. GITHUB_API_URL is honoured (GitHub Enterprise Server).

Flags:
  --repo OWNER/NAME    the repository (required)
  --since DURATION     the window: pull requests created in the last
                       DURATION (30d, 2w, 72h) or since a date
                       (2026-10-01) (default 30d)
  --agents LOGINS      the agents' logins, comma-separated: the pull
                       requests they opened or pushed to (default: the
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

// windowFlags are the flags replay and stats share: the repository, the
// window, who, the budget, the cache and the format.
type windowFlags struct {
	cmd                           string
	repo, since, agents, workflow *string
	budget                        *int
	cacheDir, format              *string
}

func newWindowFlags(cmd string) (*windowFlags, *flag.FlagSet) {
	fs := newFlags(cmd)
	return &windowFlags{cmd: cmd, repo: fs.String("repo", "", ""), since: fs.String("since", "30d", ""), agents: fs.String("agents", "", ""),
		workflow: fs.String("workflow", "", ""), budget: fs.Int("budget", 0, ""), cacheDir: fs.String("cache", "", ""),
		format: fs.String("format", "markdown", "")}, fs
}

// open checks the flags (a usage error is exit 2), reads the token and
// makes the client with the budget; ok is false with the exit code when
// the command must stop.
func (f *windowFlags) open(env *Env, fs *flag.FlagSet) (o replay.Options, client *ghapi.Client, code int, ok bool) {
	owner, name, found := strings.Cut(*f.repo, "/")
	now := time.Now().UTC()
	from, err := replay.ParseSince(*f.since, now)
	switch {
	case fs.NArg() > 0:
		return o, nil, usageError(env, f.cmd, fmt.Sprintf("unexpected argument %q", fs.Arg(0))), false
	case !found || owner == "" || name == "" || strings.Contains(name, "/"):
		return o, nil, usageError(env, f.cmd, "--repo must be OWNER/NAME, e.g. --repo acme/shop"), false
	case err != nil:
		return o, nil, usageError(env, f.cmd, err.Error()), false
	case *f.format != "markdown" && *f.format != "json":
		return o, nil, usageError(env, f.cmd, fmt.Sprintf("--format %q: want markdown or json", *f.format)), false
	case *f.budget < 0:
		return o, nil, usageError(env, f.cmd, "--budget must be 0 (no bound) or more"), false
	}
	token := tokenOf(env)
	if token == "" {
		fmt.Fprintf(env.Stderr, "breaker %s: no token: set GITHUB_TOKEN (or GH_TOKEN) to a token that may read the repository's pull requests, checks and actions\n", f.cmd)
		return o, nil, ExitError, false
	}
	limit := &ghapi.Budget{Limit: *f.budget}
	client, err = ghapi.New(ghapi.Config{Token: token, APIURL: env.Getenv("GITHUB_API_URL"), GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"),
		Owner: owner, Repo: name, UserAgent: "greenlight-breaker/" + Version, Budget: limit})
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker %s: %v\n", f.cmd, err)
		return o, nil, ExitError, false
	}
	o = replay.Options{Repo: owner + "/" + name, Since: from, Until: now, Agents: list(*f.agents), Workflow: *f.workflow,
		Budget: *f.budget, Requests: limit.Used, CacheDir: *f.cacheDir, Progress: progressTo(env, f.cmd), Policy: breaker.DefaultPolicy()}
	return o, client, 0, true
}

// print writes the report as --format says, and the cut on stderr.
func (f *windowFlags) print(env *Env, v any, markdown, cut string) int {
	if *f.format == "json" {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			fmt.Fprintf(env.Stderr, "breaker %s: %v\n", f.cmd, err)
			return ExitError
		}
		env.Stdout.Write(append(data, '\n'))
	} else {
		io.WriteString(env.Stdout, report.DefuseCommands(markdown))
	}
	if cut != "" {
		fmt.Fprintf(env.Stderr, "breaker %s: %s\n", f.cmd, report.SafeLine(cut))
	}
	return ExitClosed
}

func runReplay(ctx context.Context, env *Env, args []string) int {
	f, fs := newWindowFlags("replay")
	artifacts := fs.String("artifacts", "", "")
	results := fs.String("results", "", "")
	policy := fs.String("policy", breaker.PolicyGreenlight, "")
	gitDir := fs.String("git-dir", ".", "")
	if code, ok := parseFlags(fs, args, replayHelp, env); !ok {
		return code
	}
	if err := breaker.CheckPolicy(*policy); err != nil {
		return usageError(env, "replay", "--policy: "+err.Error())
	}
	o, client, code, ok := f.open(env, fs)
	if !ok {
		return code
	}
	o.Policy.Name = *policy
	o.Artifacts, o.Results, o.RepoDir = list(*artifacts), list(*results), *gitDir
	rep, err := replay.Run(ctx, client, o)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker replay: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	return f.print(env, rep, replay.Markdown(rep), rep.Cut)
}

func runStats(ctx context.Context, env *Env, args []string) int {
	f, fs := newWindowFlags("stats")
	checkName := fs.String("check-name", actionenv.DefaultCheckName, "")
	appID := fs.Int64("app-id", 0, "")
	keyFile := fs.String("ledger-key-file", "", "")
	if code, ok := parseFlags(fs, args, statsHelp, env); !ok {
		return code
	}
	o, client, code, ok := f.open(env, fs)
	if !ok {
		return code
	}
	var key []byte
	if *keyFile != "" {
		var err error
		if key, err = evaluate.ReadKeyFile(*keyFile); err != nil {
			fmt.Fprintf(env.Stderr, "breaker stats: %s\n", report.SafeLine(err.Error()))
			return ExitError
		}
	}
	var notes []string
	read := func(ctx context.Context, pr forge.PastPullRequest) ([]ledger.Entry, error) {
		entries, tampered, _, err := fetchLedger(ctx, client, pr.Number, "", *checkName, *appID, key)
		if err != nil {
			return nil, err
		}
		if len(tampered) > 0 {
			notes = append(notes, fmt.Sprintf("#%d: %d entries do not verify (tampered) and were left out: %s", pr.Number, len(tampered), strings.Join(shortSHAs(tampered), ", ")))
			entries = slices.DeleteFunc(entries, func(e ledger.Entry) bool {
				return slices.ContainsFunc(tampered, func(h string) bool { return strings.EqualFold(h, e.Head) })
			})
		}
		return entries, nil
	}
	o.CacheKey = fmt.Sprintf("check-name=%q app-id=%d ledger-key-file=%q", *checkName, *appID, *keyFile)
	st, err := replay.ReadStats(ctx, client, replay.StatsOptions{Options: o, Ledger: read})
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker stats: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	st.Notes = append(st.Notes, notes...)
	return f.print(env, st, replay.StatsMarkdown(st), st.Cut)
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
func progressTo(env *Env, cmd string) func(replay.Progress) {
	tty := false
	if f, ok := env.Stderr.(*os.File); ok && env.Getenv("CI") == "" {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return replay.ProgressPrinter(env.Stderr, tty, cmd)
}
