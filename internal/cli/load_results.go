package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// resultLimits caps what loadResults reads.
type resultLimits struct {
	MaxFileBytes  int64 // one file
	MaxTotalBytes int64 // all files together
}

// defaultResultLimits are the caps `results`, `evaluate` and `action` use.
var defaultResultLimits = resultLimits{MaxFileBytes: 64 << 20, MaxTotalBytes: 256 << 20}

// loadResults reads the test result files that globs match inside workspace
// and merges them into a report. It is the only place result files are
// opened: globs (with **, relative to workspace, or absolute inside it) are
// resolved and every file is opened through an os.Root at workspace, so a
// path or symlink leading outside it is refused before a byte is read. Each
// file is capped (64 MiB, and 256 MiB for all of them); a file that cannot
// be read is an error in Report.Files naming it, and the other files are
// still read. No file matched is Report.Infra, not an error. The error is
// for a workspace that cannot be opened or a glob that is invalid or leaves
// the workspace.
func loadResults(workspace string, globs []string) (testresult.Report, error) {
	return loadResultsWith(workspace, globs, defaultResultLimits)
}

func loadResultsWith(workspace string, globs []string, lim resultLimits) (testresult.Report, error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return testresult.Report{}, fmt.Errorf("opening the workspace: %w", err)
	}
	defer root.Close()
	paths, err := matchGlobs(root, workspace, globs)
	if err != nil {
		return testresult.Report{}, err
	}
	files := make([]testresult.File, 0, len(paths))
	var total int64
	for _, p := range paths {
		if f, ok := readResultFile(root, p, lim, &total); ok {
			files = append(files, f)
		}
	}
	return testresult.Merge(files, globs), nil
}

// errNoSuchFile is a named result file that does not exist: the tests did
// not write it, which the report counts as infra, not as a broken file.
var errNoSuchFile = errors.New("no such file (or a symlink to nothing)")

// unreadableResults joins the errors of the result files that could not
// be read (each names its file); nil when every file was read. Callers that
// must fail closed on a broken file (evaluate, action) return it.
func unreadableResults(rep testresult.Report) error { return resultErrors(rep, true) }

// brokenResults is unreadableResults without the missing files: for the
// engine a missing file means the tests did not write it, which is infra
// when no other file has tests.
func brokenResults(rep testresult.Report) error { return resultErrors(rep, false) }

func resultErrors(rep testresult.Report, strict bool) error {
	var errs []error
	for _, f := range rep.Files {
		if f.Err != nil && (strict || !errors.Is(f.Err, errNoSuchFile)) {
			errs = append(errs, f.Err)
		}
	}
	return errors.Join(errs...)
}

// matchGlobs resolves globs to workspace-relative slash paths, sorted and
// without duplicates. A glob without wildcards names its file even when the
// file is missing, so that the miss is reported.
func matchGlobs(root *os.Root, workspace string, globs []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, g := range globs {
		pat, err := relativeGlob(workspace, g)
		if err != nil {
			return nil, err
		}
		matches := []string{pat}
		if strings.ContainsAny(pat, `*?[{\`) {
			matches, err = doublestar.Glob(root.FS(), pat)
			if err != nil {
				return nil, fmt.Errorf("result glob %q: %w", g, err)
			}
		}
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// relativeGlob makes g a clean slash pattern relative to workspace.
func relativeGlob(workspace, g string) (string, error) {
	pat := g
	if filepath.IsAbs(g) {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return "", fmt.Errorf("result glob %q: %w", g, err)
		}
		if pat, err = filepath.Rel(abs, g); err != nil {
			return "", fmt.Errorf("result glob %q is outside the workspace %s", g, workspace)
		}
	}
	pat = path.Clean(filepath.ToSlash(pat))
	switch {
	case g == "":
		return "", errors.New("empty result glob")
	case pat == ".." || strings.HasPrefix(pat, "../"):
		return "", fmt.Errorf("result glob %q is outside the workspace %s", g, workspace)
	case !doublestar.ValidatePattern(pat):
		return "", fmt.Errorf("result glob %q is not a valid pattern", g)
	}
	return pat, nil
}

// readResultFile reads and parses one file. ok is false for a directory a
// glob matched, which is not a result file and not an error.
func readResultFile(root *os.Root, p string, lim resultLimits, total *int64) (f testresult.File, ok bool) {
	f.Path = p
	fi, err := statInside(root, p)
	switch {
	case err != nil:
		f.Err = err
		return f, true
	case fi.IsDir():
		return f, false
	case !fi.Mode().IsRegular():
		f.Err = fmt.Errorf("%s: not a regular file (%s); not read", p, fi.Mode().Type())
		return f, true
	case fi.Size() > lim.MaxFileBytes:
		f.Err = fmt.Errorf("%s: %s is over the %s per-file cap; not read", p, size(fi.Size()), size(lim.MaxFileBytes))
		return f, true
	case *total+fi.Size() > lim.MaxTotalBytes:
		f.Err = fmt.Errorf("%s: reading its %s would pass the %s cap for all result files; not read", p, size(fi.Size()), size(lim.MaxTotalBytes))
		return f, true
	}
	f.Result, f.Err = parseInside(root, p, lim, total)
	return f, true
}

// statInside stats p inside root, following symlinks only within it.
func statInside(root *os.Root, p string) (fs.FileInfo, error) {
	fi, err := root.Lstat(p)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		fi, err = root.Stat(p)
	}
	switch {
	case err == nil:
		return fi, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", p, errNoSuchFile)
	case strings.Contains(err.Error(), "escapes"):
		return nil, fmt.Errorf("%s: refused: the path or a symlink on it leads outside the workspace; not read", p)
	}
	return nil, fmt.Errorf("%s: %w", p, err)
}

func parseInside(root *os.Root, p string, lim resultLimits, total *int64) (*testresult.Result, error) {
	fh, err := root.Open(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer fh.Close()
	lr := &io.LimitedReader{R: fh, N: lim.MaxFileBytes + 1}
	res, err := testresult.Parse(lr, testresult.FormatAuto)
	*total += lim.MaxFileBytes + 1 - lr.N
	if lr.N == 0 {
		return nil, fmt.Errorf("%s: grew over the %s per-file cap while read", p, size(lim.MaxFileBytes))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return res, nil
}

// size words a byte count for a person.
func size(n int64) string {
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
