package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The release script, run on a temporary clone with a fake digest: vX.Y.Z
// and vX both point at a commit, on no branch, whose action.yml runs the
// prebuilt image by digest and whose binary/release.env holds the six
// archives' sums; the branch is untouched.
func TestRelease_TagsACommitThatRunsThePrebuiltImage(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("not a git checkout (%v)", err)
	}
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "clone", "-q", "--no-local", root, dir).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	// The release script of the working tree, as it is now (the clone has
	// the last commit's).
	script, err := os.ReadFile(filepath.Join(root, "scripts", "release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(t.TempDir(), "release.sh")
	writeFile(t, scriptPath, string(script))
	before := run("git", "rev-parse", "HEAD")
	branch := run("git", "rev-parse", "--abbrev-ref", "HEAD")
	var sums strings.Builder
	for _, p := range []string{"linux_amd64.tar.gz", "linux_arm64.tar.gz", "darwin_amd64.tar.gz", "darwin_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		fmt.Fprintf(&sums, "%064x  breaker_1.4.0_%s\n", len(p), p)
	}
	checksums := filepath.Join(t.TempDir(), "checksums.txt")
	writeFile(t, checksums, sums.String())
	digest := "sha256:" + strings.Repeat("ab", 32)
	commit := run("bash", scriptPath, "1.4.0", digest, checksums, "ghcr.io/acme/breaker")
	if got := run("git", "rev-parse", "v1.4.0^{commit}"); got != commit {
		t.Errorf("v1.4.0 is %s, want the release commit %s", got, commit)
	}
	if got := run("git", "rev-parse", "v1^{commit}"); got != commit {
		t.Errorf("v1 is %s, want the release commit %s", got, commit)
	}
	action := run("git", "show", commit+":action.yml")
	if !strings.Contains(action, "  image: docker://ghcr.io/acme/breaker@"+digest) || strings.Contains(action, "image: Dockerfile") {
		t.Errorf("the release commit's action.yml does not run the image by digest:\n%s", action)
	}
	env := run("git", "show", commit+":binary/release.env")
	if !strings.Contains(env, "BREAKER_VERSION=1.4.0") || strings.Count(env, "BREAKER_SHA256_") != 6 {
		t.Errorf("release.env lacks the version or the six sums:\n%s", env)
	}
	if branch != "HEAD" {
		if got := run("git", "rev-parse", "refs/heads/"+branch); got != before {
			t.Errorf("the branch %s moved to %s", branch, got)
		}
	}
	if branches := run("git", "branch", "--contains", commit); strings.TrimSpace(strings.ReplaceAll(branches, "* (HEAD detached at "+commit[:7]+")", "")) != "" && !strings.Contains(branches, "detached") {
		t.Errorf("the release commit is on a branch: %s", branches)
	}
	// A sum missing is refused, and nothing is tagged.
	writeFile(t, checksums, strings.SplitN(sums.String(), "\n", 2)[1])
	cmd := exec.Command("bash", scriptPath, "1.4.1", digest, checksums)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no SHA-256 for breaker_1.4.1_linux_amd64.tar.gz") {
		t.Errorf("a release without every sum: %v\n%s", err, out)
	}
}

// No release path tags a commit that builds the Dockerfile: the release
// workflow makes its tags only through scripts/release.sh, which refuses
// an action.yml that would; the root action.yml on main builds it (CI tests
// the current code) and is never tagged as is.
func TestRelease_WorkflowTagsOnlyThroughTheScript(t *testing.T) {
	t.Parallel()
	wf, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(wf)
	if !strings.Contains(s, "scripts/release.sh") {
		t.Errorf("release.yml does not make the release commit with scripts/release.sh")
	}
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "#") {
			continue
		}
		if strings.Contains(l, "git tag") || strings.Contains(l, "sed -i") {
			t.Errorf("release.yml tags or edits action.yml itself: %q", l)
		}
	}
	if !strings.Contains(s, "tags:") || strings.Contains(s, "on:\n  push:\n    tags:") {
		// Triggered by a pushed vX.Y.Z tag, the tag would already point at a
		// commit that builds the Dockerfile.
		if strings.Contains(s, "on:\n  push:\n    tags:") {
			t.Errorf("release.yml runs on a pushed tag: that tag points at a commit that builds the Dockerfile")
		}
	}
	if !strings.Contains(s, "uses: ./.github/workflows/ci.yml") {
		t.Errorf("release.yml does not run the test suite (workflow_call of CI) first")
	}
}
