package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// File is one file init writes, relative to the repository's root.
type File struct {
	Path    string
	Content string
	// Append: added to the end of an existing file unless it already holds
	// the content (the agent's instructions), never overwriting it.
	Append bool
	// Patch is set for the repository's own workflow that init joins: the
	// change as a unified diff, which init prints, and applies (Content)
	// only when asked to.
	Patch string
}

// Options say what to write.
type Options struct {
	// Runner and Agent are names (RunnerNames, AgentNames); an empty Runner
	// is detected from the repository.
	Runner, Agent string
	// DefaultBranch is the repository's default branch: base observations
	// are pushes to it.
	DefaultBranch string
	// Uses is the breaker action as a workflow names it: OWNER/REPO@SHA.
	Uses string
	// Simple writes the one-file, two-job workflow instead of the binding
	// deployment.
	Simple bool
	// NoApp writes the binding deployment with GITHUB_TOKEN instead of the
	// breaker's own GitHub App: the ledger is then not binding (any
	// workflow token may rename or re-conclude its check runs).
	NoApp bool
	// NewWorkflow writes the breaker's own test workflow even when the
	// repository has one that runs the tests on pull_request (which init
	// otherwise joins).
	NewWorkflow bool
	// Gate is the --gate recipe, checked by CheckFlags; Gate plans it.
	Gate string
}

// Plan is what init writes, and what it says about it.
type Plan struct {
	Runner Runner
	Agent  Agent
	Files  []File
	// Notes are what init says beside the files: choices it made that the
	// user may want to change.
	Notes []string
}

// usesRE is how a workflow names the breaker: a repository and a full
// commit SHA, which no one can move (optionally a path inside it, as the
// binary variant's /binary).
var usesRE = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}(/[A-Za-z0-9._/-]+)?@[0-9a-f]{40}$`)

// CheckUses validates the action reference init writes.
func CheckUses(uses string) error {
	if !usesRE().MatchString(uses) {
		return fmt.Errorf("--action %q: want OWNER/REPO@<40-hex commit SHA> of your published copy of the breaker (a tag can be moved; a commit cannot)", uses)
	}
	return nil
}

var branchRE = rx.Lazy(`^[A-Za-z0-9._/-]{1,200}$`)

// Build plans the files for the repository in fsys.
func Build(fsys fs.FS, o Options) (Plan, error) {
	if err := CheckUses(o.Uses); err != nil {
		return Plan{}, err
	}
	if !branchRE().MatchString(o.DefaultBranch) || strings.Contains(o.DefaultBranch, "..") {
		return Plan{}, fmt.Errorf("--default-branch %q is not a branch name", o.DefaultBranch)
	}
	name := o.Runner
	if name == "" {
		var err error
		if name, err = Detect(fsys); err != nil {
			return Plan{}, err
		}
	}
	runner, err := runnerFor(name, fsys)
	if err != nil {
		return Plan{}, err
	}
	agent, err := agentFor(o.Agent)
	if err != nil {
		return Plan{}, err
	}
	w := writer{o: o, runner: runner, agent: agent, tests: "agent CI"}
	var files []File
	var notes []string
	var joined *Joined
	if !o.NewWorkflow {
		var why, blocked []string
		joined, why, blocked = findJoin(fsys, runner, fsys)
		notes = append(notes, why...)
		if joined == nil && len(blocked) > 0 {
			// Writing agent-ci.yml beside it would run the suite twice.
			return Plan{}, fmt.Errorf("%s; add the reporter and an upload of test-results/ to that step by hand (docs/installing.md, \"Joining the CI you have\") and run init again, or pass --new-workflow to write a test workflow of the breaker's own anyway",
				strings.Join(blocked, "; "))
		}
	}
	switch {
	case joined != nil && o.Simple:
		return Plan{}, fmt.Errorf("%s already runs the tests on pull_request (%q): --simple would run them a second time; leave out --simple to join it, or pass --new-workflow", joined.Path, joined.Command)
	case o.Simple:
		files = append(files, File{Path: ".github/workflows/breaker.yml", Content: w.simple()})
	case joined != nil:
		w.tests, w.matrix = joined.Name, joined.Matrix
		if joined.New != joined.Old {
			files = append(files, File{Path: joined.Path, Content: joined.New, Patch: joined.Diff()})
		}
		files = append(files, File{Path: ".github/workflows/breaker.yml", Content: w.breaker()})
		notes = append(notes, fmt.Sprintf("joined %s (job %s, %q): the breaker follows %q; no second test workflow", joined.Path, joined.Job, joined.Command, joined.Name))
	default:
		files = append(files,
			File{Path: ".github/workflows/agent-ci.yml", Content: w.agentCI()},
			File{Path: ".github/workflows/breaker.yml", Content: w.breaker()})
	}
	files = append(files,
		File{Path: ".github/workflows/breaker-commands.yml", Content: w.commands()},
		File{Path: ".github/workflows/breaker-cleanup.yml", Content: w.cleanup()})
	for _, f := range runner.Extra {
		if !exists(fsys, f.Path) {
			files = append(files, f)
		}
	}
	files = append(files, File{Path: agent.Instructions, Content: InstructionLines, Append: true})
	if runner.Why != "" && joined == nil {
		notes = append(notes, runner.Why) // how the test workflow init writes runs them
	}
	dependabot, note := dependabotFile(fsys)
	if dependabot != nil {
		files = append(files, *dependabot)
	}
	if note != "" {
		notes = append(notes, note)
	}
	return Plan{Runner: runner, Agent: agent, Files: files, Notes: notes}, nil
}

// dependabotConfig keeps the pinned actions current: Dependabot updates a
// SHA pin and its release comment together.
const dependabotConfig = `# Written by breaker init: keeps the actions its workflows pin by commit
# current (Dependabot moves the SHA and the release comment together).
version: 2
updates:
  - package-ecosystem: "github-actions"
    directory: "/"
    schedule:
      interval: "weekly"
