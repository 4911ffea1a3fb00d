package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/greenlight-ci/breaker/internal/setup"
)

// ActionRef is the breaker action a released binary's init writes:
// OWNER/REPO@<the release commit>, set at build time with -ldflags
// "-X ...cli.ActionRef=owner/repo@sha". Empty in a development build,
// where init needs --action.
var ActionRef = ""

var initHelp = `Usage: breaker init [--agent NAME] [--runner NAME] [--action OWNER/REPO@SHA]
                    [--default-branch BRANCH] [--simple] [--no-app] [--new-workflow]
                    [--write] [--gate NAME] [--force] [--dir DIR]

Write the breaker's workflows into the repository at DIR (default: the
current directory), for the agent and the test runner named:

  .github/workflows/agent-ci.yml          the agent's tests, on pull_request and on
                                          pushes to the default branch, with a token
                                          that may only read; uploads test-results/
  .github/workflows/breaker.yml           the breaker, on workflow_run from the default
                                          branch (which no branch can edit), as the
                                          breaker's own GitHub App, with the App's key
                                          and the ledger key from the environment
                                          "breaker"
  .github/workflows/breaker-commands.yml  /breaker debug and /breaker reset
  .github/workflows/breaker-cleanup.yml   a closed pull request's tags
  the agent's instructions file           three lines, appended (never overwritten)
  .github/dependabot.yml                  keeps the pinned actions current (only when
                                          the repository has none)

When a workflow of the repository already runs the tests on pull_request,
init joins it instead of writing agent-ci.yml: the breaker follows that
workflow by name, and init adds to its test step only the runner's
reporter on the repository's own command and an upload of the results. It
prints that change as a diff; --write applies it. Nothing else in the file
changes. --new-workflow writes agent-ci.yml anyway.

This is the deployment that binds: the agent's code and its branch's
workflows never reach the verdict, the keys or the ledger, whose check runs
only the breaker's App can change. --simple writes one two-job workflow
instead, which the agent can edit on its branch: it does not bind.

Flags:
  --agent NAME            ` + strings.Join(setup.AgentNames, ", ") + ` (default other):
                          the logins given to agent-actors and the instructions
                          file (.github/copilot-instructions.md, CLAUDE.md, AGENTS.md)
  --runner NAME           ` + strings.Join(setup.RunnerNames, ", ") + `;
                          default: detected from the build files at DIR
  --action OWNER/REPO@SHA the breaker action the workflows use, pinned to a full
                          commit SHA (default: the release this binary was built
                          from, when it was)
  --default-branch BRANCH the repository's default branch (default: origin's HEAD,
                          else the branch checked out)
  --simple                write the one-file workflow that does not bind
  --no-app                the binding deployment with GITHUB_TOKEN instead of
                          the breaker's App: any workflow token may rename its
                          check runs, so the ledger is not binding
  --new-workflow          write agent-ci.yml even when a workflow of the
                          repository runs the tests on pull_request
  --write                 apply the change to the joined workflow (default:
                          print it as a diff)
  --gate NAME             write only the gate in front of an agent's workflow:
                          ` + strings.Join(setup.GateNames, ", ") + `
                          (.github/workflows/NAME.yml; docs/gate.md)
  --force                 overwrite workflows that exist
  --dir DIR               the repository's root (default .)

It writes nothing when a workflow exists and --force is not given. It prints
each file it wrote and what to do next (the App and its permissions, the
environment, the keys, the required check).

` + plainExitCodesHelp

func runInit(_ context.Context, env *Env, args []string) int {
	fs := newFlags("init")
	agent := fs.String("agent", "other", "")
	runner := fs.String("runner", "", "")
	action := fs.String("action", ActionRef, "")
	branch := fs.String("default-branch", "", "")
	simple := fs.Bool("simple", false, "")
	noApp := fs.Bool("no-app", false, "")
	newWorkflow := fs.Bool("new-workflow", false, "")
	write := fs.Bool("write", false, "")
	gate := fs.String("gate", "", "")
	force := fs.Bool("force", false, "")
	dir := fs.String("dir", ".", "")
	if code, ok := parseFlags(fs, args, initHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "breaker init: takes no arguments; run 'breaker init --help'")
		return ExitUsage
	}
	if err := setup.CheckFlags(setup.Options{Agent: *agent, Runner: *runner, Uses: *action, Simple: *simple, NoApp: *noApp, Gate: *gate}); err != nil {
		fmt.Fprintf(env.Stderr, "breaker init: %v; run 'breaker init --help'\n", err)
		return ExitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(env.Stderr, "breaker init: %v\n", err)
		return ExitError
	}
	if *action == "" {
		return fail(errors.New("--action is required in a development build: name your published copy of the breaker pinned to a commit, " +
			"e.g. --action my-org/breaker@<40-hex sha> (docs/publishing.md says how to publish one)"))
	}
	if *branch == "" {
		b, err := setup.DefaultBranch(*dir)
		if err != nil {
			return fail(err)
		}
		*branch = b
	}
	root, err := os.OpenRoot(*dir)
	if err != nil {
		return fail(fmt.Errorf("--dir %s: %w", *dir, err))
	}
	defer root.Close()
	opts := setup.Options{Runner: *runner, Agent: *agent, DefaultBranch: *branch, Uses: *action, Simple: *simple, NoApp: *noApp, NewWorkflow: *newWorkflow}
	var plan setup.Plan
	if *gate != "" {
		plan, err = setup.Gate(root.FS(), *gate, opts)
	} else {
		plan, err = setup.Build(root.FS(), opts)
	}
	if err != nil {
		return fail(err)
	}
	if !*force {
		var there []string
		for _, f := range plan.Files {
			if _, err := root.Stat(f.Path); err == nil && !f.Append && f.Patch == "" {
				there = append(there, f.Path)
			}
		}
		if len(there) > 0 {
			return fail(fmt.Errorf("%s already exist: nothing written; run again with --force to overwrite them", strings.Join(there, ", ")))
		}
	}
	var wrote, patches []string
	for _, f := range plan.Files {
		if f.Patch != "" && !*write {
			wrote = append(wrote, "to change "+f.Path+" (printed below; --write applies it)")
			patches = append(patches, f.Patch)
			continue
		}
		msg, err := setup.WritePlanned(root, f)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", f.Path, err))
		}
		wrote = append(wrote, msg)
	}
	out := env.Stdout
	if *gate != "" {
		fmt.Fprintf(out, "breaker init: the gate in front of %s.\n\n", *gate)
	} else {
		fmt.Fprintf(out, "breaker init: the tests run as %s; the agent is %s.\n\n", plan.Runner.Title, plan.Agent.Name)
	}
	for _, w := range wrote {
		fmt.Fprintln(out, "  "+w)
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(out, "  note: "+n)
	}
	fmt.Fprintln(out)
	for _, p := range patches {
		fmt.Fprintf(out, "The breaker joins the workflow that already runs the tests; add this to it\n"+
			"(or run breaker init --write to apply it; nothing else in the file changes):\n\n%s\n", p)
	}
	if *gate != "" {
		fmt.Fprint(out, setup.GateNextSteps(*gate, *branch))
		return ExitClosed
	}
	fmt.Fprint(out, setup.NextSteps(*simple, *noApp, *branch))
	fmt.Fprint(out, plan.Agent.Next)
	return ExitClosed
}
