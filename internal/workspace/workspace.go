package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The caps of the small files the breaker reads from the workspace.
const (
	MaxGraphBytes     = 8 << 20 // .greenlight/GRAPH.json
	MaxContractsBytes = 4 << 20 // CONTRACTS.md beside it
)

// ErrNotExist is wrapped by the errors for a file that is not there (or a
// symlink to nothing inside the workspace).
var ErrNotExist = errors.New("no such file (or a symlink to nothing)")

// ErrEscapes is wrapped by the errors for a path, or a symlink on it, that
// leads outside the workspace.
var ErrEscapes = errors.New("the path or a symlink on it leads outside the workspace")

// Workspace is an open workspace directory. Close it when done.
type Workspace struct {
	dir           string
	root          *os.Root
	namedAnywhere bool     // AllowNamedFilesAnywhere
	outside       []string // named files outside the workspace, for the current read
	ctx           context.Context
}

// Open opens the workspace at dir.
func Open(dir string) (*Workspace, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the workspace %s: %w", dir, err)
	}
	return &Workspace{dir: dir, root: root}, nil
}

// Close releases the workspace.
func (w *Workspace) Close() error { return w.root.Close() }

// Dir is the directory the workspace was opened at.
func (w *Workspace) Dir() string { return w.dir }

// Rel turns name into a clean slash path relative to the workspace. A
// relative name is taken relative to the workspace (never to the process's
// directory); an absolute one must lie inside it. A name that leaves the
// workspace (../x, /etc/passwd) is an error wrapping ErrEscapes.
func (w *Workspace) Rel(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty path")
	}
	rel := name
	if filepath.IsAbs(name) {
		abs, err := filepath.Abs(w.dir)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if rel, err = filepath.Rel(abs, name); err != nil {
			return "", fmt.Errorf("%s: %w", name, ErrEscapes)
		}
	}
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", fmt.Errorf("%s: %w", name, ErrEscapes)
	}
	return rel, nil
}

// Stat describes name inside the workspace, following symlinks only while
// they stay inside it.
func (w *Workspace) Stat(name string) (fs.FileInfo, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Lstat(rel)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		fi, err = w.root.Stat(rel)
	}
	if err != nil {
		return nil, pathError(rel, err, "read")
	}
	return fi, nil
}

// ReadFile reads the regular file name inside the workspace, at most max
// bytes: a larger file is refused from its size before it is read, and a
// file that grows past max while read is refused too.
func (w *Workspace) ReadFile(name string, max int64) ([]byte, error) {
	f, rel, err := w.openRegular(name, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: grew over the %s cap while read; not read", rel, Size(max))
	}
	return data, nil
}

// openRegular opens name for reading after checking that it is a regular
// file of at most max bytes inside the workspace.
func (w *Workspace) openRegular(name string, max int64) (*os.File, string, error) {
	rel, err := w.Rel(name)
	if err != nil {
		return nil, "", err
	}
	fi, err := w.Stat(rel)
	switch {
	case err != nil:
		return nil, rel, err
	case !fi.Mode().IsRegular():
		return nil, rel, fmt.Errorf("%s: not a regular file (%s); not read", rel, fileKind(fi))
	case fi.Size() > max:
		return nil, rel, fmt.Errorf("%s: %s is over the %s cap; not read", rel, Size(fi.Size()), Size(max))
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, rel, pathError(rel, err, "read")
	}
	return f, rel, nil
}

// WriteFile writes data to name inside the workspace, replacing a regular
// file. A symlink at name is refused, wherever it leads: the agent may have
// committed it to have the breaker write through it.
func (w *Workspace) WriteFile(name string, data []byte) error {
	rel, err := w.Rel(name)
	if err != nil {
		return err
	}
	fi, err := w.root.Lstat(rel)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: refused: it is a symlink, and the breaker never writes through one; not written", rel)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%s: refused: not a regular file (%s); not written", rel, fileKind(fi))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return pathError(rel, err, "written")
	}
	f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return pathError(rel, err, "written")
	}
	_, werr := f.Write(data)
	return errors.Join(wrapPath(rel, werr), wrapPath(rel, f.Close()))
}

// pathError words an error of the os.Root for rel; what is "read" or
// "written".
func pathError(rel string, err error, what string) error {
	switch {
	case strings.Contains(err.Error(), "escapes"):
		return fmt.Errorf("%s: refused: %w; not %s", rel, ErrEscapes, what)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", rel, ErrNotExist)
	}
	return fmt.Errorf("%s: %w", rel, err)
}

func wrapPath(rel string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", rel, err)
}

// fileKind names the type of a file that is not regular.
func fileKind(fi fs.FileInfo) string {
	switch t := fi.Mode().Type(); {
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t&fs.ModeSocket != 0:
		return "a socket"
	default:
		return t.String()
	}
}

// Size words a byte count for a person.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
