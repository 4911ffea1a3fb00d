package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

const ledgerHelp = `Usage: breaker ledger --repo OWNER/NAME (--pr N | --branch B) [flags]

Fetch the ledger CI kept for a pull request (its commits and the heads
force-pushed away) or a branch: the entries of the breaker's check runs,
oldest first, printed as JSON lines. Give them to breaker evaluate --ledger
to replay CI's verdict on a clone. The token comes from GITHUB_TOKEN, else
GH_TOKEN; GITHUB_API_URL and GITHUB_GRAPHQL_URL are honoured (GitHub
Enterprise Server).

Flags:
  --repo OWNER/NAME       the repository (required)
  --pr N                  the pull request's ledger
  --branch B              a branch's ledger, without a pull request
  --check-name NAME       the breaker's check run name (default
                          "greenlight-breaker")
  --app-id ID             the breaker's GitHub App id (default: the GitHub
                          Actions app, which GITHUB_TOKEN writes as)
  --ledger-key-file FILE  verify each entry's MAC with the ledger key; an
                          entry that does not verify is named on stderr and
                          the exit code is 42

Exit codes:
  0   the entries were printed (and verified, with a key)
  1   error: no token, GitHub unreachable, an unreadable ledger
  2   usage error
  42  an entry does not verify (tampered)
`

func runLedger(ctx context.Context, env *Env, args []string) int {
	fs := newFlags("ledger")
	repo := fs.String("repo", "", "")
	pr := fs.Int("pr", 0, "")
	branch := fs.String("branch", "", "")
	checkName := fs.String("check-name", actionenv.DefaultCheckName, "")
	appID := fs.Int64("app-id", 0, "")
	keyFile := fs.String("ledger-key-file", "", "")
	if code, ok := parseFlags(fs, args, ledgerHelp, env); !ok {
		return code
	}
	owner, name, ok := strings.Cut(*repo, "/")
	switch {
	case fs.NArg() > 0:
		return usageError(env, "ledger", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case !ok || owner == "" || name == "" || strings.Contains(name, "/"):
		return usageError(env, "ledger", "--repo must be OWNER/NAME, e.g. --repo acme/shop")
	case (*pr > 0) == (*branch != ""):
		return usageError(env, "ledger", "give exactly one of --pr N and --branch B")
	}
	token := env.Getenv("GITHUB_TOKEN")
	if token == "" {
		token = env.Getenv("GH_TOKEN")
	}
	if token == "" {
		fmt.Fprintln(env.Stderr, "breaker ledger: no token: set GITHUB_TOKEN (or GH_TOKEN) to a token that may read the repository's checks")
		return ExitError
	}
	var key []byte
	if *keyFile != "" {
		var err error
		if key, err = readKey(*keyFile); err != nil {
			fmt.Fprintf(env.Stderr, "breaker ledger: %s\n", report.SafeLine(err.Error()))
			return ExitError
		}
	}
	client, err := ghapi.New(ghapi.Config{Token: token, APIURL: env.Getenv("GITHUB_API_URL"),
		GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"), Owner: owner, Repo: name, UserAgent: "greenlight-breaker/" + Version})
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker ledger: %v\n", err)
		return ExitError
	}
	q := action.LedgerQuery{PR: *pr, Branch: *branch, CheckName: *checkName, TagPrefix: breaker.DefaultTagPrefix, AppID: *appID}
	st, err := client.ReadLedger(ctx, q)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker ledger: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	// As the Action reads it: every head an entry names as observed
	// before it, and only this pull request's (or branch's) entries.
	who := evaluate.Run{PR: *pr, Branch: *branch}
	read, _, err := action.FollowPrevHeads(ctx, client, st.Runs, q, who)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker ledger: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	all, tampered, notes := read.Entries, read.Tampered, read.Notes
	var entries []ledger.Entry
	for _, e := range all {
		if who.Belongs(e) {
			entries = append(entries, e)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "breaker ledger: %s\n", report.SafeLine(n))
	}
	for _, e := range entries {
		if key != nil && !ledger.Verify(e, key) {
			tampered = append(tampered, e.Head)
		}
	}
	var b strings.Builder
	if err := ledger.WriteLines(&b, entries); err != nil {
		fmt.Fprintf(env.Stderr, "breaker ledger: %v\n", err)
		return ExitError
	}
	io.WriteString(env.Stdout, report.DefuseCommands(b.String()))
	fmt.Fprintf(env.Stderr, "breaker ledger: %d entries%s\n", len(entries), map[bool]string{true: ", verified", false: ""}[key != nil && len(tampered) == 0])
	if len(tampered) > 0 {
		fmt.Fprintf(env.Stderr, "breaker ledger: %d entries do not verify (tampered): %s\n", len(tampered), strings.Join(shortSHAs(tampered), ", "))
		return ExitTripped
	}
	return ExitClosed
}

func shortSHAs(shas []string) []string {
	out := make([]string, len(shas))
	for i, s := range shas {
		out[i] = breaker.ShortSHA(s)
	}
	return out
}

// usageError prints one line naming the problem and the fix; exit 2.
func usageError(env *Env, cmd, msg string) int {
	fmt.Fprintf(env.Stderr, "breaker %s: %s; run 'breaker %s --help' for usage\n", cmd, msg, cmd)
	return ExitUsage
}