`

// dependabotFile is the Dependabot configuration to write when the
// repository has none, or a note when it has one that leaves the
// workflows' actions out.
func dependabotFile(fsys fs.FS) (*File, string) {
	for _, name := range []string{".github/dependabot.yml", ".github/dependabot.yaml"} {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			continue
		}
		if !strings.Contains(string(data), "github-actions") {
			return nil, name + " has no github-actions ecosystem: add one so the actions these workflows pin by commit stay current"
		}
		return nil, ""
	}
	return &File{Path: ".github/dependabot.yml", Content: dependabotConfig}, ""
}

// ErrExists is wrapped by a plan's check when a workflow would be
// overwritten.
var ErrExists = errors.New("already exists")

type writer struct {
	o      Options
	runner Runner
	agent  Agent
	// tests is the name of the workflow that runs the tests, which the
	// breaker follows on workflow_run.
	tests string
	// matrix: the tests run in a matrix whose legs upload an artifact each.
	matrix bool
}

// testSteps are the tests' job steps: the checkout (no credentials kept),
// the toolchain, the tests writing into test-results/, and its upload
// whatever the tests concluded.
func (w writer) testSteps(ref string) string {
	var b strings.Builder
	b.WriteString("      - uses: " + useCheckout + "\n        with:\n          persist-credentials: false\n")
	if ref != "" {
		b.WriteString("          ref: " + ref + "\n")
	}
	b.WriteString(w.runner.Setup)
	b.WriteString("      - name: tests # " + w.runner.Title + "\n        run: |\n          mkdir -p test-results\n")
	for _, l := range strings.Split(w.runner.Run, "\n") {
		b.WriteString("          " + l + "\n")
	}
	b.WriteString("      - if: ${{ !cancelled() }}\n        uses: " + useUpload + "\n        with:\n          name: test-results\n          path: test-results/\n")
	return b.String()
}

// BreakerComment ends every line that names the breaker: init fills in
// the copy it was given. The docs show the line with PlaceholderUses.
const BreakerComment = " # your copy of the breaker, pinned (breaker init --action)"

// PlaceholderUses is how README.md and docs/ name the breaker: what init
// writes, with the owner and commit left for init to fill in.
const PlaceholderUses = "your-org/breaker@<40-hex sha>"

// breakerUses is the breaker's step reference as init writes it.
func (w writer) breakerUses() string { return w.o.Uses + BreakerComment }

// actors is the agent-actors input, or a comment saying why there is none.
func (w writer) actors(indent string) string {
	if len(w.agent.Logins) == 0 {
		return indent + "# agent-actors: the agent's login(s), one a line. Without it the pull request's\n" +
			indent + "# author and pushers are still treated as the agent.\n"
	}
	return indent + "agent-actors: |\n" + indent + "  " + strings.Join(w.agent.Logins, "\n"+indent+"  ") + "\n"
}

const header = "# Written by `breaker init`. The breaker's own steps run none of the\n" +
	"# repository's code; the tests run in a job that may only read.\n"

func (w writer) agentCI() string {
	return header + w.testWorkflow("")
}

// testWorkflow is the agent's CI up to its test job's steps, checking out
// ref ("" for the event's commit).
func (w writer) testWorkflow(ref string) string {
	return `name: agent CI

