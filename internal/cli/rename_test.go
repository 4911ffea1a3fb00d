package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/rename.sh, run on a temporary clone as whoever publishes a copy
// under another owner would: the module path, the actions' author, the
// release owner and the image (lower case) take the new name, nothing names
// the old owner, and the copy builds and vets.
func TestRename_ACopyUnderAnotherOwnerBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a renamed copy of the module")
	}
	t.Parallel()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("not a git checkout (%v)", err)
	}
	dir := t.TempDir()
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	must := func(name string, args ...string) string {
		t.Helper()
		out, err := run(name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}
	if out, err := exec.Command("git", "clone", "-q", "--no-local", root, dir).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	// The working tree's script, committed into the clone so its tree is
	// clean (the script refuses a dirty one).
	script, err := os.ReadFile(filepath.Join(root, "scripts", "rename.sh"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "scripts", "rename.sh"), string(script))
	must("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-am", "the script under test")

	// Refusals first: a malformed name, then a dirty tree.
	if out, err := run("bash", "scripts/rename.sh", "not a repo"); err == nil || !strings.Contains(out, "'not a repo' is not OWNER/REPO") {
		t.Errorf("a malformed name: err %v, output %q", err, out)
	}
	writeFile(t, filepath.Join(dir, "README.md"), "changed\n")
	if out, err := run("bash", "scripts/rename.sh", "Acme/circuit-breaker"); err == nil || !strings.Contains(out, "the work tree has changes") {
		t.Errorf("a dirty tree: err %v, output %q", err, out)
	}
	must("git", "checkout", "-q", "--", "README.md")

	out := must("bash", "scripts/rename.sh", "Acme/circuit-breaker")
	if !strings.Contains(out, "module github.com/Acme/circuit-breaker, image ghcr.io/acme/circuit-breaker") {
		t.Errorf("summary: %q", out)
	}
	if got := must("go", "list", "-m"); got != "github.com/Acme/circuit-breaker" {
		t.Errorf("module path %q", got)
	}
	if left, _ := run("git", "grep", "-n", "-I", "-F", "greenlight-ci", "--", ".", ":!scripts/rename.sh", ":!docs/publishing.md"); left != "" {
		t.Errorf("still names the old owner:\n%s", left)
	}
	for file, want := range map[string]string{
		"action.yml":         "\nauthor: Acme\n",
		"binary/action.yml":  "\nauthor: Acme\n",
		".goreleaser.yaml":   "release:\n  github:\n    owner: Acme\n    name: circuit-breaker\n",
		"scripts/release.sh": `image="${4:-ghcr.io/acme/circuit-breaker}"`,
		"binary/run.sh":      "https://github.com/Acme/circuit-breaker/releases/download",
	} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s does not contain %q", file, want)
		}
	}
	if got := must("gofmt", "-l", "."); got != "" {
		t.Errorf("renamed Go files are not gofmt-clean:\n%s", got)
	}
	must("go", "build", "./...")
	must("go", "vet", "./cmd/...", "./internal/cli/...")
}
