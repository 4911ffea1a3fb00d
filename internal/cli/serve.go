package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os/signal"
	"strings"
	"syscall"

	"github.com/greenlight-ci/breaker/internal/app"
	"github.com/greenlight-ci/breaker/internal/report"
)

const serveHelp = `Usage: breaker serve [--addr ADDR] [--workers N]
       breaker serve --manifest --webhook-url URL [--name NAME]

Runs the breaker as a GitHub App's webhook server (docs/app.md): each
delivery is verified, answered at once, and judged as the Action judges it,
as the App. Stateless: any number of replicas serve one App.

Flags: --addr (default ":$PORT" or ":8080"), --workers (default 4);
--manifest prints the App's manifest for GitHub's manifest flow, with
--webhook-url, --name, --homepage and --redirect-url.

Environment: BREAKER_WEBHOOK_SECRET, GITHUB_APP_ID and
GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY) are required;
GITHUB_API_URL (GitHub Enterprise Server), BREAKER_LEDGER_KEY, PORT.
Endpoints: POST / or /webhook, GET /healthz, GET /metrics.

`

func runServe(ctx context.Context, env *Env, args []string) int {
	fs := newFlags("serve")
	addr := fs.String("addr", "", "")
	workers := fs.Int("workers", app.DefaultWorkers, "")
	manifest := fs.Bool("manifest", false, "")
	webhookURL := fs.String("webhook-url", "", "")
	name, homepage := fs.String("name", "greenlight-breaker", ""), fs.String("homepage", "https://github.com/greenlight-ci/breaker", "")
	redirect := fs.String("redirect-url", "", "")
	if code, ok := parseFlags(fs, args, serveHelp+plainExitCodesHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "breaker serve: unexpected argument %q; the server is configured by flags and the environment\n", fs.Arg(0))
		return ExitUsage
	}
	if *manifest {
		m, err := app.NewManifest(*name, *webhookURL, *homepage, *redirect)
		if err != nil {
			fmt.Fprintf(env.Stderr, "breaker serve --manifest: %s\n", report.SafeLine(err.Error()))
			return ExitUsage
		}
		env.Stdout.Write(m.JSON())
		return ExitClosed
	}
	set, err := app.LoadSettings(*addr, *workers, env.Getenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(env.Stderr, "breaker serve: %s\n", report.SafeLine(line))
		}
		return ExitUsage
	}
	log := slog.New(slog.NewJSONHandler(env.Stderr, nil))
	srv, err := app.New(set, DefaultActionDeps(), log)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker serve: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := srv.ListenAndServe(ctx); err != nil {
		log.Error("breaker serve: stopped", "error", err.Error())
		return ExitError
	}
	return ExitClosed
}
