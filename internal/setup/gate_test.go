package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/gate.md shows every recipe as init --gate writes it, byte for byte
// (the breaker as init's placeholder); each is lint-clean, gates in a job
// of its own that holds the key, and the agent's job needs it.
func TestGate_TheDocsShowWhatInitWrites(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "gate.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := repoDir(t, map[string]string{"go.mod": "module x\n",
		".github/workflows/tests.yml": "name: Tests\non: pull_request\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: go test ./...\n"})
	for _, name := range GateNames {
		plan, err := Gate(os.DirFS(dir), name, Options{Agent: "other", DefaultBranch: "main", Uses: joinUses})
		if err != nil {
			t.Fatal(err)
		}
		f := plan.Files[0]
		if f.Path != ".github/workflows/"+name+".yml" {
			t.Errorf("%s: writes %s", name, f.Path)
		}
		lint(t, dir, f)
		for _, want := range []string{"  gate:\n", "environment: breaker", "ledger-key: ${{ secrets.LEDGER_KEY }}", "needs: gate", "mode: gate"} {
			if !strings.Contains(f.Content, want) {
				t.Errorf("%s: lacks %q", name, want)
			}
		}
		agentJob := f.Content[strings.Index(f.Content, "needs: gate"):]
		if strings.Contains(agentJob, "secrets.LEDGER_KEY") {
			t.Errorf("%s: the agent's job holds the ledger key", name)
		}
		switch name {
		case "fix-ci":
			if !strings.Contains(f.Content, `workflows: ["Tests"]`) {
				t.Errorf("fix-ci does not follow the repository's test workflow:\n%s", f.Content)
			}
		case "openhands":
			if !strings.Contains(f.Content, `target_branch: "main"`) || strings.Contains(f.Content, "github.event.issue.pull_request") {
				t.Errorf("openhands: want the default branch passed and issue comments gated:\n%s", f.Content)
			}
		case "codex":
			if !strings.Contains(f.Content, `git push origin "HEAD:refs/heads/$REF"`) {
				t.Errorf("codex does not push its change:\n%s", f.Content)
			}
		}
		shown := "```yaml\n" + strings.ReplaceAll(f.Content, joinUses, PlaceholderUses) + "```\n"
		if name == "fix-ci" {
			shown = strings.Replace(shown, `workflows: ["Tests"]`, `workflows: ["agent CI"]`, 1)
		}
		if !strings.Contains(string(doc), shown) {
			t.Errorf("docs/gate.md does not show %s.yml as init --gate %s writes it:\n%s", name, name, shown)
		}
	}
}
