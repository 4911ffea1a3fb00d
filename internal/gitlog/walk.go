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
	hash plumbing.Hash // zero for a commit-graph node until named (walker.name)
	packfile.Header
	// parents are the nodes of Header's parents, in order, once the node
	// was stepped (nil for one that could not be read).
	parents []*node
	// pbuf and ppos back parents and ParentPos for the usual one or two
	// parents: a node read from the graph costs one allocation (its share
	// of an arena chunk) and no more.
	pbuf   [2]*node
	ppos   [2]uint32
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
	src     *source
	shallow map[plumbing.Hash]bool
	// nodes are the commits read from objects, by name; atPos those read
	// from the commit-graph, by position (the walk follows parent
	// positions, never searching for a parent, and a position hashes
	// faster than a name; positions follow the names' order, so a table
	// indexed by them would touch a page a node); all every node, in the
	// order read.
	nodes       map[plumbing.Hash]*node
	atPos       map[uint32]*node
	all         []*node
	arena       []node // the chunk new nodes are taken from
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
	w := &walker{src: src, shallow: shallow, nodes: map[plumbing.Hash]*node{}, exact: src.graph != nil, floor: math.MaxInt64}
	if src.graph != nil {
		w.atPos = map[uint32]*node{}
	}
	return w
}

// maxPresize bounds presize's guess (a few MB of table).
const maxPresize = 1 << 16

// presize sizes the graph nodes' table for the walk ahead: about as many
// commits as the tips' generations differ by (the walk from the newer
// tip down to the older one's level), so it is not grown and rehashed
// step by step on a fork far behind its base. A guess, never a bound.
func (w *walker) presize(head, base *node) {
	if w.src.graph == nil || base == nil || !head.InGraph || !base.InGraph || head.Gen == packfile.GenUnknown || base.Gen == packfile.GenUnknown {
		return
	}
	d := head.Gen - base.Gen
	if base.Gen > head.Gen {
		d = base.Gen - head.Gen
	}
	// At most maxPresize: the generations are the graph file's word, and
	// the file may be the agent's; a longer walk grows the table.
	n := min(int(min(d, maxPresize))+64, w.src.graph.Count())
	if n > 1024 {
		old := w.atPos
		w.atPos = make(map[uint32]*node, n)
		for k, v := range old {
			w.atPos[k] = v
		}
	}
}

// get returns the node of commit h, reading it on first sight: by its
// position when the commit-graph holds it, else from the objects.
func (w *walker) get(h plumbing.Hash) (*node, error) {
	if n, ok := w.nodes[h]; ok {
		return n, nil
	}
	if w.src.graph != nil {
		if pos, ok := w.src.graph.Lookup(h); ok {
			if n := w.atPos[pos]; n != nil {
				return n, nil
			}
			if n := w.fromGraph(pos); n != nil {
				n.hash = h
				return n, nil
			}
		}
	}
	hd, err := w.src.loadObject(h)
	if err != nil {
		return nil, err
	}
	n := w.newNode()
	n.hash, n.Header = h, hd
	w.nodes[h] = w.add(n)
	return n, nil
}

// newNode takes a zero node from the arena: nodes come in chunks, not one
// allocation each.
func (w *walker) newNode() *node {
	if len(w.arena) == 0 {
		w.arena = make([]node, 128)
	}
	n := &w.arena[0]
	w.arena = w.arena[1:]
	return n
}

// fromGraph reads the node at graph position pos from its row, nil when
// the row does not read.
func (w *walker) fromGraph(pos uint32) *node {
	n := w.newNode()
	n.ParentPos = n.ppos[:0]
	if !w.src.graph.Row(pos, &n.Header) {
		return nil // the slot stays unused
	}
	return w.add(n)
}

// getAt returns the node of the commit at graph position pos, reading its
// row on first sight; a row the graph cannot give is read from the
// objects by name.
func (w *walker) getAt(pos uint32) (*node, error) {
	if n := w.atPos[pos]; n != nil {
		return n, nil
	}
	if n := w.fromGraph(pos); n != nil {
		return n, nil
	}
	h, _ := w.src.graph.HashAt(pos)
	return w.get(h)
}

// add records a node just read.
func (w *walker) add(n *node) *node {
	w.all = append(w.all, n)
	if n.InGraph {
		w.atPos[n.Pos] = n
	}
	if n.Gen == packfile.GenUnknown {
		w.exact = false
	}
	return n
}

// name is the commit's name, read from the graph for a graph node.
func (w *walker) name(n *node) plumbing.Hash {
	if n.hash.IsZero() && n.InGraph {
		n.hash, _ = w.src.graph.HashAt(n.Pos)
	}
	return n.hash
}

