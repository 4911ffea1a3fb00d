package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/config"
	cfgformat "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// maxSmallFile caps what is read of the small files that describe a
// repository's layout (.git file, commondir, config): the agent's test code
// can write them when it runs in the breaker's job.
const maxSmallFile = 1 << 20

// ErrUnsupportedFormat reports a repository whose format the reader does
// not read: SHA-256 objects, reftable refs, or an extension it does not know.
var ErrUnsupportedFormat = errors.New("unsupported repository format")

// layout is where a repository's files are: the .git directory of the
// working tree (a linked worktree's own directory) and the common
// directory holding objects, refs and config (the same for a main checkout).
type layout struct {
	gitDir, commonDir string
	// workTree is the top of the working tree (where .git was found); ""
	// for a bare repository.
	workTree string
}

// findLayout looks for the repository containing dir upwards, as git does:
// a .git directory, a .git file naming one ("gitdir: …", as submodules and
// linked worktrees have), or dir itself when it is a bare repository.
func findLayout(dir string) (layout, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return layout{}, err
	}
	for at := dir; ; {
		if l, ok, err := layoutAt(at); ok || err != nil {
			if _, serr := os.Lstat(filepath.Join(at, ".git")); serr == nil {
				l.workTree = at
			}
			return l, err
		}
		parent := filepath.Dir(at)
		if parent == at {
			return layout{}, fmt.Errorf("no .git directory in %s or any parent: check out the repository first (actions/checkout) or pass --repo", dir)
		}
		at = parent
	}
}

// layoutAt reports the repository at dir, if dir holds one.
func layoutAt(dir string) (layout, bool, error) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err == nil && fi.IsDir():
		l, err := withCommonDir(dotgit)
		return l, true, err
	case err == nil:
		target, err := readSmall(dotgit)
		if err != nil {
			return layout{}, true, err
		}
		line, _, _ := strings.Cut(string(target), "\n")
		path, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return layout{}, true, fmt.Errorf("%s: a .git file must read \"gitdir: <path>\"", dotgit)
		}
		path = strings.TrimSpace(path)
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		l, err := withCommonDir(path)
		return l, true, err
	case !errors.Is(err, os.ErrNotExist):
		return layout{}, true, err
	}
	if isGitDir(dir) { // a bare repository
		l, err := withCommonDir(dir)
		return l, true, err
	}
	return layout{}, false, nil
}

// isGitDir reports whether dir looks like a .git directory.
func isGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// withCommonDir completes the layout of gitDir, following its commondir
// file (a linked worktree's).
func withCommonDir(gitDir string) (layout, error) {
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return layout{}, fmt.Errorf("git directory %s does not exist or is not a directory", gitDir)
	}
	l := layout{gitDir: gitDir, commonDir: gitDir}
	b, err := readSmall(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return layout{}, err
	}
	common := strings.TrimSpace(string(b))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
		return layout{}, fmt.Errorf("%s names %s, which is not a directory: the linked worktree's repository is gone", filepath.Join(gitDir, "commondir"), common)
	}
	l.commonDir = common
	return l, nil
}

// filesystem is the billy view go-git's storage reads: the worktree's own
// files (HEAD, index) over the common directory's.
func (l layout) filesystem() billy.Filesystem {
	dot := osfs.New(l.gitDir)
	if l.commonDir == l.gitDir {
		return dot
	}
	return dotgit.NewRepositoryFilesystem(dot, osfs.New(l.commonDir))
}

func (l layout) objects() string { return filepath.Join(l.commonDir, "objects") }

// knownExtensions are the repository extensions that change nothing this
// reader relies on: per-worktree config (sparse checkout writes it),
// partial clone (missing objects are reported where they are needed),
// precious objects and git's test no-ops.
var knownExtensions = map[string]bool{
	"worktreeconfig": true, "partialclone": true, "preciousobjects": true, "noop": true, "noop-v1": true,
}

// checkFormat refuses, with the cause named, a repository this reader
// would misread: another object format (SHA-256), another ref storage
// (reftable), a format version above 1 or an extension it does not know.
// It returns the extensions in use, lower-cased.
func checkFormat(l layout) (map[string]string, error) {
	path := filepath.Join(l.commonDir, "config")
	raw, err := readSmall(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cfg := cfgformat.New()
	if err := cfgformat.NewDecoder(bytes.NewReader(raw)).Decode(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch v := cfg.Section("core").Option("repositoryformatversion"); v {
	case "", "0", "1":
	default:
		return nil, fmt.Errorf("%w: %s has core.repositoryFormatVersion = %s; the breaker reads versions 0 and 1", ErrUnsupportedFormat, path, v)
	}
	ext := map[string]string{}
	for _, o := range cfg.Section("extensions").Options {
		ext[strings.ToLower(o.Key)] = strings.ToLower(strings.TrimSpace(o.Value))
	}
	// git writes extensions.partialClone only in format 0 repositories;
	// otherwise a promisor remote says the clone is partial.
	for _, sub := range cfg.Section("remote").Subsections {
		if strings.EqualFold(sub.Option("promisor"), "true") && ext["partialclone"] == "" {
			ext["partialclone"] = sub.Name
		}
	}
	for name, value := range ext {
		switch {
		case name == "objectformat" && value != "sha1":
			display := value
			if value == "sha256" {
				display = "SHA-256"
			}
			return nil, fmt.Errorf("%w: %s is a %s repository (extensions.objectFormat = %s); the breaker reads SHA-1 repositories only (git's default): check out without --object-format", ErrUnsupportedFormat, l.commonDir, display, value)
		case name == "refstorage" && value != "files":
			return nil, fmt.Errorf("%w: %s stores its refs in %s (extensions.refStorage = %s); the breaker reads the files ref backend only (git's default): clone without --ref-format", ErrUnsupportedFormat, l.commonDir, value, value)
		case name == "objectformat", name == "refstorage", knownExtensions[name]:
		default:
			return nil, fmt.Errorf("%w: %s uses the repository extension %q, which the breaker does not know", ErrUnsupportedFormat, path, name)
		}
	}
	return ext, nil
}

// readSmall reads a layout file of at most maxSmallFile bytes.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxSmallFile {
		return nil, fmt.Errorf("%s is larger than %d bytes; no git repository has one that large", path, maxSmallFile)
	}
	return b, nil
}

// vettedConfig is the repository storage with the extensions section taken
// out of its configuration: checkFormat has vetted it, and go-git v5
// refuses every extension it does not implement itself, worktreeConfig
// included, which every sparse checkout has.
type vettedConfig struct {
	storage.Storer
}

// Config returns the repository configuration without its extensions.
func (s vettedConfig) Config() (*config.Config, error) {
	cfg, err := s.Storer.Config()
	if err != nil {
		return nil, err
	}
	if cfg.Raw != nil {
		cfg.Raw.RemoveSection("extensions")
	}
	cfg.Core.RepositoryFormatVersion = cfgformat.Version_0
	return cfg, nil
}