on:
  pull_request:
    types: [opened, synchronize, reopened]
  push:
    branches: [` + w.o.DefaultBranch + `] # what fails on the base is never a pull request's

permissions:
  contents: read

jobs:
  test:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
` + w.testSteps(ref)
}

// breaker is the binding half: a workflow of the default branch, which no
// branch can edit, run when the agent's CI completes, holding the write
// scopes and the ledger key.
func (w writer) breaker() string {
	return header + `#
# It binds: workflow_run always runs this file as the default branch has it,
# and LEDGER_KEY and BREAKER_APP_KEY live in the environment "breaker",
# whose deployment branches are the default branch only, so no workflow of
# the agent's branch can read a key, sign a ledger entry, or change the
` + w.bindsLine() + `
name: breaker

on:
  workflow_run:
    workflows: [` + strconv.Quote(w.tests) + `]
    types: [completed]

permissions: {}

concurrency:
  group: breaker-${{ github.event.workflow_run.head_repository.full_name }}-${{ github.event.workflow_run.head_branch }}
  cancel-in-progress: false

jobs:
  breaker:
    if: >-
      github.event.workflow_run.event == 'pull_request' ||
      (github.event.workflow_run.event == 'push' &&
       github.event.workflow_run.head_branch == github.event.repository.default_branch)
    runs-on: ubuntu-latest
    timeout-minutes: 10
    environment: breaker
    permissions:
      contents: write       # the checkpoint tag
      pull-requests: write  # the sticky comment
      issues: write         # comments are written through the issues API
      checks: write         # the ledger: one check run per observed push
      actions: read         # the tested run's results artifact
    steps:
` + w.appStep() + `      - uses: ` + useCheckout + `
        with:
          persist-credentials: false
          fetch-depth: 0 # the breaker reads the branch's history
          ref: ${{ github.event.workflow_run.head_sha }}
      - uses: ` + w.breakerUses() + `
        with:
` + w.appInputs() + `          ledger-key: ${{ secrets.LEDGER_KEY }}
` + w.resultsInputs() + w.actors("          ") + w.unassign()
}

// unassign is on-trip-unassign for an agent that stops when unassigned.
func (w writer) unassign() string {
	if w.agent.Unassign == "" {
		return ""
	}
	return "          on-trip-unassign: " + w.agent.Unassign + " # what stops it; the reset assigns it again\n"
}

// resultsInputs say where the breaker on workflow_run finds the results:
// the artifact of the tests' run, or every leg's of a matrix.
func (w writer) resultsInputs() string {
	if w.matrix {
		return "          results-artifact: test-results-* # every leg's\n          results: \"**/" + w.runner.Results + "\"\n"
	}
	return "          results-artifact: test-results\n          results: \"" + w.runner.Results + "\"\n"
}

// simple is the one-file workflow: the tests and the breaker in two jobs.
// It does not bind: the agent can edit it on its branch.
func (w writer) simple() string {
	return header + `#
# This is the simple shape, and it does not bind: a pull_request run uses the
# workflow file of the pull request's own commit, which the agent can edit.
# breaker init without --simple writes the deployment that binds.
` + w.testWorkflow("${{ github.event.pull_request.head.sha || github.sha }}") + `
  breaker:
    needs: test
    if: ${{ !cancelled() }}
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: write       # the checkpoint tag
      pull-requests: write  # the sticky comment
      issues: write         # comments are written through the issues API
      checks: write         # the ledger: one check run per observed push
    steps:
      - uses: ` + useCheckout + `
        with:
          persist-credentials: false
          fetch-depth: 0 # the breaker reads the branch's history
          ref: ${{ github.event.pull_request.head.sha || github.sha }}
      - uses: ` + useDownload + `
        with:
          name: test-results
          path: test-results
      - uses: ` + w.breakerUses() + `
        with:
          results: "test-results/` + w.runner.Results + `"
          tests-outcome: ${{ needs.test.result }}