// walk reads base..head; a zero base reads every commit reachable from
// the head.
func (w *walker) walk(ctx context.Context, head, base plumbing.Hash) (walkResult, error) {
	hn, err := w.get(head)
	if err != nil {
		return walkResult{}, fmt.Errorf("read commit %s: %w", head, err)
	}
	var bn *node
	if !base.IsZero() {
		if bn, err = w.get(base); err != nil {
			return walkResult{}, fmt.Errorf("read commit %s: %w", base, err)
		}
	}
	w.presize(hn, bn)
	w.mark(hn, fromHead)
	if bn != nil {
		w.mark(bn, fromBase)
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
	return w.result(hn)
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
			w.onBranch(w.name(n))
		}
	}
	if len(w.shallow) > 0 && (len(n.Parents) > 0 || len(n.ParentPos) > 0) && w.shallow[w.name(n)] {
		if uninteresting {
			return nil
		}
		return shallowError(w.name(n), "the history ends")
	}
	flag := fromHead
	if uninteresting {
		flag = fromBase
	}
	if n.parents == nil {
		if err := w.resolve(n, uninteresting); err != nil {
			return err
		}
	}
	for _, p := range n.parents {
		if p != nil {
			w.mark(p, flag)
		}
	}
	return nil
}

// resolve reads n's parents: by position from a graph row, else by name.
// A parent missing below an uninteresting commit is left nil: the base's
// history is incomplete there, and what the branch needs was read.
func (w *walker) resolve(n *node, uninteresting bool) error {
	count := len(n.Parents)
	if n.InGraph {
		count = len(n.ParentPos)
	}
	n.parents = n.pbuf[:0]
	if count > len(n.pbuf) {
		n.parents = make([]*node, 0, count)
	}
	n.parents = n.parents[:count]
	for i := range count {
		var p *node
		var err error
		var name plumbing.Hash
		if n.InGraph {
			p, err = w.getAt(n.ParentPos[i])
			if err != nil {
				name, _ = w.src.graph.HashAt(n.ParentPos[i])
			}
		} else {
			name = n.Parents[i]
			p, err = w.get(name)
		}
		if err != nil {
			if err := w.parentError(n, name, uninteresting, err); err != nil {
				return err
			}
			continue
		}
		n.parents[i] = p
	}
	return nil
}

// parentError says what a parent that could not be read means: nothing
// below the base, a shallow history below the branch.
func (w *walker) parentError(n *node, p plumbing.Hash, uninteresting bool, err error) error {
	switch {
	case uninteresting && errors.Is(err, plumbing.ErrObjectNotFound):
		return nil
	case errors.Is(err, plumbing.ErrObjectNotFound):
		return shallowError(w.name(n), fmt.Sprintf("parent %s is missing", p))
	default:
		return fmt.Errorf("read commit %s: %w", p, err)
	}
}

// mark paints node n with flag, and queues it when it has something new
// to pass on to its parents.
func (w *walker) mark(n *node, flag uint8) {
	if n.flags&flag != 0 {
		return
	}
	gainsBase := flag == fromBase && n.flags&fromBase == 0
	n.flags |= flag
	switch {
	case n.queued && gainsBase:
		w.interesting--
	case !n.queued && (!n.popped || gainsBase):
		w.push(n)
	}
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
func (w *walker) result(head *node) (walkResult, error) {
	res := walkResult{read: len(w.all)}
	var set []*node
	for _, n := range w.all {
		if n.flags == fromHead {
			set = append(set, n)
		}
	}
	order, err := dateOrder(set, w.name)
	if err != nil {
		return walkResult{}, err
	}
	res.branch = make([]plumbing.Hash, len(order))
	for i, n := range order {
		res.branch[i] = w.name(n)
	}
	// The fork: follow the head's first parents out of the set. Every
	// step stays in the set (already sorted, so without cycles) or leaves it.
	for n, steps := head, 0; n != nil && steps <= len(set); steps++ {
		if n.flags&fromBase != 0 {
			res.fork = w.name(n)
			break
		}
		if len(n.parents) == 0 {
			break
		}
		n = n.parents[0]
	}
	return res, nil
}

// dateOrder sorts set as git's --date-order does: no commit before all of
// its children in the set, otherwise newest first; ties keep the walk's
// order. A commit that never becomes free sits on a cycle, which real
// history cannot have: the agent crafted the objects or the commit-graph.
// name names a node for the error.
func dateOrder(set []*node, name func(*node) plumbing.Hash) ([]*node, error) {
	// The walk's order: first pop.
	sortByFirstPop(set)
	for _, n := range set {
		n.degree = 1
	}
	for _, n := range set {
		for _, pn := range n.parents {
			if pn != nil && pn.degree > 0 {
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
		for _, pn := range n.parents {
			if pn != nil && pn.degree > 0 {
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
			for _, pn := range n.parents {
				if pn != nil && pn.degree > 0 {
					return nil, errCycle(name(n), name(pn))
				}
			}
		}
		return nil, errCycle(name(set[0]), name(set[0]))
	}
	return out, nil
}
