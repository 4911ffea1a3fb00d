package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/breaker"
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
	f, fs := newRemoteFlags("ledger")
	if code, ok := parseFlags(fs, args, ledgerHelp, env); !ok {
		return code
	}
	client, key, code, ok := f.open(env, fs)
	if !ok {
		return code
	}
	entries, tampered, notes, err := fetchLedger(ctx, client, *f.pr, *f.branch, *f.checkName, *f.appID, key)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker ledger: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "breaker ledger: %s\n", report.SafeLine(n))
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

// fetchLedger reads a pull request's (or a branch's) ledger as the Action
// reads it: every head an entry names as observed before it, and only
// this pull request's (or branch's) entries; with a key, the heads whose
// entry does not verify are tampered.
func fetchLedger(ctx context.Context, client *ghapi.Client, pr int, branch, checkName string, appID int64, key []byte) (entries []ledger.Entry, tampered, notes []string, err error) {
	read, err := action.LedgerOf(ctx, client, action.LedgerQuery{PR: pr, Branch: branch, CheckName: checkName, TagPrefix: breaker.DefaultTagPrefix, AppID: appID})
	if err != nil {
		return nil, nil, nil, err
	}
	tampered = read.Tampered
	for _, e := range read.Entries {
		if key != nil && !ledger.Verify(e, key) {
			tampered = append(tampered, e.Head)
		}
	}
	return read.Entries, tampered, read.Notes, nil
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
