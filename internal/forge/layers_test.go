package forge_test

import (
	"os/exec"
	"strings"
	"testing"
)

// deps lists the packages pkg depends on, as the go command resolves them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// The layers (issue 31): forge imports only the standard library; the
// GitHub adapter depends on forge, never on the use cases (internal/action)
// nor, through them, on the git reader (go-git).
func TestLayers_ForgeIsALeafAndTheAdapterReadsNoGit(t *testing.T) {
	t.Parallel()
	for _, d := range deps(t, "github.com/greenlight-ci/breaker/internal/forge") {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && d != "github.com/greenlight-ci/breaker/internal/forge" {
			t.Errorf("internal/forge depends on %s: it may import only the standard library", d)
		}
	}
	for _, d := range deps(t, "github.com/greenlight-ci/breaker/internal/ghapi") {
		if strings.HasPrefix(d, "github.com/go-git/") || strings.HasSuffix(d, "/internal/action") || strings.HasSuffix(d, "/internal/evaluate") {
			t.Errorf("internal/ghapi depends on %s: the adapter implements forge's ports and reads no git", d)
		}
	}
}
