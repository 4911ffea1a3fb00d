package gitlog

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/greenlight-ci/breaker/internal/gitlog/packfile"
)

// Paint flags: which tip a commit is reachable from.
const (
	fromHead uint8 = 1 << iota
	fromBase
)

// slop is how many commits the date-ordered walk reads past the point where
// nothing interesting remains, as git does, to tolerate clock skew.
const slop = 5

// node is one commit the walk has seen.
type node struct {
	hash plumbing.Hash
	packfile.Header
	seq     int // insertion order, the tie-breaker between equal dates
	flags   uint8
	queued  bool
	popped  bool
	onChain bool // on the head's first-parent chain: met again, a cycle
}

// walker paints the history from the head and the base, newest first, until
// the first-parent chain of the head has met the base's history and what is
// left to read is common to both sides (git's paint-down-to-common). It
// keeps only the commits it has read, never a full ancestry set.
type walker struct {
	src         *source
	shallow     map[plumbing.Hash]bool
	nodes       map[plumbing.Hash]*node
	queue       nodeQueue
	interesting int                 // queued nodes not reachable from the base
	chain       []*node             // head's first-parent chain, as far as known
	exact       bool                // every node read has a generation number
	settled     bool                // the chain has reached the base or a root
	floor       int64               // oldest date of a chain commit found on the branch
	onBranch    func(plumbing.Hash) // told of each chain commit that looks like a branch commit
	pushes      int
	cycle       error // the chain came back to itself (a crafted commit-graph)
}

// forkResult is what the walk found: the head's first-parent commits not
// reachable from the base (newest first) and the first one that is.
type forkResult struct {
	branch []plumbing.Hash
	fork   plumbing.Hash // zero when the chain reached a root
	read   int           // commits read, for tests and benchmarks
}

func newWalker(src *source, shallow map[plumbing.Hash]bool) *walker {
	return &walker{src: src, shallow: shallow, nodes: map[plumbing.Hash]*node{}, exact: src.graph != nil}
}

// findFork walks head against base.
func (w *walker) findFork(ctx context.Context, head, base plumbing.Hash) (forkResult, error) {
	for _, tip := range []struct {
		h    plumbing.Hash
		flag uint8
	}{{head, fromHead}, {base, fromBase}} {
		if err := w.mark(tip.h, tip.flag); err != nil {
			return forkResult{}, fmt.Errorf("read commit %s: %w", tip.h, err)
		}
	}
	w.chain = []*node{w.nodes[head]}
	w.nodes[head].onChain = true
	w.floor = math.MaxInt64
	left := slop
	for pops := 1; w.queue.Len() > 0; pops++ {
		if w.advanceChain(); w.cycle != nil || w.done(left) {
			break
		}
		if w.settled && w.interesting == 0 {
			left--
		} else {
			left = slop
		}
		if pops%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return forkResult{}, err
			}
		}
		if err := w.step(heap.Pop(&w.queue).(*node)); err != nil {
			return forkResult{}, err
		}
	}
	w.advanceChain()
	if w.cycle != nil {
		return forkResult{}, w.cycle
	}
	return w.result(), nil
}

// done reports whether the paint of the head's first-parent chain is final.
// With generation numbers it is as soon as the chain is settled. Ordered by
// date it is once nothing interesting is queued, slop more commits have been
// read, and no queued commit is as new as the oldest branch commit: with
// dates that never decrease from parent to child the answer is then exact,
// and a small clock skew is tolerated as git tolerates it.
func (w *walker) done(left int) bool {
	if !w.settled {
		return false
	}
	if w.exact {
		return true
	}
	return w.interesting == 0 && left <= 0 && w.queue[0].When < w.floor
}

// step expands one popped node: its parents inherit its paint, the base's
// paint winning over the head's.
func (w *walker) step(n *node) error {
	n.popped = true
	if n.flags&fromBase == 0 {
		w.interesting--
	}
	if len(n.Parents) > 0 && w.shallow[n.hash] {
		if w.settled {
			return nil
		}
		return shallowError(n.hash, "the history ends")
	}
	flag := fromHead
	if n.flags&fromBase != 0 {
		flag = fromBase
	}
	for _, p := range n.Parents {
		if err := w.mark(p, flag); err != nil {
			if w.settled {
				continue
			}
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				return shallowError(n.hash, fmt.Sprintf("parent %s is missing", p))
			}
			return fmt.Errorf("read commit %s: %w", p, err)
		}
	}
	return nil
}

// mark paints commit h with flag, reading it on first sight, and queues it
// when it has something new to pass on to its parents.
func (w *walker) mark(h plumbing.Hash, flag uint8) error {
	n, ok := w.nodes[h]
	if !ok {
		hd, err := w.src.load(h)
		if err != nil {
			return err
		}
		n = &node{hash: h, Header: hd}
		w.nodes[h] = n
		if hd.Gen == packfile.GenUnknown {
			w.exact = false
		}
	}
	if n.flags&flag != 0 {
		return nil
	}
	gainsBase := flag == fromBase && n.flags&fromBase == 0
	n.flags |= flag
	switch {
	case n.queued && gainsBase:
		w.interesting--
	case !n.queued && (!n.popped || gainsBase):
		w.push(n)
	}
	return nil
}

func (w *walker) push(n *node) {
	n.queued, n.popped = true, false
	w.pushes++
	n.seq = w.pushes
	if n.flags&fromBase == 0 {
		w.interesting++
	}
	heap.Push(&w.queue, n)
}

// advanceChain extends the head's first-parent chain through commits whose
// paint is final, and notes when it has reached the base or a root.
func (w *walker) advanceChain() {
	for !w.settled {
		last := w.chain[len(w.chain)-1]
		switch {
		case last.flags&fromBase != 0:
			w.settled = true
		case !last.popped:
			return
		case len(last.Parents) == 0 || w.nodes[last.Parents[0]] == nil:
			w.settled = true
		case w.nodes[last.Parents[0]].onChain:
			w.cycle = errCycle(last.hash, last.Parents[0])
			w.settled = true
		default:
			w.floor = min(w.floor, last.When)
			if w.onBranch != nil {
				w.onBranch(last.hash)
			}
			next := w.nodes[last.Parents[0]]
			next.onChain = true
			w.chain = append(w.chain, next)
		}
	}
}

// result reads the final paint: the branch ends at the first chain commit
// reachable from the base.
func (w *walker) result() forkResult {
	res := forkResult{read: len(w.nodes)}
	for _, n := range w.chain {
		if n.flags&fromBase != 0 {
			res.fork = n.hash
			break
		}
		res.branch = append(res.branch, n.hash)
	}
	return res
}

// nodeQueue is a max-heap: highest generation first, then newest commit.
type nodeQueue []*node

func (q nodeQueue) Len() int { return len(q) }
func (q nodeQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.Gen != b.Gen {
		return a.Gen > b.Gen
	}
	if a.When != b.When {
		return a.When > b.When
	}
	return a.seq < b.seq
}
func (q nodeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *nodeQueue) Push(x any)   { *q = append(*q, x.(*node)) }
func (q *nodeQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	n.queued = false
	return n
}
