package gitlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// layoutHistory is the history every layout test reads:
//
//	main:  c0 ── c1 ── c2 ── c3
//	              \      \
//	agent:         a1 ── a2 ── m (merges c2) ── a3
//
// a2 renames and edits a file, so the changed paths need blob contents.
func layoutHistory(t *testing.T) *history {
	t.Helper()
	h := newHistory(t)
	c0 := h.commit("c0", nil, write("src/app.go", "package app\n"), write("doc/notes.md", strings.Repeat("notes line\n", 20)))
	c1 := h.commit("c1", []string{c0}, write("src/app.go", "package app\n\nfunc A() {}\n"))
	a1 := h.commit("a1\n\nGreenlight-Test: TestA", []string{c1}, write("src/a.go", "package app\n"))
	c2 := h.commit("c2", []string{c1}, write("README.md", "readme\n"))
	a2 := h.commit("a2\n\nGreenlight-Test: TestA", []string{a1}, rename("doc/notes.md", "doc/guide.md"), write("doc/guide.md", strings.Repeat("notes line\n", 20)+"one more\n"))
	m := h.commit("merge main", []string{a2, c2})
	a3 := h.commit("a3\n\nGreenlight-Test: TestA", []string{m}, write("src/a.go", "package app\n\nvar x = 1\n"))
	c3 := h.commit("c3", []string{c2}, write("README.md", "readme 2\n"))
	h.ref("refs/heads/main", c3)
	h.ref("refs/heads/agent", a3)
	h.build()
	return h
}

// everyCommit asks for the changed paths of every commit.
func everyCommit([]breaker.Trailer) bool { return true }

// checkAgainstGit reads base..head in dir and compares it with git's
// answer there: the same commits in the same (reversed --date-order) order.
func checkAgainstGit(t *testing.T, dir, head, base string) Log {
	t.Helper()
	repo, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	defer repo.Close()
	got, err := repo.Log(context.Background(), Options{Head: head, Base: base, NeedsFiles: everyCommit})
	if err != nil {
		t.Fatalf("Log(%s..%s): %v", base, head, err)
	}
	if head == "" {
		head = "HEAD"
	}
	want := strings.Fields(runGit(t, dir, "rev-list", "--reverse", "--date-order", base+".."+head))
	if diff := cmp.Diff(want, shas(got)); diff != "" || len(want) == 0 {
		t.Errorf("%s..%s in %s (-git +ours):\n%s", base, head, dir, diff)
	}
	return got
}

// A sparse checkout (actions/checkout with sparse-checkout:) turns on
// extensions.worktreeConfig, which go-git v5 refuses to open.
func TestLayout_SparseCheckoutWorktreeConfig(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("reset", "-q", "--hard")
	h.git("sparse-checkout", "set", "--cone", "src")
	cfg := h.git("config", "--list", "--local")
	if !strings.Contains(cfg, "extensions.worktreeconfig=true") {
		t.Fatalf("sparse-checkout did not turn on extensions.worktreeConfig:\n%s", cfg)
	}
	if _, err := git.PlainOpen(h.dir); err == nil {
		t.Log("go-git now opens worktreeConfig repositories itself")
	}
	checkAgainstGit(t, h.dir, "agent", "main")
}

// git clone --shared and --reference borrow objects through
// objects/info/alternates; a shared clone of a shared clone borrows twice.
func TestLayout_Alternates(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	shared := filepath.Join(t.TempDir(), "shared")
	runGit(t, h.dir, "clone", "-q", "--shared", "--no-checkout", h.dir, shared)
	runGit(t, shared, "branch", "agent", "origin/agent")
	twice := filepath.Join(t.TempDir(), "twice")
	runGit(t, h.dir, "clone", "-q", "--shared", "--no-checkout", shared, twice)
	for _, dir := range []string{shared, twice} {
		if packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack")); len(packs) != 0 {
			t.Fatalf("%s has packs of its own %v; the test needs every object borrowed", dir, packs)
		}
	}
	checkAgainstGit(t, shared, "origin/agent", "origin/main")
	checkAgainstGit(t, twice, "origin/agent", "origin/main")

	// An alternate that is gone is named.
	if err := os.WriteFile(filepath.Join(shared, ".git", "objects", "info", "alternates"), []byte("/nonexistent/objects\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(shared); err == nil || !strings.Contains(err.Error(), "/nonexistent/objects") {
		t.Errorf("Open with a missing alternate: err = %v, want the missing directory named", err)
	}
}

// Several packs under a multi-pack-index (git maintenance, repack
// --write-midx): the per-pack indexes stay and are read.
func TestLayout_MultiPackIndex(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("repack", "-q", "-d")
	tip := h.git("rev-parse", "agent")
	a4 := h.commit("a4\n\nGreenlight-Test: TestA", []string{tip}, write("src/b.go", "package app\n"))
	h.ref("refs/heads/agent", a4)
	h.build()
	h.git("repack", "-q", "-d") // a second pack: the new objects only
	h.git("multi-pack-index", "write")
	if packs, _ := filepath.Glob(filepath.Join(h.dir, ".git", "objects", "pack", "*.pack")); len(packs) < 2 {
		t.Fatalf("packs = %v, want two or more", packs)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".git", "objects", "pack", "multi-pack-index")); err != nil {
		t.Fatal(err)
	}
	checkAgainstGit(t, h.dir, "agent", "main")
}

