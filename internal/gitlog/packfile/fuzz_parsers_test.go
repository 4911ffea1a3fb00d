package packfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// realFiles builds a small repository with git (three commits, a merge,
// packed, with a commit-graph) and returns its pack index, its
// commit-graph and its raw commits: seeds shaped exactly as git writes
// them. Without git it returns nothing and the fuzz targets run on their
// hand-written seeds alone.
func realFiles(f *testing.F) (idx, graph []byte, commits [][]byte) {
	f.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil, nil
	}
	repo := gitrepo.Open(f, f.TempDir())
	repo.Dates = func(int) string { return "1714554000 +0000" }
	dir, git := repo.Dir, repo.Git
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	git("checkout", "-q", "-b", "side")
	git("commit", "-q", "--allow-empty", "-m", "two\n\nGreenlight-Slice: S-1")
	git("checkout", "-q", "main")
	git("commit", "-q", "--allow-empty", "-m", "three")
	git("merge", "-q", "--no-ff", "-m", "merge", "side")
	git("gc", "-q")
	git("commit-graph", "write", "--reachable")
	for _, rev := range []string{"HEAD", "HEAD^1", "HEAD^2"} {
		commits = append(commits, []byte(git("cat-file", "commit", rev)+"\n"))
	}
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idxs) == 1 {
		idx, _ = os.ReadFile(idxs[0])
	}
	graph, _ = os.ReadFile(filepath.Join(dir, ".git", "objects", "info", "commit-graph"))
	return idx, graph, commits
}

// FuzzPackIndex: a pack index the agent pushed is read in place. Whatever
// its bytes, a lookup of any name (one it lists, or none) answers without
// a panic, and an offset it returns is never negative.
func FuzzPackIndex(f *testing.F) {
	idx, _, _ := realFiles(f)
	if idx != nil {
		f.Add(idx)
		f.Add(idx[:len(idx)/2])
	}
	empty := append(append([]byte{}, idxMagic...), make([]byte, 256*4+40)...)
	f.Add(empty)
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := newPackIndex(data)
		if err != nil {
			return
		}
		probe := []plumbing.Hash{{}, plumbing.NewHash("ffffffffffffffffffffffffffffffffffffffff")}
		for i := 0; i < x.count && i < 64 && x.names+i*20+20 <= len(data); i++ {
			var h plumbing.Hash
			copy(h[:], data[x.names+i*20:])
			probe = append(probe, h)
		}
		for _, h := range probe {
			if off, ok := x.find(h); ok && off < 0 {
				t.Fatalf("find(%s) = %d, a negative offset", h, off)
			}
		}
	})
}

// FuzzCommitGraph: a commit-graph file is parsed or refused; a header read
// from a parsed one never panics, and its parents are names the file holds.
func FuzzCommitGraph(f *testing.F) {
	_, graph, _ := realFiles(f)
	if graph != nil {
		f.Add(graph)
		cut := append([]byte{}, graph...)
		binary.BigEndian.PutUint32(cut[len(cut)-60:], 0xffffffff) // a row pointing nowhere
		f.Add(cut)
	}
	f.Add([]byte("CGPH\x01\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parseGraph(data, 0)
		if err != nil {
			return
		}
		g := &Graph{layers: []*graphLayer{l}}
		names := map[plumbing.Hash]bool{}
		var probe []plumbing.Hash
		for i := 0; i < l.count && i < 64 && l.names+i*20+20 <= len(data); i++ {
			var h plumbing.Hash
			copy(h[:], data[l.names+i*20:])
			names[h] = true
			probe = append(probe, h)
		}
		for _, h := range append(probe, plumbing.Hash{}) {
			hd, ok := g.Header(h)
			if !ok || l.count > 64 {
				continue
			}
			for _, p := range hd.Parents {
				if !names[p] {
					t.Fatalf("Header(%s) names parent %s, which the graph does not list", h, p)
				}
			}
		}
	})
}

// FuzzParseHeader: the walk's commit header reader agrees with go-git's
// full commit decoder on the parents of every commit both accept, and
// never panics on the rest.
func FuzzParseHeader(f *testing.F) {
	_, _, commits := realFiles(f)
	for _, c := range commits {
		f.Add(c)
	}
	f.Add([]byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 0000000000000000000000000000000000000000\ncommitter a <a> 1 +0000\n\nmsg\n"))
	f.Add([]byte("parent zz\n"))
	f.Add([]byte("committer a <a> 99999999999999999999999 +0000\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		hd, err := ParseHeader(raw)
		if err != nil {
			return
		}
		obj := &plumbing.MemoryObject{}
		obj.SetType(plumbing.CommitObject)
		if _, err := obj.Write(raw); err != nil {
			t.Fatal(err)
		}
		var c object.Commit
		if c.Decode(obj) != nil {
			return
		}
		if !validHeaderLines(raw) {
			return // go-git reads some lines ParseHeader does not (and the reverse)
		}
		if len(c.ParentHashes) != len(hd.Parents) {
			t.Fatalf("parents: go-git %v, ParseHeader %v", c.ParentHashes, hd.Parents)
		}
		for i := range hd.Parents {
			if c.ParentHashes[i] != hd.Parents[i] {
				t.Fatalf("parent %d: go-git %s, ParseHeader %s", i, c.ParentHashes[i], hd.Parents[i])
			}
		}
	})
}

// validHeaderLines reports whether every header line of raw is one git
// itself writes: "tree", "parent", "author", "committer" with a key, no
// continuation lines, no CR. On such commits the two readers must agree.
func validHeaderLines(raw []byte) bool {
	for len(raw) > 0 {
		line, rest, found := bytes.Cut(raw, []byte{'\n'})
		if !found {
			return false
		}
		raw = rest
		if len(line) == 0 {
			return true
		}
		key, _, ok := bytes.Cut(line, []byte{' '})
		if !ok || bytes.ContainsRune(line, '\r') {
			return false
		}
		switch string(key) {
		case "tree", "parent", "author", "committer":
		default:
			return false
		}
	}
	return true
}
