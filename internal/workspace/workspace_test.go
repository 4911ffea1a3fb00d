package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func openWS(t *testing.T, dir string) *Workspace {
	t.Helper()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// TestWorkspace_ReadFileRefusesWhatLeadsOutside commits the symlinks an agent
// would: GRAPH.json to the process environment, to /dev/zero, to a secret
// beside the workspace. Each is refused with an error naming the file, and
// nothing outside is read.
func TestWorkspace_ReadFileRefusesWhatLeadsOutside(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	writeFiles(t, top, map[string]string{"secret.txt": "SECRET"})
	writeFiles(t, ws, map[string]string{"in.json": `{"ok":true}`})
	symlink(t, "/proc/self/environ", filepath.Join(ws, ".greenlight/GRAPH.json"))
	symlink(t, "/dev/zero", filepath.Join(ws, "zero/GRAPH.json"))
	symlink(t, "../../secret.txt", filepath.Join(ws, "up/CONTRACTS.md"))
	symlink(t, "../in.json", filepath.Join(ws, "inside/GRAPH.json"))
	w := openWS(t, ws)
	for _, name := range []string{".greenlight/GRAPH.json", "zero/GRAPH.json", "up/CONTRACTS.md", "../secret.txt", filepath.Join(top, "secret.txt")} {
		data, err := w.ReadFile(name, MaxGraphBytes)
		if !errors.Is(err, ErrEscapes) {
			t.Errorf("ReadFile(%q) error = %v, want ErrEscapes", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "leads outside the workspace") {
			t.Errorf("ReadFile(%q) error %q does not say why", name, err)
		}
		if len(data) != 0 {
			t.Errorf("ReadFile(%q) read %q from outside", name, data)
		}
	}
	got, err := w.ReadFile("inside/GRAPH.json", MaxGraphBytes)
	if err != nil || string(got) != `{"ok":true}` {
		t.Errorf("a symlink inside the workspace: got %q, %v; want it read", got, err)
	}
}

// TestWorkspace_ReadFileCapsSize refuses a 1 GiB GRAPH.json (sparse: no disk
// used) from its size, without reading it.
func TestWorkspace_ReadFileCapsSize(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	big := filepath.Join(ws, "GRAPH.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = openWS(t, ws).ReadFile("GRAPH.json", MaxGraphBytes)
	if want := "GRAPH.json: 1024 MiB is over the 8 MiB cap; not read"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestWorkspace_ReadFileRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.json"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	writeFiles(t, ws, map[string]string{"dir/x": ""})
	w := openWS(t, ws)
	for name, want := range map[string]string{
		"fifo.json": "fifo.json: not a regular file (a named pipe); not read",
		"dir":       "dir: not a regular file (a directory); not read",
		"none.json": "none.json: no such file (or a symlink to nothing)",
	} {
		if _, err := w.ReadFile(name, 100); err == nil || err.Error() != want {
			t.Errorf("ReadFile(%q) = %v, want %q", name, err, want)
		}
	}
}

// TestWorkspace_WriteFileNeverWritesThroughASymlink: an agent commits
// breaker-report.json as a symlink to a file outside (or inside) the
// workspace; the write is refused and the target is untouched.
func TestWorkspace_WriteFileNeverWritesThroughASymlink(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	writeFiles(t, top, map[string]string{"victim": "original"})
	writeFiles(t, ws, map[string]string{"inner": "inner"})
	symlink(t, "../victim", filepath.Join(ws, "breaker-report.json"))
	symlink(t, "inner", filepath.Join(ws, "alias.json"))
	symlink(t, "..", filepath.Join(ws, "up"))
	w := openWS(t, ws)
	for _, name := range []string{"breaker-report.json", "alias.json", "up/victim", "../victim"} {
		if err := w.WriteFile(name, []byte("PWNED")); err == nil {
			t.Errorf("WriteFile(%q) = nil, want a refusal", name)
		} else if !strings.Contains(err.Error(), "not written") && !errors.Is(err, ErrEscapes) {
			t.Errorf("WriteFile(%q) = %v, want it to say nothing was written", name, err)
		}
	}
	for path, want := range map[string]string{filepath.Join(top, "victim"): "original", filepath.Join(ws, "inner"): "inner"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if err := w.WriteFile("report.json", []byte("{}")); err != nil {
		t.Fatalf("a plain write: %v", err)
	}
	if err := w.WriteFile("report.json", []byte("[]")); err != nil {
		t.Fatalf("a rewrite: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "report.json")); string(got) != "[]" {
		t.Errorf("report.json = %q, want []", got)
	}
}

func TestWorkspace_RelIsRelativeToTheWorkspace(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	w := openWS(t, ws)
	for in, want := range map[string]string{
		".greenlight/GRAPH.json":              ".greenlight/GRAPH.json",
		"./a/../b.xml":                        "b.xml",
		filepath.Join(ws, "x", "GRAPH.json"):  "x/GRAPH.json",
		"../GRAPH.json":                       "",
		"/etc/passwd":                         "",
		filepath.Join(ws, "..", "GRAPH.json"): "",
	} {
		got, err := w.Rel(in)
		if want == "" {
			if !errors.Is(err, ErrEscapes) {
				t.Errorf("Rel(%q) = %q, %v; want ErrEscapes", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
