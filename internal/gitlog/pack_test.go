package gitlog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// deltaHistory builds a history whose file and trees change a little each
// commit, so that a repack stores most objects as deltas.
//
//	c0 - c1 - ... - c29 (main)
func deltaHistory(t *testing.T) *history {
	t.Helper()
	h := newHistory(t)
	prev := h.commit("c0", nil, write("big.txt", longText(200)), write("dir/sub/x.txt", "x"))
	for i := 1; i < 30; i++ {
		text := strings.Replace(longText(200), fmt.Sprintf("line %c", 'a'+i%26), fmt.Sprintf("edit %d", i), 1)
		prev = h.commit(fmt.Sprintf("c%d", i), []string{prev}, write("big.txt", text), write(fmt.Sprintf("dir/sub/f%d.txt", i), text[:100]))
	}
	h.ref("refs/heads/main", prev)
	h.build()
	return h
}

// TestPackfile_matchesGoGit reads every object through the mapped packs and
// compares it with go-git's own storage, for packs with offset deltas, with
// reference deltas, and with loose objects beside the pack.
func TestPackfile_matchesGoGit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(h *history)
	}{
		{"offset deltas", func(h *history) { h.git("repack", "-adf", "--depth=20", "--window=50") }},
		{"reference deltas", func(h *history) {
			h.git("-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "--depth=20", "--window=50")
		}},
		{"loose objects", func(h *history) {
			h.git("repack", "-ad")
			tree := h.git("rev-parse", "main^{tree}")
			h.git("update-ref", "refs/heads/loose", h.git("commit-tree", "-p", "main", "-m", "loose", tree))
			h.git("tag", "-a", "-m", "annotated", "v1", "main")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := deltaHistory(t)
			tt.setup(h)
			compareObjects(t, h.dir)
		})
	}
}

func compareObjects(t *testing.T, dir string) {
	t.Helper()
	ref, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := packfile.Open(filepath.Join(dir, ".git", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	deltas := strings.Count(runGit(t, dir, "verify-pack", "-v", packIdx(t, dir)), "chain length")
	iter, err := ref.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = iter.ForEach(func(want plumbing.EncodedObject) error {
		n++
		typ, got, err := fast.Read(want.Hash())
		if err != nil {
			return fmt.Errorf("read %s: %w", want.Hash(), err)
		}
		r, _ := want.Reader()
		var buf bytes.Buffer
		buf.ReadFrom(r)
		if typ != want.Type() || !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("object %s: got %s of %d bytes, want %s of %d bytes", want.Hash(), typ, len(got), want.Type(), buf.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 60 || deltas == 0 {
		t.Fatalf("compared %d objects with %d delta chains; the fixture is too small to prove anything", n, deltas)
	}
	if _, _, err := fast.Read(plumbing.NewHash(strings.Repeat("ab", 20))); err != packfile.ErrNotHere {
		t.Errorf("reading a missing object: err = %v, want packfile.ErrNotHere", err)
	}
}

func packIdx(t *testing.T, dir string) string {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("want one pack, found %v", idx)
	}
	return idx[0]
}

// TestPackfile_corruptPack damages a pack and checks that reads fail with
// an error, never a panic.
func TestPackfile_corruptPack(t *testing.T) {
	t.Parallel()
	h := deltaHistory(t)
	h.git("repack", "-adf", "--depth=20", "--window=50")
	objects := strings.Split(h.git("rev-list", "--objects", "--all"), "\n")
	idx := packIdx(t, h.dir)
	packPath := strings.TrimSuffix(idx, ".idx") + ".pack"
	data, err := os.ReadFile(packPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 12; i < len(data)-20; i += 7 {
		data[i] ^= 0x5a
	}
	if err := os.Chmod(packPath, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(packPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fast, err := packfile.Open(filepath.Join(h.dir, ".git", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	failures := 0
	for _, line := range objects {
		sha, _, _ := strings.Cut(line, " ")
		if _, _, err := fast.Read(plumbing.NewHash(sha)); err != nil {
			failures++
		}
	}
	if failures == 0 {
		t.Errorf("no read failed on a damaged pack")
	}
}
