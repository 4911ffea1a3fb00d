// Package golden is the tests' one home for golden files: one -update flag
// for every package's tests (go test ./... -update rewrites them all), and
// one comparison. Only tests import it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests compare against")

// Updating reports whether the test run was given -update.
func Updating() bool { return *update }

// Match compares got with the file at path, rewriting it first under
// -update.
func Match(t testing.TB, path, got string) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from the golden file (-golden +got):\n%s", path, diff)
	}
}
