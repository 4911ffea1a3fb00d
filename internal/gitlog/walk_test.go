package gitlog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// randomHistory builds a history of n commits on four lanes (main, agent
// and two side branches) that fork from and merge into each other at
// random: criss-cross merges, the base merged into the agent branch and
// the agent branch merged into the base all occur. Dates never go back
// but often repeat, so the date-ordered walk must cope with ties.
func randomHistory(t *testing.T, seed uint64, n int) (*history, []string) {
	t.Helper()
	return randomHistoryDated(t, seed, n, true)
}

// randomHistoryDated is randomHistory; without ties every commit is one
// minute newer than the one before.
func randomHistoryDated(t *testing.T, seed uint64, n int, ties bool) (*history, []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	h := newHistory(t)
	root := h.commit("root", nil, write("a.txt", "0"))
	tips := []string{root, root, root, root}
	all := []string{root}
	when := epoch
	for i := range n {
		lane := rng.IntN(len(tips))
		parents := []string{tips[lane]}
		switch r := rng.IntN(10); {
		case r < 3:
			if other := tips[rng.IntN(len(tips))]; other != tips[lane] {
				parents = append(parents, other)
			}
		case r == 3:
			parents = []string{all[rng.IntN(len(all))]} // restart the lane anywhere
		case r == 4: // an octopus merge of every lane
			for _, tip := range tips {
				if !slices.Contains(parents, tip) {
					parents = append(parents, tip)
				}
			}
		}
		step := time.Minute
		if ties {
			step = time.Duration(rng.IntN(2)) * time.Minute
		}
		when = when.Add(step)
		c := h.commitAt(when, fmt.Sprintf("c%d lane %d", i, lane), parents, write("a.txt", fmt.Sprint(i)))
		tips[lane] = c
		all = append(all, c)
	}
	for i, name := range []string{"main", "agent", "side1", "side2"} {
		h.ref("refs/heads/"+name, tips[i])
	}
	return h, all
}

// slowLog is the reference: the full ancestry of base, then every commit
// reachable from head outside it (as a set), and the head's first parents
// until one is in the base's ancestry (the fork point).
func slowLog(t *testing.T, repo *Repo, head, base plumbing.Hash) (branch []string, fork string) {
	t.Helper()
	ancestry := func(tip plumbing.Hash, stop map[plumbing.Hash]bool) map[plumbing.Hash]bool {
		seen := map[plumbing.Hash]bool{tip: true}
		if stop[tip] {
			return map[plumbing.Hash]bool{}
		}
		for todo := []plumbing.Hash{tip}; len(todo) > 0; {
			c, err := object.GetCommit(repo.store, todo[len(todo)-1])
			if err != nil {
				t.Fatal(err)
			}
			todo = todo[:len(todo)-1]
			for _, p := range c.ParentHashes {
				if !seen[p] && !stop[p] {
					seen[p] = true
					todo = append(todo, p)
				}
			}
		}
		return seen
	}
	inBase := ancestry(base, nil)
	for h := range ancestry(head, inBase) {
		branch = append(branch, h.String())
	}
	slices.Sort(branch)
	for h := head; ; {
		if inBase[h] {
			return branch, h.String()
		}
		c, err := object.GetCommit(repo.store, h)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.ParentHashes) == 0 {
			return branch, ""
		}
		h = c.ParentHashes[0]
	}
}

func shas(l Log) []string {
	var out []string
	for _, c := range l.Commits {
		out = append(out, c.SHA)
	}
	return out
}

// headBasePairs are the (head, base) pairs a random history is read with:
// the lanes against each other both ways, and six random commit pairs.
func headBasePairs(marks map[string]string, all []string, rng *rand.Rand) [][2]string {
	pairs := [][2]string{{"agent", "main"}, {"main", "agent"}, {"side1", "main"}, {"agent", "side2"}}
	for range 6 {
		pairs = append(pairs, [2]string{marks[all[rng.IntN(len(all))]], marks[all[rng.IntN(len(all))]]})
	}
	return pairs
}

// TestWalker_matchesSlowPath compares the fast walk with the reference and
// with `git rev-list --first-parent`, without and then with a commit-graph.
func TestWalker_matchesSlowPath(t *testing.T) {
	t.Parallel()
	for seed := range uint64(12) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			h, all := randomHistory(t, seed, 120)
			marks := h.build()
			pairs := headBasePairs(marks, all, rand.New(rand.NewPCG(seed, 11)))
			for _, graph := range []bool{false, true} {
				if graph {
					h.git("commit-graph", "write", "--reachable")
				}
				comparePairs(t, h, pairs, graph)
			}
		})
	}
}

