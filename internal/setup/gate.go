package setup

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// GateNames are the accepted --gate values: the recipes that put the gate
// in front of an agent's workflow.
var GateNames = []string{"claude", "codex", "openhands", "fix-ci"}

// Gate plans the workflow of recipe name: the gate in a job of its own,
// which holds the ledger key (the environment "breaker") and hands its
// prior-attempts to the agent's job, which needs it; the agent never runs
// while the pull request's breaker is OPEN. fsys is the repository, for
// the fix-CI recipe's tests workflow.
func Gate(fsys fs.FS, name string, o Options) (Plan, error) {
	if err := CheckUses(o.Uses); err != nil {
		return Plan{}, err
	}
	if !branchRE().MatchString(o.DefaultBranch) || strings.Contains(o.DefaultBranch, "..") {
		return Plan{}, fmt.Errorf("--default-branch %q is not a branch name", o.DefaultBranch)
	}
	w := writer{o: o, tests: "agent CI"}
	var content string
	var notes []string
	switch name {
	case "claude":
		content = w.claudeGate()
	case "codex":
		content = w.codexGate()
	case "openhands":
		content = w.openhandsGate()
	case "fix-ci":
		if runner, err := detectRunner(fsys, o.Runner); err == nil {
			if j, _, _ := findJoin(fsys, runner, fsys); j != nil {
				w.tests = j.Name
			}
		}
		content = w.fixCIGate()
		notes = append(notes, "fix-ci.yml follows the workflow "+strconv.Quote(w.tests)+", the one that runs the tests")
	default:
		return Plan{}, fmt.Errorf("--gate %q: want one of %s", name, strings.Join(GateNames, ", "))
	}
	return Plan{Files: []File{{Path: ".github/workflows/" + name + ".yml", Content: content}}, Notes: notes}, nil
}

// detectRunner is the runner named, else the one the build files say.
func detectRunner(fsys fs.FS, name string) (Runner, error) {
	if name == "" {
		var err error
		if name, err = Detect(fsys); err != nil {
			return Runner{}, err
		}
	}
	return runnerFor(name, fsys)
}

const gateHeader = "# Written by `breaker init --gate`. The gate runs first, in a job of its\n" +
	"# own: while the pull request's breaker is OPEN it fails, and the agent's\n" +
	"# job, which needs it, never starts. It holds the ledger key; the agent's\n" +
	"# job holds none.\n"

// gateJob is the gate's job, run when cond holds.
func (w writer) gateJob(cond string) string {
	return `  gate:
    if: ` + cond + `
    runs-on: ubuntu-latest
    timeout-minutes: 5
    environment: breaker # LEDGER_KEY: the gate verifies the ledger it reads
    permissions:
      contents: read
      pull-requests: read
      issues: read
      checks: read
    outputs:
      prior-attempts: ${{ steps.gate.outputs.prior-attempts }}
    steps:
      - id: gate
        uses: ` + w.breakerUses() + `
        with:
          mode: gate
` + w.gateInputs()
}

// gateInputs are the ledger's: the same App and key as the breaker's.
func (w writer) gateInputs() string {
	app := "          app-id: ${{ vars.BREAKER_APP_ID }}\n"
	if w.o.NoApp {
		app = ""
	}
	return app + "          ledger-key: ${{ secrets.LEDGER_KEY }}\n"
}

const onComment = `on:
  issue_comment:
    types: [created]

permissions: {}

jobs:
`

// claudeJob is the head of the job that runs Claude once the gate passed:
// the scopes claude-code-action asks for, up to its steps.
func claudeJob(id string) string {
	return `
  ` + id + `:
    needs: gate
    runs-on: ubuntu-latest
    timeout-minutes: 60
    permissions:
      contents: write
      pull-requests: write
      issues: write
      id-token: write
    steps:
`
}

func (w writer) claudeGate() string {
	return gateHeader + `#
# Claude runs when someone mentions it on a pull request.
name: claude

` + onComment + w.gateJob("github.event.issue.pull_request && contains(github.event.comment.body, '@claude')") + claudeJob("claude") + `      - uses: ` + useCheckout + `
      - uses: ` + uses("anthropics/claude-code-action") + `
        with:
          anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}
          # A prompt runs Claude on it at once (the gate's job checked the
          # mention): the comment's request, then what was tried before.
          prompt: |
            Work on this pull request as the comment that mentioned you asks.
            ${{ needs.gate.outputs.prior-attempts }}
`
}

