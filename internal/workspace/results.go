package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// Limits caps what Results reads.
type Limits struct {
	MaxFileBytes  int64 // one file
	MaxTotalBytes int64 // all files together
}

// DefaultLimits are the caps `results`, `evaluate` and `action` use.
var DefaultLimits = Limits{MaxFileBytes: 64 << 20, MaxTotalBytes: 256 << 20}

// ResultsContext is Results that stops as soon as ctx ends (SIGTERM): a
// file being read gives up at its next read, and the error says the
// reading of the results was interrupted.
func (w *Workspace) ResultsContext(ctx context.Context, globs []string) (testresult.Report, error) {
	w.ctx = ctx
	defer func() { w.ctx = nil }()
	rep, err := w.ResultsWith(globs, DefaultLimits)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted while reading the test results: %w", ctx.Err())
	}
	return rep, err
}

// Results reads the test result files that globs match inside the workspace
// and merges them into a report. Globs (with **, relative to the workspace,
// or absolute inside it) are resolved and every file is opened through the
// workspace's root, so a path or symlink leading outside it is refused
// before a byte is read. Each file is capped (DefaultLimits); a file that
// cannot be read is an error in Report.Files naming it, and the other files
// are still read. No file matched is Report.Infra, not an error. The error
// is for a glob that is invalid or leaves the workspace.
func (w *Workspace) Results(globs []string) (testresult.Report, error) {
	return w.ResultsWith(globs, DefaultLimits)
}

// ResultsWith is Results with other caps.
func (w *Workspace) ResultsWith(globs []string, lim Limits) (testresult.Report, error) {
	paths, err := w.matchGlobs(globs)
	if err != nil {
		return testresult.Report{}, err
	}
	files := make([]testresult.File, 0, len(paths))
	var total int64
	for _, p := range paths {
		if f, ok := w.readResultFile(p, lim, &total); ok {
			files = append(files, f)
		}
	}
	for _, p := range w.outside {
		files = append(files, readOutside(p, lim, &total))
	}
	w.outside = nil
	return testresult.Merge(files, globs), nil
}

// AllowNamedFilesAnywhere lets a result file named in full (no wildcard)
// lie outside the workspace: on the command line the user names their own
// files. It is still opened through an os.Root at its own directory, so a
// symlink there that leads elsewhere is refused. The Action never calls
// it: its inputs are the agent's.
func (w *Workspace) AllowNamedFilesAnywhere() { w.namedAnywhere = true }

// readOutside reads a file named outside the workspace, through a root at
// its directory.
func readOutside(abs string, lim Limits, total *int64) testresult.File {
	dw, err := Open(filepath.Dir(abs))
	if err != nil {
		return testresult.File{Path: abs, Err: fmt.Errorf("%s: %w", abs, err)}
	}
	defer dw.Close()
	base := filepath.Base(abs)
	f, _ := dw.readResultFile(base, lim, total)
	f.Path = abs
	if f.Err != nil {
		f.Err = &renamed{msg: abs + strings.TrimPrefix(f.Err.Error(), base), err: f.Err}
	}
	return f
}

// renamed is an error whose text names the file by another path; errors.Is
// still sees the original chain.
type renamed struct {
	msg string
	err error
}

func (e *renamed) Error() string { return e.msg }
func (e *renamed) Unwrap() error { return e.err }

// Unreadable joins the errors of the result files that could not be read
// (each names its file); nil when every file was read.
func Unreadable(rep testresult.Report) error { return resultErrors(rep, true) }

// Broken is Unreadable without the missing files: for the engine a missing
// file means the tests did not write it, which is infra when no other file
// has tests. Callers that must fail closed on a broken file (evaluate,
// action) return it.
func Broken(rep testresult.Report) error { return resultErrors(rep, false) }

func resultErrors(rep testresult.Report, strict bool) error {
	var errs []error
	for _, f := range rep.Files {
		if f.Err != nil && (strict || !errors.Is(f.Err, ErrNotExist)) {
			errs = append(errs, f.Err)
		}
	}
	return errors.Join(errs...)
}

// matchGlobs resolves globs to workspace-relative slash paths, sorted and
// without duplicates. A glob without wildcards names its file even when the
// file is missing, so that the miss is reported.
func (w *Workspace) matchGlobs(globs []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, g := range globs {
		pat, err := w.relativeGlob(g)
		if errors.Is(err, ErrEscapes) && w.namedAnywhere && !strings.ContainsAny(g, `*?[{\`) {
			abs, aerr := filepath.Abs(g)
			if aerr != nil {
				return nil, aerr
			}
			w.outside = append(w.outside, abs)
			continue
		}
		if err != nil {
			return nil, err
		}
		matches := []string{pat}
		if strings.ContainsAny(pat, `*?[{\`) {
			matches, err = doublestar.Glob(w.root.FS(), pat)
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

// relativeGlob makes g a clean slash pattern relative to the workspace.
func (w *Workspace) relativeGlob(g string) (string, error) {
	if g == "" {
		return "", errors.New("empty result glob")
	}
	pat, err := w.Rel(g)
	if err != nil {
		return "", fmt.Errorf("result glob %q is outside the workspace %s: %w; name files inside it", g, w.dir, ErrEscapes)
	}
	if !doublestar.ValidatePattern(pat) {
		return "", fmt.Errorf("result glob %q is not a valid pattern", g)
	}
	return pat, nil
}

// readResultFile reads and parses one file. ok is false for a directory a
// glob matched, which is not a result file and not an error.
func (w *Workspace) readResultFile(p string, lim Limits, total *int64) (f testresult.File, ok bool) {
	f.Path = p
	fi, err := w.Stat(p)
	switch {
	case err != nil:
		f.Err = err
		return f, true
	case fi.IsDir():
		return f, false
	case !fi.Mode().IsRegular():
		f.Err = fmt.Errorf("%s: not a regular file (%s); not read", p, fileKind(fi))
		return f, true
	case fi.Size() > lim.MaxFileBytes:
		f.Err = fmt.Errorf("%s: %s is over the %s per-file cap; not read", p, Size(fi.Size()), Size(lim.MaxFileBytes))
		return f, true
	case *total+fi.Size() > lim.MaxTotalBytes:
		f.Err = fmt.Errorf("%s: reading its %s would pass the %s cap for all result files; not read", p, Size(fi.Size()), Size(lim.MaxTotalBytes))
		return f, true
	}
	fh, err := w.root.Open(p)
	if err != nil {
		f.Err = pathError(p, err, "read")
		return f, true
	}
	defer fh.Close()
	var src io.Reader = fh
	if w.ctx != nil {
		src = ctxReader{ctx: w.ctx, r: fh}
	}
	lr := &io.LimitedReader{R: src, N: lim.MaxFileBytes + 1}
	f.Result, err = testresult.Parse(lr, testresult.FormatAuto)
	*total += lim.MaxFileBytes + 1 - lr.N
	switch {
	case lr.N == 0:
		f.Result, f.Err = nil, fmt.Errorf("%s: grew over the %s per-file cap while read", p, Size(lim.MaxFileBytes))
	case err != nil:
		f.Result, f.Err = nil, fmt.Errorf("%s: %w", p, err)
	}
	return f, true
}

// ctxReader stops reading once its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
