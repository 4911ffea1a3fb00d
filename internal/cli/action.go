package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/report"
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

// actionDeps are the outside world of the action mode, replaceable in tests.
type actionDeps struct {
	newForge func(actionenv.Context, actionenv.Inputs) (breaker.Forge, error)
	evaluate func(context.Context, evalOptions) (evaluation, error)
	now      func() time.Time
}

func defaultActionDeps() actionDeps {
	return actionDeps{newForge: newGitHubForge, evaluate: evaluateBranch, now: time.Now}
}

// newGitHubForge binds the go-github adapter to the workflow's repository.
func newGitHubForge(c actionenv.Context, in actionenv.Inputs) (breaker.Forge, error) {
	return ghapi.New(ghapi.Config{
		Token: in.Token, APIURL: c.APIURL, Owner: c.Owner, Repo: c.Repo,
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
		UserAgent:  "greenlight-breaker/" + Version,
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
	return runActionWith(ctx, env, defaultActionDeps())
}

// actionRun is one run of the action.
type actionRun struct {
	ctx   context.Context
	ax    *actionenv.Action
	in    actionenv.Inputs
	gh    actionenv.Context
	forge breaker.Forge
	deps  actionDeps
	red   *report.Redactor
	notes []string // what happened on GitHub, for the summary and the log
	ident *string  // our login, once known
}

// runActionWith runs the action with its outside world given.
func runActionWith(ctx context.Context, env *Env, deps actionDeps) int {
	ax := actionenv.New(env.Getenv, env.Stdout)
	in, inErr := ax.Inputs()
	ax.Mask(in.Token)
	r := &actionRun{ctx: ctx, ax: ax, in: in, deps: deps, red: report.NewRedactor(in.Token)}
	gh, ctxErr := ax.Context()
	r.gh = gh
	if err := errors.Join(inErr, ctxErr); err != nil {
		return r.fail("the action is misconfigured", err)
	}
	forge, err := deps.newForge(gh, in)
	if err != nil {
		return r.fail("cannot reach GitHub", err)
	}
	if in.DryRun {
		forge = &dryRunForge{Forge: forge, log: r.dryRunLog}
		ax.Logf("breaker: dry run: reading from GitHub, writing nothing")
	}
	r.forge = forge
	return r.dispatch()
}

// dispatch routes the event to its handler (DESIGN §3).
func (r *actionRun) dispatch() int {
	ev := r.gh.Event
	switch {
	case ev.Push != nil:
		return r.onPush(ev.Push)
	case ev.PullRequest != nil && ev.Action == "closed":
		return r.onClosed(*ev.PullRequest)
	case ev.PullRequest != nil:
		return r.onPullRequest(ev.Action, *ev.PullRequest)
	case ev.Comment != nil:
		return r.onComment(ev.Action, *ev.Comment)
	case ev.Dispatch != nil:
		return r.onDispatch(ev.Dispatch)
	}
	return r.fail("unsupported event", fmt.Errorf("event %q is not one the breaker acts on; "+
		"run it on push, pull_request, workflow_dispatch or issue_comment", r.gh.EventName))
}

// fail reports an error that stops the run: an annotation, the log, the
// step summary when it can be written, and exit code 1.
func (r *actionRun) fail(title string, err error) int {
	msg := r.red.Redact(err.Error())
	r.ax.Annotate(actionenv.LevelError, "Circuit breaker: "+title, msg)
	r.ax.Untrusted("breaker: " + title + ": " + msg)
	summary := "## Circuit breaker: " + title + "\n\n" + report.CodeBlock(msg, "text") + "\n"
	if werr := r.ax.WriteSummary(summary); werr != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	return ExitError
}

// note records what happened on GitHub: shown in the summary and the log.
func (r *actionRun) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// noteDone records a write to GitHub that succeeded. In a dry run nothing
// was written: the dry-run forge has already noted what it would have done,
// so claiming success here would contradict it.
func (r *actionRun) noteDone(format string, args ...any) {
	if !r.in.DryRun {
		r.note(format, args...)
	}
}

func (r *actionRun) dryRunLog(s string) {
	r.note("dry run: %s", s)
}
