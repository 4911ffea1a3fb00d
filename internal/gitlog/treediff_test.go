package gitlog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// TestRepo_Log_filesMatchGit compares the changed paths of every commit of
// a random history with `git diff-tree -r --name-status -M50%`: nested
// adds and deletes, whole directories appearing and vanishing, a file
// replaced by a directory of the same name, mode changes and renames.
//
//	root - c1 - c2 - ... - c40 (agent; every commit an attempt)
func TestRepo_Log_filesMatchGit(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	h := newHistory(t)
	files := map[string]bool{}
	var ops []op
	for i := range 12 {
		p := fmt.Sprintf("d%d/s%d/f%d.txt", i%3, i%2, i)
		ops = append(ops, write(p, longText(20+i)))
		files[p] = true
	}
	// Siblings that sort differently once a directory's implicit '/' counts.
	ops = append(ops, write("d0/s0.cfg", "c"), write("d1/s1-x", "c"), write("d2/s0.cfg", "c"))
	prev := h.commit("root\n\nGreenlight-Test: T\n", nil, ops...)
	prev = h.commit("c0\n\nGreenlight-Test: T\n", []string{prev}, remove("d0/s0.cfg"), write("d0/s0/f0.txt", "edited"))
	for i := 1; i <= 40; i++ {
		prev = h.commit(fmt.Sprintf("c%d\n\nGreenlight-Test: T\n", i), []string{prev}, randomOps(rng, files, i)...)
	}
	h.ref("refs/heads/agent", prev)
	h.build()
	got := readLog(t, h.dir, Options{Head: "agent", Parse: parseTrailers, NeedsFiles: isAttempt})
	for _, c := range got.Commits[1:] {
		want := gitFiles(t, h, c.Parent, c.SHA)
		if diff := cmp.Diff(want, c.Files); diff != "" {
			t.Errorf("%s (%s) files (-git +ours):\n%s", c.Subject, c.SHA[:8], diff)
		}
	}
}

// randomOps picks a few changes to the tracked files.
func randomOps(rng *rand.Rand, files map[string]bool, i int) []op {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) < 4 {
		p := fmt.Sprintf("refill/g%d/f.txt", i)
		files[p] = true
		return []op{write(p, longText(10))}
	}
	pick := paths[rng.IntN(len(paths))]
	switch rng.IntN(6) {
	case 0:
		delete(files, pick)
		return []op{remove(pick)}
	case 1:
		to := fmt.Sprintf("moved/r%d.txt", i)
		delete(files, pick)
		files[to] = true
		return []op{rename(pick, to)}
	case 2:
		dir := pick[:strings.LastIndexByte(pick, '/')]
		for p := range files {
			if strings.HasPrefix(p, dir+"/") {
				delete(files, p)
			}
		}
		return []op{remove(dir)}
	case 3: // a file becomes a directory
		delete(files, pick)
		files[pick+"/inner.txt"] = true
		return []op{remove(pick), write(pick+"/inner.txt", "inner")}
	case 4:
		return []op{{line: "M 100755 inline " + pick, data: longText(5)}}
	default:
		p := fmt.Sprintf("new/n%d/f.txt", i)
		files[p] = true
		return []op{write(pick, longText(i%30+3)), write(p, "x")}
	}
}