// codexGate runs Codex without a write token and pushes its change from a
// fresh job, as codex-action's README advises for anything that needs
// more than Codex's job ("pipe the output … to a fresh job").
func (w writer) codexGate() string {
	return gateHeader + `#
# Codex works on the pull request in a job that may only read; a fresh job
# pushes its change to the pull request's branch (a fork's cannot be).
name: codex

` + onComment + w.gateJob("github.event.issue.pull_request && contains(github.event.comment.body, '@codex')") + `
  codex:
    needs: gate
    runs-on: ubuntu-latest
    timeout-minutes: 60
    permissions:
      contents: read
    outputs:
      changed: ${{ steps.change.outputs.changed }}
    steps:
      - uses: ` + useCheckout + `
        with:
          persist-credentials: false
          ref: refs/pull/${{ github.event.issue.number }}/head
      - uses: ` + uses("openai/codex-action") + `
        with:
          openai-api-key: ${{ secrets.OPENAI_API_KEY }}
          prompt: |
            Read the failing check of this pull request and fix what it reports, one targeted change.
            ${{ needs.gate.outputs.prior-attempts }}
      - id: change # what Codex changed, as a patch for the job that pushes it
        shell: bash
        run: |
          git add -A
          git diff --cached --binary > "$RUNNER_TEMP/codex.patch"
          if [ -s "$RUNNER_TEMP/codex.patch" ]; then echo changed=true >> "$GITHUB_OUTPUT"; fi
      - if: steps.change.outputs.changed == 'true'
        uses: ` + useUpload + `
        with:
          name: codex-patch
          path: ${{ runner.temp }}/codex.patch

  push:
    needs: codex
    if: needs.codex.outputs.changed == 'true'
    runs-on: ubuntu-latest
    timeout-minutes: 5
    permissions:
      contents: write
      pull-requests: read
    steps:
      - id: pr
        env:
          GH_TOKEN: ${{ github.token }}
          NUMBER: ${{ github.event.issue.number }}
        run: gh api "repos/$GITHUB_REPOSITORY/pulls/$NUMBER" --jq '"ref=" + .head.ref, "repo=" + .head.repo.full_name' >> "$GITHUB_OUTPUT"
      - if: steps.pr.outputs.repo == github.repository
        uses: ` + useDownload + `
        with:
          name: codex-patch
          path: ${{ runner.temp }}
      - if: steps.pr.outputs.repo == github.repository
        uses: ` + useCheckout + `
        with:
          ref: ${{ steps.pr.outputs.ref }}
      - if: steps.pr.outputs.repo == github.repository # git only: no code of the branch runs here
        env:
          REF: ${{ steps.pr.outputs.ref }}
        run: |
          git config user.name "github-actions[bot]"
          git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
          git apply --index "$RUNNER_TEMP/codex.patch"
          git commit -m "Codex: fix what the failing check reports"
          git push origin "HEAD:refs/heads/$REF"
`
}

// openhandsGate gates the resolver's reusable workflow, on a pull request
// or an issue (the resolver opens the pull request of an issue), against
// the default branch.
func (w writer) openhandsGate() string {
	return gateHeader + `#
# The resolver is a reusable workflow: it needs the gate's job, so GitHub
# skips it when the gate fails. It works on issues and pull requests.
name: openhands

` + onComment + w.gateJob("contains(github.event.comment.body, '@openhands-agent')") + `
  resolve:
    needs: gate
    permissions:
      contents: write
      pull-requests: write
      issues: write
    uses: ` + strings.Replace(uses("OpenHands/OpenHands"), "@", "/.github/workflows/openhands-resolver.yml@", 1) + `
    with:
      macro: "@openhands-agent"
      target_branch: ` + strconv.Quote(w.o.DefaultBranch) + `
    secrets:
      LLM_API_KEY: ${{ secrets.LLM_API_KEY }}
      PAT_TOKEN: ${{ secrets.PAT_TOKEN }}
      PAT_USERNAME: ${{ secrets.PAT_USERNAME }}
`
}

func (w writer) fixCIGate() string {
	return gateHeader + `#
# Asked to fix a failed CI run, the agent loops: the gate stops it at the
# breaker's trip.
name: fix CI

on:
  workflow_run:
    workflows: [` + strconv.Quote(w.tests) + `]
    types: [completed]

permissions: {}

jobs:
` + w.gateJob("github.event.workflow_run.conclusion == 'failure' && github.event.workflow_run.event == 'pull_request'") + claudeJob("fix") + `      - uses: ` + useCheckout + `
        with:
          ref: ${{ github.event.workflow_run.head_branch }}
      - uses: ` + uses("anthropics/claude-code-action") + `
        with:
          anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}
          prompt: |
            CI failed on this branch. Read the failing check's text first, then make one targeted change.
            ${{ needs.gate.outputs.prior-attempts }}
`
}
