package cli

import (
	"context"
	"fmt"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/report"
)

const gateHelp = `Usage: breaker gate --repo OWNER/NAME (--pr N | --branch B) [flags]

Say whether an agent may work on a pull request (or a branch) again: read
the ledger CI kept for it and exit 42 with a one-line reason while its
circuit breaker is OPEN and no verified reset came after the trip (a
maintainer's /breaker reset, whose comment still verifies), 0 otherwise.
It writes nothing. Put it first in whatever starts the agent; the Action's
mode: gate is the same for a workflow step. The token comes from
GITHUB_TOKEN, else GH_TOKEN; GITHUB_API_URL and GITHUB_GRAPHQL_URL are
honoured (GitHub Enterprise Server).

Flags:
  --repo OWNER/NAME       the repository (required)
  --pr N                  the pull request the agent is about to work on
  --branch B              a branch without a pull request
  --check-name NAME       the breaker's check run name (default
                          "greenlight-breaker")
  --app-id ID             the breaker's GitHub App id (default: the GitHub
                          Actions app, which GITHUB_TOKEN writes as)
  --ledger-key-file FILE  verify each entry's MAC with the ledger key; an
                          entry that does not verify keeps the gate shut

Exit codes:
  0   CLOSED: the agent may work on it
  1   error: no token, GitHub unreachable, an unreadable ledger
  2   usage error
  42  OPEN: the agent may not, until a maintainer's /breaker reset
`

func runGate(ctx context.Context, env *Env, args []string) int {
	f, fs := newRemoteFlags("gate")
	if code, ok := parseFlags(fs, args, gateHelp, env); !ok {
		return code
	}
	client, key, code, ok := f.open(env, fs)
	if !ok {
		return code
	}
	in := actionenv.Inputs{Token: f.token, CheckName: *f.checkName, TagPrefix: breaker.DefaultTagPrefix, TrailerPrefix: breaker.DefaultTrailerPrefix,
		AppID: *f.appID, Policy: breaker.PolicyGreenlight, LedgerKey: string(key)}
	number, br := *f.pr, *f.branch
	if number > 0 {
		got, err := client.PullRequest(ctx, number)
		if err != nil {
			fmt.Fprintf(env.Stderr, "breaker gate: read pull request #%d: %s\n", number, report.SafeLine(err.Error()))
			return ExitError
		}
		br = got.HeadRef
	}
	g, notes, err := action.ReadGate(ctx, client, in, number, br)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker gate: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "breaker gate: %s\n", report.SafeLine(n))
	}
	fmt.Fprintln(env.Stdout, report.SafeLine(g.Line()))
	if g.Open {
		return ExitTripped
	}
	return ExitClosed
}