// gitFiles is git's own list of changes between two commits.
func gitFiles(t *testing.T, h *history, from, to string) []breaker.FileChange {
	t.Helper()
	out := []breaker.FileChange{}
	for _, line := range strings.Split(h.git("diff-tree", "-r", "--name-status", "-M50%", from, to), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case line == "":
		case f[0] == "A":
			out = append(out, breaker.FileChange{Path: f[1], Change: breaker.ChangeAdded})
		case f[0] == "D":
			out = append(out, breaker.FileChange{Path: f[1], Change: breaker.ChangeDeleted})
		case f[0] == "M":
			out = append(out, breaker.FileChange{Path: f[1], Change: breaker.ChangeModified})
		case strings.HasPrefix(f[0], "R"):
			out = append(out, breaker.FileChange{Path: f[2], Change: breaker.ChangeRenamed, From: f[1]})
		default:
			t.Fatalf("unexpected diff-tree line %q", line)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if len(out) == 0 {
		return nil
	}
	return out
}

// An agent replaces 1,500 identical files (more than git's rename limit of
// 1,000): renames are not looked for, every path is listed as deleted or
// added, so the scope lock still sees both sides. Under the limit, renames
// are still found.
func TestRepo_Log_RenameLimit(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1500, 20} {
		h := newHistory(t)
		var add, move []op
		for i := range n {
			add = append(add, write(fmt.Sprintf("old/f%d.txt", i), "same content\n"))
			move = append(move, rename(fmt.Sprintf("old/f%d.txt", i), fmt.Sprintf("new/f%d.txt", i)))
		}
		c0 := h.commit("c0", nil, add...)
		c1 := h.commit("replace\n\nGreenlight-Slice: S-1\nGreenlight-Test: TestX\n", []string{c0}, move...)
		h.ref("refs/heads/main", c0)
		h.ref("refs/heads/agent", c1)
		h.build()
		repo, err := Open(h.dir)
		if err != nil {
			t.Fatal(err)
		}
		log, err := repo.Log(context.Background(), Options{Head: "agent", Base: "main", NeedsFiles: func([]breaker.Trailer) bool { return true }})
		_ = repo.Close()
		if err != nil {
			t.Fatal(err)
		}
		files := log.Commits[0].Files
		var renamed, other int
		for _, f := range files {
			if f.Change == breaker.ChangeRenamed {
				renamed++
			} else {
				other++
			}
		}
		switch {
		case n > renameLimit && (renamed != 0 || other != 2*n):
			t.Errorf("%d files moved: %d renames, %d other changes; want none and %d deletions and additions", n, renamed, other, 2*n)
		case n <= renameLimit && renamed != n:
			t.Errorf("%d files moved: %d renames; want %d", n, renamed, n)
		}
		if noted := len(log.Notes) == 1 && strings.Contains(log.Notes[0], "rename limit"); noted != (n > renameLimit) {
			t.Errorf("%d files moved: notes %q; want the rename limit named only above it", n, log.Notes)
		}
	}
}

// pathBomb commits, on top of main, a tree of 2+levels objects that names
// 10^levels paths: one blob, and each level ten entries of the level below.
func pathBomb(t testing.TB, h *history, levels int) string {
	t.Helper()
	repo := gitrepo.Open(t, h.dir)
	entry, mode, kind := repo.GitIn("x\n", "hash-object", "-w", "--stdin"), "100644", "blob"
	for range levels {
		var b strings.Builder
		for i := range 10 {
			fmt.Fprintf(&b, "%s %s %s\tn%d\n", mode, kind, entry, i)
		}
		entry, mode, kind = repo.GitIn(b.String(), "mktree"), "040000", "tree"
	}
	return h.git("commit-tree", entry, "-p", "main", "-m", "bomb\n\nGreenlight-Slice: S-1\nGreenlight-Test: TestX")
}

// A pushed tree of 8 objects naming 10^6 paths is read up to maxPaths:
// the commit's Files are cut, a note says so, and the memory spent stays
// far below what a million paths would take.
func TestRepo_Log_PathBombIsBounded(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	h.ref("refs/heads/main", h.commit("c0", nil, write("a.txt", "a")))
	h.build()
	h.git("update-ref", "refs/heads/agent", pathBomb(t, h, 6))
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	log, err := repo.Log(context.Background(), Options{Head: "agent", Base: "main", NeedsFiles: func([]breaker.Trailer) bool { return true }})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	c := log.Commits[0]
	if !c.FilesCut || len(c.Files) != maxPaths {
		t.Errorf("files = %d, cut %v; want %d and cut", len(c.Files), c.FilesCut, maxPaths)
	}
	if len(log.Notes) != 1 || !strings.Contains(log.Notes[0], "more than 20000 paths") {
		t.Errorf("notes = %q, want the bound named", log.Notes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("reading the bomb allocated %d MB, want under 200 MB", alloc>>20)
	}
}
