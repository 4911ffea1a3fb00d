package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// cache keeps what was read of each pull request (and of each base
// commit) in a directory, so a second replay of the same window reads
// nothing it has: a pull request is read again only when GitHub says it
// was updated since.
type cache struct {
	dir string // "" = no cache
	// key says what the reads depend on besides the pull request (the
	// workflow, the artifacts and results looked for, the ledger's check
	// runs): a file written with other flags is read again from GitHub.
	key string
}

func newCache(dir, repo, key string) (*cache, error) {
	if dir == "" {
		return &cache{}, nil
	}
	d := filepath.Join(dir, strings.NewReplacer("/", "_", "\\", "_", "..", "_").Replace(repo))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, fmt.Errorf("--cache %s: %w", dir, err)
	}
	return &cache{dir: d, key: key}, nil
}

func (c *cache) pullFile(n int) string { return filepath.Join(c.dir, "pr-"+strconv.Itoa(n)+".json") }
func (c *cache) baseFile(sha string) string {
	return filepath.Join(c.dir, "base-"+strings.ToLower(filepath.Base(sha))+".json")
}

// pull returns the cached read of pr, if it is as new as pr.
func (c *cache) pull(pr forge.PastPullRequest) (pullRead, bool) {
	if c.dir == "" {
		return pullRead{}, false
	}
	var p pullRead
	if !c.load(c.pullFile(pr.Number), &p) || p.Schema != cacheSchema || p.Key != c.key || !p.PR.UpdatedAt.Equal(pr.UpdatedAt) {
		return pullRead{}, false
	}
	return p, true
}

func (c *cache) putPull(p pullRead) error {
	p.Schema, p.Key = cacheSchema, c.key
	return c.store(c.pullFile(p.PR.Number), p)
}

// base returns the cached read of a base commit's run.
func (c *cache) base(sha string) (baseRead, bool) {
	var b baseRead
	if c.dir == "" || !c.load(c.baseFile(sha), &b) || b.Schema != cacheSchema || b.Key != c.key {
		return baseRead{}, false
	}
	return b, true
}

func (c *cache) putBase(b baseRead) error {
	b.Schema, b.Key = cacheSchema, c.key
	return c.store(c.baseFile(b.SHA), b)
}

func (c *cache) load(name string, v any) bool {
	data, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	return json.Unmarshal(data, v) == nil // an unreadable file is read again from GitHub
}

// store writes v atomically: a replay stopped half-way leaves whole files.
func (c *cache) store(name string, v any) error {
	if c.dir == "" {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}
