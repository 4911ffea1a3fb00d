package gitlog

import (
	"container/heap"
	"slices"
)

// nodeQueue is the walk's queue, a max-heap: highest generation first,
// then newest commit, then first pushed.
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

// orderQueue is git's prio_queue under compare_commits_by_commit_date:
// newest first, then first put.
type orderQueue struct {
	items []orderItem
	ctr   int
}

type orderItem struct {
	n   *node
	ctr int
}

func (q *orderQueue) Len() int { return len(q.items) }
func (q *orderQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.n.When != b.n.When {
		return a.n.When > b.n.When
	}
	return a.ctr < b.ctr
}
func (q *orderQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *orderQueue) Push(x any)    { q.items = append(q.items, x.(orderItem)) }
func (q *orderQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

func (q *orderQueue) put(n *node) {
	q.ctr++
	heap.Push(q, orderItem{n: n, ctr: q.ctr})
}

func (q *orderQueue) get() *node { return heap.Pop(q).(orderItem).n }

// sortByFirstPop orders nodes as the walk first popped them.
func sortByFirstPop(set []*node) {
	slices.SortFunc(set, func(a, b *node) int { return a.first - b.first })
}
