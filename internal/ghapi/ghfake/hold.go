package ghfake

import (
	"strings"
	"sync"
	"time"
)

// holdWait bounds how long a held request waits for the others: a test
// whose requests never all come goes on (and fails on what it checks)
// rather than hanging.
const holdWait = 20 * time.Second

// hold keeps the first n requests matching a method and path waiting
// until all n have come: requests that real clients send side by side
// (two replicas reading the ledger before either writes) arrive side by
// side here, every time.
type hold struct {
	method, path string
	n            int
	wg           sync.WaitGroup
	done         chan struct{}
}

// Hold makes the next n requests matching method and pathPattern (see
// Failure.Path) wait for one another: none is answered before all n
// have arrived (or 20 seconds have passed).
func (s *Server) Hold(method, pathPattern string, n int) {
	h := &hold{method: method, path: pathPattern, n: n, done: make(chan struct{})}
	h.wg.Add(n)
	go func() {
		h.wg.Wait()
		close(h.done)
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds = append(s.holds, h)
}

// takeHold is the hold the request joins, if any. The caller holds s.mu.
func (s *Server) takeHold(method, path string) *hold {
	for i, h := range s.holds {
		if (h.method != "" && !strings.EqualFold(h.method, method)) || !matchPath(h.path, path) {
			continue
		}
		if h.n--; h.n == 0 {
			s.holds = append(s.holds[:i], s.holds[i+1:]...)
		}
		return h
	}
	return nil
}

// wait counts the request in and waits for the rest.
func (h *hold) wait() {
	h.wg.Done()
	select {
	case <-h.done:
	case <-time.After(holdWait):
	}
}
