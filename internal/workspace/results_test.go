package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

const passingJUnit = `<testsuite><testcase classname="c" name="t"/></testsuite>`

// writeFiles creates files (path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fileErrors maps each file of rep to its error text ("" when read).
func fileErrors(rep testresult.Report) map[string]string {
	got := map[string]string{}
	for _, f := range rep.Files {
		got[f.Path] = ""
		if f.Err != nil {
			got[f.Path] = f.Err.Error()
		}
	}
	return got
}

func TestWorkspace_ResultsRefuseEscapes(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	writeFiles(t, top, map[string]string{"outside.xml": "<testsuite><testcase name=\"SECRET\"/></testsuite>"})
	writeFiles(t, ws, map[string]string{"out/good.xml": passingJUnit})
	links := map[string]string{
		"out/environ.xml":  "/proc/self/environ",
		"out/up":           "../..",
		"out/outside.xml":  "../../outside.xml",
		"out/dangling.xml": "nowhere.xml",
		"out/inside.xml":   "good.xml",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	rep, err := results(t, ws, []string{"out/**/*.xml", "out/up/outside.xml", filepath.Join(ws, "out", "good.xml")})
	if err != nil {
		t.Fatal(err)
	}
	refused := "refused: the path or a symlink on it leads outside the workspace; not read"
	want := map[string]string{
		"out/good.xml":       "",
		"out/inside.xml":     "",
		"out/environ.xml":    "out/environ.xml: " + refused,
		"out/outside.xml":    "out/outside.xml: " + refused,
		"out/up/outside.xml": "out/up/outside.xml: " + refused,
		"out/dangling.xml":   "out/dangling.xml: no such file (or a symlink to nothing)",
	}
	if diff := cmp.Diff(want, fileErrors(rep)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, tc := range rep.Tests {
		if tc.Name == "SECRET" {
			t.Errorf("read a file outside the workspace")
		}
	}
}

func TestWorkspace_ResultsCaps(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	pad := func(n int) string { return passingJUnit + strings.Repeat(" ", n-len(passingJUnit)) }
	writeFiles(t, ws, map[string]string{"a.xml": pad(90), "b.xml": pad(120), "c.xml": pad(90), "d.xml": pad(60)})
	rep, err := resultsWith(t, ws, []string{"*.xml"}, Limits{MaxFileBytes: 100, MaxTotalBytes: 160})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a.xml": "",
		"b.xml": "b.xml: 120 bytes is over the 100 bytes per-file cap; not read",
		"c.xml": "c.xml: reading its 90 bytes would pass the 160 bytes cap for all result files; not read",
		"d.xml": "",
	}
	if diff := cmp.Diff(want, fileErrors(rep)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantJoined := want["b.xml"] + "\n" + want["c.xml"]
	if err := Unreadable(rep); err == nil || err.Error() != wantJoined {
		t.Errorf("Unreadable: got %v, want %q", err, wantJoined)
	}
}

func TestWorkspace_ResultsNoMatchIsInfra(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"dir.xml/x.txt": "not a result"})
	rep, err := results(t, ws, []string{"**/*.xml"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Infra, "no result files matched **/*.xml"; got != want || len(rep.Files) != 0 {
		t.Errorf("got infra %q and %d files, want %q and none", got, len(rep.Files), want)
	}
}

func results(t *testing.T, dir string, globs []string) (testresult.Report, error) {
	return resultsWith(t, dir, globs, DefaultLimits)
}

func resultsWith(t *testing.T, dir string, globs []string, lim Limits) (testresult.Report, error) {
	t.Helper()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.ResultsWith(globs, lim)
}

// On the command line a file named in full outside the workspace is the
// user's: read, through a root at its own directory, so a symlink there
// that leads elsewhere is still refused. A glob outside stays refused.
func TestWorkspace_NamedFilesAnywhere(t *testing.T) {
	t.Parallel()
	ws, other, third := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, other, map[string]string{"r.xml": passingJUnit})
	writeFiles(t, third, map[string]string{"secret.xml": passingJUnit})
	if err := os.Symlink(filepath.Join(third, "secret.xml"), filepath.Join(other, "link.xml")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Results([]string{filepath.Join(other, "r.xml")}); err == nil {
		t.Fatal("without AllowNamedFilesAnywhere a file outside the workspace was accepted")
	}
	w.AllowNamedFilesAnywhere()
	rep, err := w.Results([]string{filepath.Join(other, "r.xml"), filepath.Join(other, "missing.xml")})
	if err != nil {
		t.Fatal(err)
	}
	errs := fileErrors(rep)
	if errs[filepath.Join(other, "r.xml")] != "" || !strings.Contains(errs[filepath.Join(other, "missing.xml")], "no such file") || len(rep.Tests) != 1 {
		t.Errorf("files %v, %d tests; want r.xml read and missing.xml named missing", errs, len(rep.Tests))
	}
	if _, err := w.Results([]string{filepath.Join(other, "*.xml")}); err == nil {
		t.Error("a glob outside the workspace was accepted")
	}
	rep, _ = w.Results([]string{filepath.Join(other, "link.xml")})
	if got := fileErrors(rep)[filepath.Join(other, "link.xml")]; !strings.Contains(got, "leads outside") || len(rep.Tests) != 0 {
		t.Errorf("a symlink out of the named file's directory: %q, %d tests read; want it refused", got, len(rep.Tests))
	}
}

// SIGTERM while the results are read: the read stops at once and the error
// says which step was interrupted (RELIABILITY 27).
func TestWorkspace_ResultsStopWhenInterrupted(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.xml": passingJUnit})
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = w.ResultsContext(ctx, []string{"a.xml"})
	if err == nil || !strings.Contains(err.Error(), "interrupted while reading the test results") {
		t.Errorf("got %v, want the interrupted step named", err)
	}
}
