package cli

import (
	"path/filepath"
	"testing"

	"github.com/greenlight-ci/breaker/internal/golden"
)

// matchGolden compares got with testdata/<name>, rewriting it under -update.
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Match(t, filepath.Join("testdata", name), got)
}
