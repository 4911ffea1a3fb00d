package action

import (
	"path"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/greenlight-ci/breaker/internal/workspace"
)

// maxGoMod caps the go.mod read to find the module path.
const maxGoMod = 1 << 20

// annotationPaths makes the file of a failing test one GitHub can place on
// the pull request's files: a path relative to the repository root.
// GitHub shows an annotation on a file only for such a path; runners give
// others: go test -json names the file alone ("login_test.go"), joined
// here with its package's directory found from the module path in go.mod;
// Jest and others give absolute paths under the workspace.
type annotationPaths struct {
	ws     *workspace.Workspace // nil when the workspace cannot be opened
	module string               // the root go.mod's module path, "" when none
}

func newAnnotationPaths(dir string) *annotationPaths {
	p := &annotationPaths{}
	ws, err := workspace.Open(dir)
	if err != nil {
		return p
	}
	p.ws = ws
	if data, err := ws.ReadFile("go.mod", maxGoMod); err == nil {
		p.module = modfile.ModulePath(data)
	}
	return p
}

func (p *annotationPaths) Close() {
	if p.ws != nil {
		p.ws.Close()
	}
}

// path returns file (of a test in suite, the Go package for go test) as
// a repository-relative slash path; ok is false when the file lies
// outside the workspace.
func (p *annotationPaths) path(file, suite string) (string, bool) {
	if p.ws == nil {
		return file, !path.IsAbs(file)
	}
	rel, err := p.ws.Rel(file)
	if err != nil {
		return "", false
	}
	if strings.Contains(rel, "/") || p.module == "" {
		return rel, true
	}
	// A bare file name of a Go package of this module: in the package's
	// directory, when that file is there.
	if dir, ok := strings.CutPrefix(suite, p.module); ok && (dir == "" || strings.HasPrefix(dir, "/")) {
		joined := path.Join(strings.TrimPrefix(dir, "/"), rel)
		if _, err := p.ws.Stat(joined); err == nil {
			return joined, true
		}
	}
	return rel, true
}