func comparePairs(t *testing.T, h *history, pairs [][2]string, graph bool) {
	t.Helper()
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		got, err := repo.Log(context.Background(), Options{Head: p[0], Base: p[1]})
		if err != nil {
			t.Fatalf("Log(%s, %s): %v", p[0], p[1], err)
		}
		head, _ := repo.resolve(p[0])
		base, _ := repo.resolve(p[1])
		wantBranch, wantFork := slowLog(t, repo, head.hash, base.hash)
		gotSet := slices.Sorted(slices.Values(shas(got)))
		if diff := cmp.Diff(wantBranch, gotSet); diff != "" || got.ForkPoint != wantFork {
			t.Errorf("graph=%v head %s base %s: commits as a set (-slow +fast):\n%s\nfork: slow %s, fast %s", graph, p[0], p[1], diff, wantFork, got.ForkPoint)
		}
		cli := strings.Fields(h.git("rev-list", p[1]+".."+p[0]))
		slices.Sort(cli)
		if diff := cmp.Diff(cli, gotSet); len(cli)+len(got.Commits) > 0 && diff != "" {
			t.Errorf("graph=%v head %s base %s: commits as a set (-git +fast):\n%s", graph, p[0], p[1], diff)
		}
		checkTopological(t, repo, got)
	}
}

// checkTopological fails unless every commit of the log comes after its
// parents that are in the log.
func checkTopological(t *testing.T, repo *Repo, got Log) {
	t.Helper()
	at := map[string]int{}
	for i, c := range got.Commits {
		at[c.SHA] = i
	}
	for i, c := range got.Commits {
		obj, err := object.GetCommit(repo.store, plumbing.NewHash(c.SHA))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range obj.ParentHashes {
			if j, ok := at[p.String()]; ok && j >= i {
				t.Errorf("commit %s (position %d) comes before its parent %s (position %d)", c.SHA, i, p, j)
			}
		}
	}
}

// TestRepo_Log_OrderIsGitDateOrder: with distinct dates the order is
// exactly `git rev-list --reverse --date-order base..head`, on histories
// with criss-cross and octopus merges and the base merged in both ways.
func TestRepo_Log_OrderIsGitDateOrder(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			h, all := randomHistoryDated(t, seed, 120, false)
			marks := h.build()
			pairs := headBasePairs(marks, all, rand.New(rand.NewPCG(seed, 13)))
			for _, graph := range []bool{false, true} {
				if graph {
					h.git("commit-graph", "write", "--reachable")
				}
				repo, err := Open(h.dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range pairs {
					got, err := repo.Log(context.Background(), Options{Head: p[0], Base: p[1]})
					if err != nil {
						t.Fatalf("Log(%s, %s): %v", p[0], p[1], err)
					}
					want := strings.Fields(h.git("rev-list", "--reverse", "--date-order", p[1]+".."+p[0]))
					if diff := cmp.Diff(want, shas(got)); len(want)+len(got.Commits) > 0 && diff != "" {
						t.Errorf("graph=%v %s..%s (-git +ours):\n%s", graph, p[1], p[0], diff)
					}
				}
				_ = repo.Close()
			}
		})
	}
}

// TestGraphFile_matchesObjects reads every commit of a random history (with
// octopus merges) from the commit-graph file and from the objects.
func TestGraphFile_matchesObjects(t *testing.T) {
	t.Parallel()
	h, all := randomHistory(t, 99, 150)
	for i, m := range all { // keep every commit reachable, so the graph holds it
		h.ref(fmt.Sprintf("refs/keep/%d", i), m)
	}
	marks := h.build()
	h.git("commit-graph", "write", "--reachable")
	g, err := packfile.OpenGraph(filepath.Join(h.dir, ".git", "objects", "info"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	repo, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	octopus := 0
	for _, m := range all {
		sha := plumbing.NewHash(marks[m])
		got, ok := g.Header(sha)
		c, err := object.GetCommit(repo.store, sha)
		if !ok || err != nil {
			t.Fatalf("commit %s: in graph %v, object error %v", sha, ok, err)
		}
		want := packfile.Header{Parents: c.ParentHashes, When: c.Committer.When.Unix(), Gen: got.Gen}
		if diff := cmp.Diff(want, got); diff != "" || got.Gen == packfile.GenUnknown || got.Gen == 0 {
			t.Errorf("commit %s (-objects +graph):\n%s (generation %d)", sha, diff, got.Gen)
		}
		if len(c.ParentHashes) > 2 {
			octopus++
		}
	}
	if octopus == 0 {
		t.Fatal("the history has no octopus merge; the extra-edges chunk is untested")
	}
}
