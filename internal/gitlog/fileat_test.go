package gitlog

import (
	"errors"
	"strings"
	"testing"
)

// fileAtRepo is a base commit with a graph, a symlink, a large file and a
// directory, and a second commit that changes the graph.
func fileAtRepo(t testing.TB) (r *Repo, base, next string) {
	h := newHistory(t)
	a := h.commit("base", nil,
		write(".greenlight/GRAPH.json", `{"slices": []}`),
		op{"M 120000 inline .greenlight/CONTRACTS.md", "/etc/passwd"},
		write("big.txt", strings.Repeat("x", 5000)),
		write("dir/inner.txt", "inner"))
	b := h.commit("widen", []string{a}, write(".greenlight/GRAPH.json", `{"slices": [{"id": "S-3"}]}`))
	h.ref("refs/heads/main", b)
	marks := h.build()
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return repo, marks[a], marks[b]
}

// FileAt reads a file as the commit has it, never a symlink, a directory
// or a file over the bound; a path the tree lacks is ErrNoFile.
func TestFileAt(t *testing.T) {
	t.Parallel()
	r, base, next := fileAtRepo(t)
	if got, err := r.FileAt(base, ".greenlight/GRAPH.json", 1<<10); err != nil || string(got) != `{"slices": []}` {
		t.Errorf("the base's graph = %q, %v", got, err)
	}
	if got, _ := r.FileAt(next, ".greenlight/GRAPH.json", 1<<10); !strings.Contains(string(got), "S-3") {
		t.Errorf("the next commit's graph = %q", got)
	}
	for name, want := range map[string]string{
		".greenlight/CONTRACTS.md": "not a regular file",
		"dir":                      "not a regular file",
		"big.txt":                  "over the 1024-byte bound",
		"../outside":               "not a path inside the repository",
		"/etc/passwd":              "not a path inside the repository",
	} {
		if _, err := r.FileAt(base, name, 1<<10); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FileAt(%q) error = %v, want it to say %q", name, err, want)
		}
	}
	for _, name := range []string{"missing.json", "dir/missing", "big.txt/below"} {
		if _, err := r.FileAt(base, name, 1<<10); !errors.Is(err, ErrNoFile) {
			t.Errorf("FileAt(%q) error = %v, want ErrNoFile", name, err)
		}
	}
	if mb, err := r.MergeBase(next, base); err != nil || mb != base {
		t.Errorf("MergeBase = %s, %v; want %s", mb, err, base)
	}
}

// FuzzFileAt: a path the agent or a config chose never panics, never reads
// past the bound, and never leaves the tree.
func FuzzFileAt(f *testing.F) {
	r, base, _ := fileAtRepo(f)
	for _, s := range []string{".greenlight/GRAPH.json", "../x", "/", "", ".", "dir/../big.txt", "a\x00b", ".greenlight//GRAPH.json"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		data, err := r.FileAt(base, name, 1<<10)
		if err == nil && len(data) > 1<<10 {
			t.Fatalf("FileAt(%q) read %d bytes past the bound", name, len(data))
		}
	})
}
