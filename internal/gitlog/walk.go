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
	seq    int // push order, the tie-breaker between equal dates
	first  int // order of the first pop; 0 = never popped
	flags  uint8
	queued bool
	popped bool
	degree int // topological sort: children in the set not yet emitted, plus one
}

// walker paints the history from the head and the base, newest first, as
// git's revision walk does for `base..head`: a commit reachable from the
// base is uninteresting and passes that on to its parents; the walk stops
// once every commit still queued is uninteresting. It keeps only the
// commits it has read, never a full ancestry set.
type walker struct {
	src         *source
	shallow     map[plumbing.Hash]bool
	nodes       map[plumbing.Hash]*node
	queue       nodeQueue
	interesting int                 // queued nodes not reachable from the base
	exact       bool                // every node read has a generation number
	floor       int64               // oldest date of a popped commit not reachable from the base
	onBranch    func(plumbing.Hash) // told of each commit that looks like a branch commit when first popped
	pushes      int
	pops        int
}

// walkResult is what the walk found.
type walkResult struct {
	// branch is base..head, newest first, in the order of
	// `git log --date-order base..head`.
	branch []plumbing.Hash
	// fork is the first commit of the head's first-parent chain that is
	// reachable from the base; zero when there is no base or the chain
	// reaches a root without meeting it.
	fork plumbing.Hash
	read int // commits read, for tests and benchmarks
}

func newWalker(src *source, shallow map[plumbing.Hash]bool) *walker {
	return &walker{src: src, shallow: shallow, nodes: map[plumbing.Hash]*node{}, exact: src.graph != nil, floor: math.MaxInt64}
}

// walk reads base..head; a zero base reads every commit reachable from
// the head.
func (w *walker) walk(ctx context.Context, head, base plumbing.Hash) (walkResult, error) {
	if err := w.mark(head, fromHead); err != nil {
		return walkResult{}, fmt.Errorf("read commit %s: %w", head, err)
	}
	if !base.IsZero() {
		if err := w.mark(base, fromBase); err != nil {
			return walkResult{}, fmt.Errorf("read commit %s: %w", base, err)
		}
	}
	left := slop
	for w.queue.Len() > 0 {
		if w.interesting == 0 {
			if w.exact {
				break
			}
			// git's still_interesting: go on while a queued commit is as
			// new as the oldest interesting one, else slop more commits.
			if w.queue[0].When >= w.floor {
				left = slop
			} else if left--; left < 0 {
				break
			}
		} else {
			left = slop
		}
		if w.pops%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return walkResult{}, err
			}
		}
		if err := w.step(heap.Pop(&w.queue).(*node)); err != nil {
			return walkResult{}, err
		}
	}
	return w.result(head)
}

// step expands one popped node: its parents inherit its paint, the base's
// paint winning over the head's.
func (w *walker) step(n *node) error {
	n.popped = true
	w.pops++
	uninteresting := n.flags&fromBase != 0
	if !uninteresting {
		w.interesting--
		w.floor = min(w.floor, n.When)
	}
	if n.first == 0 {
		n.first = w.pops
		if !uninteresting && w.onBranch != nil {
			w.onBranch(n.hash)
		}
	}
	if len(n.Parents) > 0 && w.shallow[n.hash] {
		if uninteresting {
			return nil
		}
		return shallowError(n.hash, "the history ends")
	}
	flag := fromHead
	if uninteresting {
		flag = fromBase
	}
	for _, p := range n.Parents {
		err := w.mark(p, flag)
		switch {
		case err == nil:
		case uninteresting && errors.Is(err, plumbing.ErrObjectNotFound):
			// The base's history is incomplete below here; what the branch
			// needs was read.
		case errors.Is(err, plumbing.ErrObjectNotFound):
			return shallowError(n.hash, fmt.Sprintf("parent %s is missing", p))
		default:
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
	n.queued = true
	w.pushes++
	n.seq = w.pushes
	if n.flags&fromBase == 0 {
		w.interesting++
	}
	heap.Push(&w.queue, n)
}

// result reads the final paint: the commits reachable from the head only,
// in git's --date-order, reversed.
func (w *walker) result(head plumbing.Hash) (walkResult, error) {
	res := walkResult{read: len(w.nodes)}
	var set []*node
	for _, n := range w.nodes {
		if n.flags == fromHead {
			set = append(set, n)
		}
	}
	order, err := dateOrder(set, w.nodes)
	if err != nil {
		return walkResult{}, err
	}
	res.branch = make([]plumbing.Hash, len(order))
	for i, n := range order {
		res.branch[i] = n.hash
	}
	// The fork: follow the head's first parents out of the set. Every
	// step stays in the set (already sorted, so without cycles) or leaves it.
	for n, steps := w.nodes[head], 0; n != nil && steps <= len(set); steps++ {
		if n.flags&fromBase != 0 {
			res.fork = n.hash
			break
		}
		if len(n.Parents) == 0 {
			break
		}
		n = w.nodes[n.Parents[0]]
	}
	return res, nil
}

// dateOrder sorts set as git's --date-order does: no commit before all of
// its children in the set, otherwise newest first; ties keep the walk's
// order. A commit that never becomes free sits on a cycle, which real
// history cannot have: the agent crafted the objects or the commit-graph.
func dateOrder(set []*node, nodes map[plumbing.Hash]*node) ([]*node, error) {
	// The walk's order: first pop.
	sortByFirstPop(set)
	for _, n := range set {
		n.degree = 1
	}
	for _, n := range set {
		for _, p := range n.Parents {
			if pn := nodes[p]; pn != nil && pn.degree > 0 {
				pn.degree++
			}
		}
	}
	q := &orderQueue{}
	for _, n := range set {
		if n.degree == 1 {
			q.put(n)
		}
	}
	out := make([]*node, 0, len(set))
	for q.Len() > 0 {
		n := q.get()
		for _, p := range n.Parents {
			if pn := nodes[p]; pn != nil && pn.degree > 0 {
				if pn.degree--; pn.degree == 1 {
					q.put(pn)
				}
			}
		}
		n.degree = 0
		out = append(out, n)
	}
	if len(out) < len(set) {
		for _, n := range set {
			if n.degree == 0 {
				continue
			}
			for _, p := range n.Parents {
				if pn := nodes[p]; pn != nil && pn.degree > 0 {
					return nil, errCycle(n.hash, p)
				}
			}
		}
		return nil, errCycle(set[0].hash, set[0].hash)
	}
	return out, nil
}