// A split commit-graph (git commit-graph write --split, what git
// maintenance writes): a chain of layers whose parents point across layers.
func TestLayout_SplitCommitGraph(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("commit-graph", "write", "--reachable", "--split=no-merge")
	tip, main := h.git("rev-parse", "agent"), h.git("rev-parse", "main")
	a4 := h.commit("a4", []string{tip}, write("src/b.go", "package app\n"))
	m2 := h.commit("merge main again", []string{a4, main})
	c4 := h.commit("c4", []string{main}, write("README.md", "readme 3\n"))
	h.ref("refs/heads/agent", m2)
	h.ref("refs/heads/main", c4)
	h.build()
	h.git("commit-graph", "write", "--reachable", "--split=no-merge")
	chain, err := os.ReadFile(filepath.Join(h.dir, ".git", "objects", "info", "commit-graphs", "commit-graph-chain"))
	if err != nil || len(strings.Fields(string(chain))) != 2 {
		t.Fatalf("commit-graph chain = %q (%v), want two layers", chain, err)
	}
	g, err := packfile.OpenGraph(filepath.Join(h.dir, ".git", "objects", "info"))
	if err != nil {
		t.Fatalf("OpenGraph on a split chain: %v", err)
	}
	defer g.Close()
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	for _, sha := range strings.Fields(h.git("rev-list", "--all")) {
		hash := plumbing.NewHash(sha)
		got, ok := g.Header(hash)
		c, err := object.GetCommit(repo.store, hash)
		if !ok || err != nil {
			t.Fatalf("commit %s: in the graph %v, object error %v", sha, ok, err)
		}
		want := packfile.Header{Parents: c.ParentHashes, When: c.Committer.When.Unix(), Gen: got.Gen}
		if diff := cmp.Diff(want, got); diff != "" || got.Gen == packfile.GenUnknown {
			t.Errorf("commit %s (-objects +graph):\n%s", sha, diff)
		}
	}
	checkAgainstGit(t, h.dir, "agent", "main")
}

// A commit-graph written before the last pushes covers only part of the
// history, and the new commits' dates are skewed: an agent commit dated a
// day before everything else, a base commit dated in the future.
func TestLayout_StaleCommitGraphWithClockSkew(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("commit-graph", "write", "--reachable")
	tip, main := h.git("rev-parse", "agent"), h.git("rev-parse", "main")
	past := h.commitAt(epoch.Add(-24*time.Hour), "a4 from the past", []string{tip}, write("src/b.go", "package app\n"))
	future := h.commitAt(epoch.Add(1000*time.Hour), "c4 from the future", []string{main}, write("README.md", "readme 3\n"))
	merged := h.commitAt(epoch.Add(-23*time.Hour), "merge main from the past", []string{past, future})
	h.ref("refs/heads/agent", merged)
	h.ref("refs/heads/main", future)
	h.build()
	got := checkAgainstGit(t, h.dir, "agent", "main")
	if len(got.Commits) != 6 {
		t.Errorf("read %d commits, want a1 a2 m a3 and the two new agent commits", len(got.Commits))
	}
}

// A linked worktree (git worktree add): its .git is a file naming a
// directory whose commondir holds the objects and refs.
func TestLayout_LinkedWorktree(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("reset", "-q", "--hard")
	wt := filepath.Join(t.TempDir(), "wt")
	h.git("worktree", "add", "-q", wt, "agent")
	got := checkAgainstGit(t, filepath.Join(wt, "src"), "", "main")
	if got.Branch != "agent" {
		t.Errorf("branch = %q, want agent (the worktree's HEAD)", got.Branch)
	}
}

