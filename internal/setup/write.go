package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// What init does once the plan is made: it writes the planned files into
// the repository, and says what is left to do by hand.

// WritePlanned writes one planned file under root and says what it did.
func WritePlanned(root *os.Root, f File) (string, error) {
	if err := root.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return "", err
	}
	if f.Patch != "" {
		if err := root.WriteFile(f.Path, []byte(f.Content), 0o644); err != nil {
			return "", err
		}
		return "patched " + f.Path + " (the reporter and the results' upload; nothing else)", nil
	}
	if !f.Append {
		if err := root.WriteFile(f.Path, []byte(f.Content), 0o644); err != nil {
			return "", err
		}
		return "wrote " + f.Path, nil
	}
	old, err := root.ReadFile(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := root.WriteFile(f.Path, []byte(f.Content), 0o644); err != nil {
			return "", err
		}
		return "wrote " + f.Path + " (the agent's instructions)", nil
	case err != nil:
		return "", err
	}
	first, _, _ := strings.Cut(f.Content, "\n")
	if strings.Contains(string(old), first) {
		return "kept " + f.Path + ": it already holds the breaker's lines", nil
	}
	sep := "\n"
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		sep = "\n\n"
	}
	file, err := root.OpenFile(f.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return "", err
	}
	if _, err := file.WriteString(sep + f.Content); err != nil {
		file.Close()
		return "", err
	}
	if err := file.Close(); err != nil {
		return "", err
	}
	return "appended the breaker's lines to " + f.Path, nil
}

// NextSteps is what to do after init, in order: the simple shape, the
// hardened one without an App (noApp), or with the breaker's own App.
func NextSteps(simple, noApp bool, branch string) string {
	if simple {
		return `Next:
  1. Commit these files and push them to ` + branch + `.
  2. Require the check "greenlight-breaker" on ` + branch + ` (a branch ruleset).
This shape does not bind: the agent can edit the workflow on its branch.
breaker init without --simple writes the deployment that binds.
`
	}
	env := `  1. Create the environment "breaker" (Settings > Environments) with deployment
     branches limited to ` + branch + `, and give it a ledger key:
       openssl rand -hex 32 | gh secret set LEDGER_KEY --env breaker
`
	rest := `  3. Commit these files and push them to ` + branch + ` (workflow_run and comment
     workflows run only as the default branch has them).
  4. Require the check "greenlight-breaker" on ` + branch + ` (a branch ruleset).
`
	if noApp {
		return "Next:\n" + env + strings.Replace(strings.Replace(rest, "  3.", "  2.", 1), "  4.", "  3.", 1) +
			"The ledger is NOT binding with --no-app: any workflow token of the repository, the agent's\n" +
			"too, may rename or re-conclude GITHUB_TOKEN's check runs. breaker init without --no-app runs\n" +
			"the breaker as a GitHub App of its own.\n"
	}
	return "Next:\n" + env + `  2. Create the breaker's GitHub App (two minutes; the agent never holds its key):
     Settings > Developer settings > GitHub Apps > New GitHub App, webhook off,
     repository permissions: Checks, Contents, Issues and Pull requests read and
     write; Actions read. Install it on this repository, then:
       gh variable set BREAKER_APP_ID --body <the App's id>
       gh variable set BREAKER_APP_CLIENT_ID --body <the App's client id>
       gh secret set BREAKER_APP_KEY --env breaker < <the App's private key>.pem
` + rest
}

// GateNextSteps is what to do after init --gate.
func GateNextSteps(gate, branch string) string {
	secrets := map[string]string{
		"claude":    "ANTHROPIC_API_KEY",
		"codex":     "OPENAI_API_KEY",
		"openhands": "LLM_API_KEY (and PAT_TOKEN, PAT_USERNAME for the resolver's pushes)",
		"fix-ci":    "ANTHROPIC_API_KEY",
	}[gate]
	return `Next:
  1. Give the repository the agent's secret: ` + secrets + `.
  2. The gate's job uses the environment "breaker" and its LEDGER_KEY, as the
     breaker does (breaker init without --gate writes and explains both).
  3. Commit the file and push it to ` + branch + ` (comment and workflow_run workflows
     run only as the default branch has them).
`
}

// DefaultBranch is origin's HEAD branch in the repository at dir, else the
// branch checked out.
func DefaultBranch(dir string) (string, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: false})
	if err != nil {
		return "", fmt.Errorf("%s is not the root of a git repository (%v): run breaker init there, or pass --dir", dir, err)
	}
	if ref, err := repo.Reference(plumbing.NewRemoteHEADReferenceName("origin"), false); err == nil && ref.Type() == plumbing.SymbolicReference {
		return strings.TrimPrefix(ref.Target().String(), "refs/remotes/origin/"), nil
	}
	head, err := repo.Reference(plumbing.HEAD, false)
	if err == nil && head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
		return head.Target().Short(), nil
	}
	return "", errors.New("cannot tell the default branch (no origin/HEAD, and HEAD is not on a branch): pass --default-branch")
}
