package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ghapi"
)

const actionHelp = `Usage: breaker action

Runs the breaker as a GitHub Action. It takes no flags: it reads the action's
inputs (INPUT_*), the event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH) and the
repository (GITHUB_REPOSITORY, GITHUB_WORKSPACE, GITHUB_API_URL) from the
environment, as the runner sets them. It is the default command when
GITHUB_ACTIONS=true.

Events: push and pull_request evaluate the branch, ensure the checkpoint tag,
write the step summary and the sticky pull request comment, and exit 42 when
the breaker is OPEN; workflow_dispatch publishes the diagnostic now (read
only, exit 0); an issue_comment "/breaker debug" or "/breaker reset [slice]
[--rollback] [guidance]" from a writer runs that command; a closed pull
request deletes its checkpoint and reset tags.

`

// DefaultActionDeps binds the Action to GitHub through go-github, to git
// through internal/evaluate, and to the wall clock.
func DefaultActionDeps() action.Deps {
	return action.Deps{NewForge: newGitHubForge, Load: evaluate.Load, Now: time.Now, Version: Version}
}

// newGitHubForge binds the go-github adapter to the workflow's repository.
func newGitHubForge(c actionenv.Context, in actionenv.Inputs) (action.Forge, error) {
	return ghapi.New(ghapi.Config{
		Token: in.Token, APIURL: c.APIURL, GraphQLURL: c.GraphQLURL, Owner: c.Owner, Repo: c.Repo,
		RequestTimeout: 30 * time.Second,
		UserAgent:      "greenlight-breaker/" + Version,
	})
}

func runAction(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			io.WriteString(env.Stdout, actionHelp+exitCodesHelp)
			return ExitClosed
		}
		fmt.Fprintf(env.Stderr, "breaker action: unexpected argument %q; the action is configured through its inputs\n", args[0])
		return ExitUsage
	}
	if env.Getenv("GOMAXPROCS") == "" {
		// A run mostly waits for GitHub. With a second processor, a
		// collection still marking during a wait let the runtime's idle
		// mark worker spin on it: at 100 ledger entries the run's CPU
		// flipped between about 65 and 100 ms from run to run (gctrace: one
		// cycle, 20 ms of CPU). On one, about 60 ms every time; and the
		// collector at twice its default target, which had bought a fifth
		// less CPU at 1,000 entries on two, buys 3 % there for 17 MB more,
		// so the run keeps the default (bench/actioncost, alternating).
		// GOMAXPROCS, when set, decides.
		runtime.GOMAXPROCS(1)
	}
	return runActionWith(ctx, env, DefaultActionDeps())
}

// runActionWith runs the Action with its outside world given.
func runActionWith(ctx context.Context, env *Env, deps action.Deps) int {
	out := action.Run(ctx, deps, actionenv.New(env.Getenv, env.Stdout))
	return ExitCode(out.Decision, out.Enforce, out.Err)
}