// A partial clone without blobs (actions/checkout with filter: blob:none)
// has the trees but not the contents an edited rename is found by: the
// paths read as a deletion and an addition, and a note says why.
func TestLayout_PartialClone(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("config", "uploadpack.allowFilter", "true")
	dst := filepath.Join(t.TempDir(), "partial")
	runGit(t, h.dir, "clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+h.dir, dst)
	got := checkAgainstGit(t, dst, "origin/agent", "origin/main")
	var a2 *breaker.Commit
	for i := range got.Commits {
		if strings.HasPrefix(got.Commits[i].Subject, "a2") {
			a2 = &got.Commits[i]
		}
	}
	want := []breaker.FileChange{{Path: "doc/guide.md", Change: breaker.ChangeAdded}, {Path: "doc/notes.md", Change: breaker.ChangeDeleted}}
	if a2 == nil || !cmp.Equal(want, a2.Files) {
		t.Fatalf("a2's files = %+v, want %+v", a2, want)
	}
	if !slices.ContainsFunc(got.Notes, func(n string) bool {
		return strings.Contains(n, breaker.ShortSHA(a2.SHA)) && strings.Contains(n, "partial clone")
	}) {
		t.Errorf("notes = %q, want one naming a2 and the partial clone", got.Notes)
	}
	// The full clone finds the rename: the note is about the layout only.
	full := checkAgainstGit(t, h.dir, "agent", "main")
	for _, c := range full.Commits {
		if strings.HasPrefix(c.Subject, "a2") && (len(c.Files) != 1 || c.Files[0].Change != breaker.ChangeRenamed) {
			t.Errorf("full clone: a2's files = %+v, want one rename", c.Files)
		}
	}
	if len(full.Notes) != 0 {
		t.Errorf("full clone: notes = %q, want none", full.Notes)
	}
}

// Repositories the reader would misread are refused up front, the cause
// named: SHA-256 objects, reftable refs, a format version or an extension
// it does not know.
func TestLayout_UnsupportedFormatsAreRefused(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/"); err != nil {
		t.Skip(err)
	}
	sha256 := t.TempDir()
	runGit(t, sha256, "init", "-q", "--object-format=sha256")
	reftable := newHistory(t).dir
	runGit(t, reftable, "config", "core.repositoryFormatVersion", "1")
	runGit(t, reftable, "config", "extensions.refStorage", "reftable")
	version := newHistory(t).dir
	runGit(t, version, "config", "core.repositoryFormatVersion", "2")
	unknown := newHistory(t).dir
	runGit(t, unknown, "config", "core.repositoryFormatVersion", "1")
	runGit(t, unknown, "config", "extensions.somethingNew", "true")
	for dir, want := range map[string]string{
		sha256:   "is a SHA-256 repository (extensions.objectFormat = sha256)",
		reftable: "stores its refs in reftable (extensions.refStorage = reftable)",
		version:  "core.repositoryFormatVersion = 2",
		unknown:  `extension "somethingnew"`,
	} {
		_, err := Open(dir)
		if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want ErrUnsupportedFormat saying %q", dir, err, want)
		}
	}
}

// A pack index that belongs to another pack is an error naming the pack,
// not a read of the wrong offsets.
func TestLayout_IndexNotMatchingItsPack(t *testing.T) {
	t.Parallel()
	a, b := layoutHistory(t), newHistory(t)
	b.ref("refs/heads/main", b.commit("other", nil, write("x", "y")))
	b.build()
	a.git("repack", "-q", "-a", "-d")
	b.git("repack", "-q", "-a", "-d")
	ia, _ := filepath.Glob(filepath.Join(a.dir, ".git", "objects", "pack", "*.idx"))
	ib, _ := filepath.Glob(filepath.Join(b.dir, ".git", "objects", "pack", "*.idx"))
	if len(ia) != 1 || len(ib) != 1 {
		t.Fatalf("indexes %v and %v, want one each", ia, ib)
	}
	other, err := os.ReadFile(ib[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ia[0], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ia[0], other, 0o644); err != nil {
		t.Fatal(err)
	}
	pack := strings.TrimSuffix(filepath.Base(ia[0]), ".idx") + ".pack"
	if _, err := Open(a.dir); err == nil || !strings.Contains(err.Error(), "does not match "+pack) {
		t.Errorf("Open = %v, want the index said not to match %s", err, pack)
	}
}

// A Repo nobody holds after calling Log is unmapped by its cleanup; until
// Log returns it must stay mapped. Collections forced while many walks run
// on repositories referenced only by the call would fault on unmapped
// memory otherwise.
func TestRepo_StaysMappedWhileInUse(t *testing.T) {
	t.Parallel()
	h := layoutHistory(t)
	h.git("repack", "-q", "-a", "-d")
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer close(stop)
	for range 40 {
		log, err := openAndLog(h.dir)
		if err != nil || len(log.Commits) != 4 {
			t.Fatalf("Log = %d commits, %v; want 4", len(log.Commits), err)
		}
	}
}

// openAndLog keeps no reference to the Repo once Log is called.
func openAndLog(dir string) (Log, error) {
	repo, err := Open(dir)
	if err != nil {
		return Log{}, err
	}
	return repo.Log(context.Background(), Options{Head: "agent", Base: "main", NeedsFiles: everyCommit})
}

// The merge trick at the level of the reader: the head is a merge whose
// first parent is main's tip and whose second is the old agent head. git
// lists the old attempts in main..head, and so does Log, in git's order.
func TestRepo_Log_MergeTrickMatchesGit(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	c0 := h.commit("c0", nil, write("a.txt", "a"))
	a1 := h.commit("a1", []string{c0}, write("b.txt", "1"))
	a2 := h.commit("a2", []string{a1}, write("b.txt", "2"))
	c1 := h.commit("c1", []string{c0}, write("a.txt", "b"))
	trick := h.commit("merge", []string{c1, a2})
	h.ref("refs/heads/main", c1)
	h.ref("refs/heads/agent", trick)
	marks := h.build()
	got := checkAgainstGit(t, h.dir, "agent", "main")
	want := []string{marks[a1], marks[a2], marks[trick]}
	if diff := cmp.Diff(want, shas(got)); diff != "" || got.ForkPoint != marks[c1] {
		t.Errorf("commits (-want +got):\n%s\nfork point %s, want main's tip %s", diff, got.ForkPoint, marks[c1])
	}
}
