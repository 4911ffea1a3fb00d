package action

import (
	"os"
	"path/filepath"
	"testing"
)

// A go test -json failure names its file alone; GitHub places an
// annotation on the pull request's files only for a repository-relative
// path. Absolute paths under the workspace (Jest) are made relative; a
// path outside it gets no annotation.
func TestAnnotationPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":                      "// the shop\nmodule example.com/shop\n\ngo 1.22\n",
		"internal/auth/login_test.go": "package auth\n",
		"root_test.go":                "package shop\n",
		"web/cart.test.js":            "test()\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := newAnnotationPaths(dir)
	defer p.Close()
	for _, tc := range []struct {
		file, suite, want string
		ok                bool
	}{
		{"login_test.go", "example.com/shop/internal/auth", "internal/auth/login_test.go", true},
		{"root_test.go", "example.com/shop", "root_test.go", true},
		{"login_test.go", "example.com/shopping/internal/auth", "login_test.go", true}, // another module: left as given
		{"missing_test.go", "example.com/shop/internal/auth", "missing_test.go", true},
		{filepath.Join(dir, "web", "cart.test.js"), "cart", "web/cart.test.js", true},
		{"web/./cart.test.js", "", "web/cart.test.js", true},
		{"/etc/passwd", "", "", false},
		{"../outside_test.go", "example.com/shop", "", false},
	} {
		got, ok := p.path(tc.file, tc.suite)
		if got != tc.want || ok != tc.ok {
			t.Errorf("path(%q, %q) = %q, %v; want %q, %v", tc.file, tc.suite, got, ok, tc.want, tc.ok)
		}
	}
}
