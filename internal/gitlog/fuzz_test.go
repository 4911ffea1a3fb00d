package gitlog

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
	"github.com/greenlight-ci/breaker/internal/trailer"
)

// FuzzParseTree: the tree reader the file diff uses agrees with go-git's
// tree decoder on every tree both accept (names, canonical modes, hashes,
// order), and never panics on the rest. It found that odd modes ("0",
// "100664", "040755") were kept as written, so a directory could pass for
// a file.
func FuzzParseTree(f *testing.F) {
	entry := func(mode, name string, b byte) []byte {
		return append([]byte(mode+" "+name+"\x00"), bytes.Repeat([]byte{b}, 20)...)
	}
	f.Add(append(entry("100644", "a.txt", 1), entry("40000", "dir", 2)...))
	f.Add(entry("120000", "link", 3))
	f.Add(entry("160000", "sub", 4)[:10])
	f.Add([]byte("100644 \x00"))
	f.Add(append(entry("040755", "d", 5), entry("100664", "f", 6)...))
	f.Add(append(entry("100644", "b", 1), entry("100644", "a", 2)...)) // out of order: still read
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := parseTree(raw)
		if err != nil {
			return
		}
		obj := &plumbing.MemoryObject{}
		obj.SetType(plumbing.TreeObject)
		if _, err := obj.Write(raw); err != nil {
			t.Fatal(err)
		}
		var want object.Tree
		if want.Decode(obj) != nil {
			return
		}
		if len(want.Entries) != len(got) {
			t.Fatalf("go-git reads %d entries, parseTree %d", len(want.Entries), len(got))
		}
		for i, w := range want.Entries {
			g := got[i]
			if w.Name != string(g.name) || w.Hash != g.hash || w.Mode != g.mode {
				t.Fatalf("entry %d: go-git %q %v %s, parseTree %q %v %s", i, w.Name, w.Mode, w.Hash, g.name, g.mode, g.hash)
			}
		}
	})
}

// TestParseTree_OddModesAreCanonical: a directory written with an odd mode
// is still a directory to the diff (else the files under it would not be
// listed as changed).
func TestParseTree_OddModesAreCanonical(t *testing.T) {
	t.Parallel()
	raw := append([]byte("040755 d\x00"), bytes.Repeat([]byte{1}, 20)...)
	raw = append(raw, append([]byte("100775 x\x00"), bytes.Repeat([]byte{2}, 20)...)...)
	got, err := parseTree(raw)
	if err != nil || len(got) != 2 || !got[0].isDir() || got[1].mode != filemode.Executable {
		t.Fatalf("parseTree = %+v, %v; want d a directory and x executable", got, err)
	}
}

