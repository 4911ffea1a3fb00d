package packfile

import (
	"container/list"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// cached is one decoded object.
type cached struct {
	typ  plumbing.ObjectType
	data []byte
}

type lruKey struct {
	p   *pack
	off int64
}

type lruItem struct {
	key lruKey
	val cached
}

// lru keeps recently decoded objects, delta bases above all, up to a byte
// budget.
type lru struct {
	mu           sync.Mutex
	budget, used int
	order        *list.List
	items        map[lruKey]*list.Element
}

func newLRU(budget int) *lru {
	return &lru{budget: budget, order: list.New(), items: map[lruKey]*list.Element{}}
}

func (c *lru) get(p *pack, off int64) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[lruKey{p, off}]
	if !ok {
		return cached{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruItem).val, true
}

func (c *lru) put(p *pack, off int64, v cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := lruKey{p, off}
	if _, ok := c.items[k]; ok || len(v.data) > c.budget/4 {
		return
	}
	c.items[k] = c.order.PushFront(&lruItem{key: k, val: v})
	c.used += len(v.data)
	for c.used > c.budget {
		last := c.order.Back()
		item := last.Value.(*lruItem)
		c.order.Remove(last)
		delete(c.items, item.key)
		c.used -= len(item.val.data)
	}
}