` + w.actors("          ")
}

// keyLines are the ledger key and its environment in the binding
// deployment; the simple one has none.
func (w writer) keyLines() (env, with string) {
	if w.o.Simple {
		return "", ""
	}
	return "    environment: breaker # holds LEDGER_KEY and BREAKER_APP_KEY: resets are ledger entries, signed\n",
		w.appInputs() + "          ledger-key: ${{ secrets.LEDGER_KEY }}\n"
}

// bindsLine ends the binding deployment's header: what the App adds, or
// that without it the ledger is not binding.
func (w writer) bindsLine() string {
	if w.o.NoApp {
		return `# breaker's check runs. Written with --no-app: the ledger is GITHUB_TOKEN's,
# and any workflow token of the repository (the agent's too) may rename or
# re-conclude those check runs, so it is NOT binding; breaker init without
# --no-app writes it as a GitHub App of its own.`
	}
	return `# breaker's check runs: they are its GitHub App's, which only the App
# can change (docs/installing.md says how to create it: two minutes).`
}

// appStep mints the breaker App's installation token (none with --no-app).
func (w writer) appStep() string {
	if w.o.NoApp || w.o.Simple {
		return ""
	}
	return `      - id: app # the breaker's own GitHub App: its check runs are the ledger
        uses: ` + useCreateAppToken + `
        with:
          client-id: ${{ vars.BREAKER_APP_CLIENT_ID }}
          private-key: ${{ secrets.BREAKER_APP_KEY }}
`
}

// appInputs give the breaker the App's token and id (none with --no-app).
func (w writer) appInputs() string {
	if w.o.NoApp || w.o.Simple {
		return ""
	}
	return "          token: ${{ steps.app.outputs.token }}\n          app-id: ${{ vars.BREAKER_APP_ID }}\n"
}

func (w writer) commands() string {
	env, key := w.keyLines()
	return header + `#
# /breaker debug and /breaker reset from a maintainer's comment. Comment
# workflows always run the default branch's file.
name: breaker commands

on:
  issue_comment:
    types: [created]

permissions:
  contents: write       # the reset tag; the rollback commit and branch update
  pull-requests: write  # read the pull request; the sticky comment
  issues: write         # replies
  checks: write         # the ledger; a reset is a check run on the head

jobs:
  command:
    if: github.event.issue.pull_request && startsWith(github.event.comment.body, '/breaker')
    runs-on: ubuntu-latest
    timeout-minutes: 10
` + env + `    concurrency:
      group: breaker-command-${{ github.event.issue.number }}
    steps:
` + w.appStep() + `      - uses: ` + useCheckout + `
        with:
          persist-credentials: false # the breaker writes through the API, never git push
          fetch-depth: 0
          ref: refs/pull/${{ github.event.issue.number }}/head
` + w.use(key) + "\n"
}

// use is the breaker's step with its inputs, which may be none (then no
// with:, which a workflow may not leave empty).
func (w writer) use(inputs string) string {
	inputs += w.actors("          ")
	for _, l := range strings.Split(strings.TrimSpace(inputs), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			return "      - uses: " + w.breakerUses() + "\n        with:\n" + strings.TrimSuffix(inputs, "\n")
		}
	}
	return "      - uses: " + w.breakerUses() + "\n" + strings.ReplaceAll(strings.TrimSuffix(inputs, "\n"), "          #", "        #")
}

func (w writer) cleanup() string {
	return header + `#
# A closed pull request's checkpoint and reset tags: those its own ledger
# records creating, while they still point where it put them.
name: breaker cleanup

on:
  pull_request:
    types: [closed]

permissions:
  contents: write      # delete tags
  checks: read         # the ledger: which tags this pull request created
  pull-requests: read  # the ledger's query reads the pull request and its commits

jobs:
  cleanup:
    runs-on: ubuntu-latest
    timeout-minutes: 5
    steps:
` + w.cleanupStep()
}

// cleanupStep is the cleanup's breaker step: it reads the ledger of the
// breaker's App (app-id; a variable any workflow may read), with no token
// of the App's.
func (w writer) cleanupStep() string {
	if w.o.NoApp || w.o.Simple {
		return "      - uses: " + w.breakerUses() + "\n"
	}
	return "      - uses: " + w.breakerUses() + "\n        with:\n          app-id: ${{ vars.BREAKER_APP_ID }} # the ledger is the App's check runs\n"
}
