package workspace

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// ArtifactLimits bound what Unzip unpacks. The agent's workflow made the
// artifact: every name, mode and size in it is the adversary's.
type ArtifactLimits struct {
	MaxFiles      int   // entries, directories included
	MaxFileBytes  int64 // one file, unpacked
	MaxTotalBytes int64 // all files, unpacked
}

// DefaultArtifactLimits match the caps of result files.
var DefaultArtifactLimits = ArtifactLimits{MaxFiles: 10_000, MaxFileBytes: 64 << 20, MaxTotalBytes: 256 << 20}

// Unzip unpacks the zip archive data (a workflow artifact) into dir, an
// empty scratch directory, and returns the files it wrote, as slash paths
// relative to dir. Every entry is checked before anything is written: a
// name that is absolute or climbs out (../), a symlink or any entry that is
// not a plain file or directory, more entries than MaxFiles, or a size over
// the caps refuses the whole archive with an error naming the entry and the
// limit. Files are then written through an os.Root at dir, never over an
// existing file, and a file whose data runs past the size its header
// claims is an error.
func Unzip(data []byte, dir string, lim ArtifactLimits) ([]string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("artifact: not a zip archive: %w", err)
	}
	if n := len(zr.File); n > lim.MaxFiles {
		return nil, fmt.Errorf("artifact: %d entries, over the limit of %d; not unpacked", n, lim.MaxFiles)
	}
	var total uint64
	for _, f := range zr.File {
		if err := checkEntry(f, lim); err != nil {
			return nil, err
		}
		total += f.UncompressedSize64
		if total > uint64(lim.MaxTotalBytes) {
			return nil, fmt.Errorf("artifact: its files claim more than %s in all; not unpacked", Size(lim.MaxTotalBytes))
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("artifact: open the scratch directory: %w", err)
	}
	defer root.Close()
	var out []string
	for _, f := range zr.File {
		name := path.Clean(f.Name)
		if err := mkdirAll(root, dirOf(f, name)); err != nil {
			return out, fmt.Errorf("artifact: %s: %w", name, err)
		}
		if f.FileInfo().IsDir() {
			continue
		}
		if err := writeEntry(root, f, name); err != nil {
			return out, err
		}
		out = append(out, name)
	}
	return out, nil
}

// checkEntry refuses an entry by its name, mode and claimed size.
func checkEntry(f *zip.File, lim ArtifactLimits) error {
	name := f.Name
	switch {
	case name == "" || strings.ContainsRune(name, 0):
		return errors.New("artifact: an entry has an empty or NUL name; not unpacked")
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || (len(name) > 1 && name[1] == ':'):
		return fmt.Errorf("artifact: entry %q is an absolute path; not unpacked", name)
	case strings.Contains(name, `\`):
		return fmt.Errorf("artifact: entry %q has a backslash in its name; not unpacked", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return fmt.Errorf("artifact: entry %q climbs out of the artifact (..); not unpacked", name)
		}
	}
	mode := f.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return fmt.Errorf("artifact: entry %q is a symlink; not unpacked", name)
	case !mode.IsRegular() && !mode.IsDir():
		return fmt.Errorf("artifact: entry %q is not a plain file (%s); not unpacked", name, mode.Type())
	case f.UncompressedSize64 > uint64(lim.MaxFileBytes):
		return fmt.Errorf("artifact: entry %q claims %s, over the %s per-file cap; not unpacked", name, claimed(f.UncompressedSize64), Size(lim.MaxFileBytes))
	}
	return nil
}

func claimed(n uint64) string {
	if n > 1<<62 {
		return fmt.Sprintf("%d bytes", n)
	}
	return Size(int64(n))
}

// dirOf is the directory an entry needs.
func dirOf(f *zip.File, name string) string {
	if f.FileInfo().IsDir() {
		return name
	}
	return path.Dir(name)
}

// mkdirAll creates dir and its parents inside root.
func mkdirAll(root *os.Root, dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	cur := ""
	for _, part := range strings.Split(dir, "/") {
		cur = path.Join(cur, part)
		if err := root.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// writeEntry writes one file, refusing data past the claimed size.
func writeEntry(root *os.Root, f *zip.File, name string) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("artifact: %s: %w", name, err)
	}
	defer rc.Close()
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("artifact: %s: %w (a duplicate entry?)", name, err)
	}
	n, err := io.Copy(out, io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fmt.Errorf("artifact: %s: %w", name, err)
	case uint64(n) > f.UncompressedSize64:
		return fmt.Errorf("artifact: %s: its data runs past the %d bytes its header claims; not unpacked", name, f.UncompressedSize64)
	}
	return nil
}