// FuzzHistoryWalk: the agent pushes a commit object of its own making
// (any bytes) on top of a real repository, and the branch is read from it
// as the Action reads it. The walk ends, in time, with an error or with a
// branch whose newest commit is the pushed one; it never panics or loops.
func FuzzHistoryWalk(f *testing.F) {
	h := newHistory(f)
	c0 := h.commit("c0", nil, write("a.txt", "a"))
	c1 := h.commit("c1", []string{c0}, write("a.txt", "b"))
	h.ref("refs/heads/main", c1)
	marks := h.build()
	h.git("gc", "-q")
	h.git("commit-graph", "write", "--reachable")
	tree := h.git("rev-parse", "main^{tree}")
	commit := func(parents ...string) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, "tree %s\n", tree)
		for _, p := range parents {
			fmt.Fprintf(&b, "parent %s\n", p)
		}
		b.WriteString("author A <a@example.com> 1714554000 +0000\ncommitter A <a@example.com> 1714554000 +0000\n\nfix\n\nGreenlight-Slice: S-1\nGreenlight-Test: TestX\n")
		return b.Bytes()
	}
	f.Add(commit(marks[c1]))
	f.Add(commit(marks[c0], marks[c1]))
	f.Add(commit())
	f.Add(commit("0000000000000000000000000000000000000000"))
	f.Add(commit(marks[c1], marks[c1], marks[c1]))
	f.Add([]byte("tree 0000000000000000000000000000000000000000\nparent " + marks[c1] + "\ncommitter x 99999999999999999999 +9999\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		head := writeLoose(t, h.dir, "commit", raw)
		if err := os.WriteFile(filepath.Join(h.dir, ".git", "refs", "heads", "agent"), []byte(head+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		repo, err := Open(h.dir)
		if err != nil {
			t.Fatal(err)
		}
		defer repo.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		log, err := repo.Log(ctx, Options{Head: "agent", Base: "main", Parse: trailer.Parse, NeedsFiles: func([]breaker.Trailer) bool { return true }})
		if ctx.Err() != nil {
			t.Fatalf("the walk did not end within 10s: %v", err)
		}
		if err != nil {
			return
		}
		if n := len(log.Commits); n == 0 || n > 3 || log.Commits[n-1].SHA != head {
			t.Fatalf("read %d commits ending at %v; want 1 to 3 ending at the pushed %s", n, log.Commits, head)
		}
	})
}

// writeLoose stores raw as a loose object of the given type, as a push
// would, and returns its name.
func writeLoose(t *testing.T, dir, typ string, raw []byte) string {
	t.Helper()
	full := append([]byte(fmt.Sprintf("%s %d\x00", typ, len(raw))), raw...)
	sum := sha1.Sum(full)
	name := hex.EncodeToString(sum[:])
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(full)
	_ = w.Close()
	path := filepath.Join(dir, ".git", "objects", name[:2], name[2:])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestRepo_Log_CommitGraphCycleIsAnError: the agent's test code can write
// .git; a commit-graph that names a commit as its own first parent must
// end the walk with an error, not loop until memory runs out. Both walks
// are covered: against a base, and down to the root when there is none.
func TestRepo_Log_CommitGraphCycleIsAnError(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	c0 := h.commit("c0", nil, write("a.txt", "a"))
	c1 := h.commit("c1", []string{c0}, write("a.txt", "b"))
	a1 := h.commit("a1", []string{c1}, write("b.txt", "b"))
	h.ref("refs/heads/main", c1)
	h.ref("refs/heads/agent", a1)
	marks := h.build()
	h.git("commit-graph", "write", "--reachable")
	path := filepath.Join(h.dir, ".git", "objects", "info", "commit-graph")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := packfile.OpenGraph(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	_ = g.Close()
	patchSelfParent(t, data, plumbing.NewHash(marks[a1]))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"main", ""} {
		if base == "" {
			h.git("symbolic-ref", "HEAD", "refs/heads/agent")
			h.git("update-ref", "-d", "refs/heads/main")
		}
		repo, err := Open(h.dir)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = repo.Log(ctx, Options{Head: "agent", Base: base})
		cancel()
		_ = repo.Close()
		if err == nil || !strings.Contains(err.Error(), "the history loops") {
			t.Errorf("base %q: Log = %v; want the loop named", base, err)
		}
	}
}

// patchSelfParent rewrites commit h's row of a commit-graph file so that
// its first parent is itself.
func patchSelfParent(t *testing.T, data []byte, h plumbing.Hash) {
	t.Helper()
	chunks := int(data[6])
	var names, rows int
	for i := range chunks {
		e := data[8+i*12:]
		switch string(e[:4]) {
		case "OIDL":
			names = int(binary.BigEndian.Uint64(e[4:]))
		case "CDAT":
			rows = int(binary.BigEndian.Uint64(e[4:]))
		}
	}
	for i := 0; names+i*20+20 <= rows; i++ {
		if bytes.Equal(data[names+i*20:names+i*20+20], h[:]) {
			binary.BigEndian.PutUint32(data[rows+i*36+20:], uint32(i))
			return
		}
	}
	t.Fatalf("commit %s is not in the commit-graph", h)
}
