package gitlog

import (
	"context"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// readResult is one commit read by a reader.
type readResult struct {
	commit breaker.Commit
	notes  []string
	err    error
}

// reader reads commits (message, trailers, changed paths) on background
// goroutines. Log starts one before the walk and feeds it each commit the
// walk finds on the branch, so the tree reads overlap the walk.
type reader struct {
	ctx     context.Context
	cancel  context.CancelFunc
	repo    *Repo
	opts    Options
	jobs    chan plumbing.Hash
	wg      sync.WaitGroup
	mu      sync.Mutex
	results map[plumbing.Hash]readResult
}

// newReader starts workers goroutines.
func newReader(ctx context.Context, repo *Repo, opts Options, workers int) *reader {
	ctx, cancel := context.WithCancel(ctx)
	rd := &reader{ctx: ctx, cancel: cancel, repo: repo, opts: opts, jobs: make(chan plumbing.Hash, 1<<12), results: map[plumbing.Hash]readResult{}}
	for range max(workers, 1) {
		rd.wg.Add(1)
		go rd.work()
	}
	return rd
}

func (rd *reader) work() {
	defer rd.wg.Done()
	for h := range rd.jobs {
		if rd.ctx.Err() != nil {
			continue // stopped: drain the queue without reading
		}
		c, notes, err := rd.repo.commit(rd.ctx, h, rd.opts)
		rd.mu.Lock()
		rd.results[h] = readResult{commit: c, notes: notes, err: err}
		rd.mu.Unlock()
	}
}

// offer queues h if there is room; a commit left out is read later.
func (rd *reader) offer(h plumbing.Hash) {
	select {
	case rd.jobs <- h:
	default:
	}
}

// add queues h, waiting for room.
func (rd *reader) add(h plumbing.Hash) { rd.jobs <- h }

// finish waits for every queued commit to be read.
func (rd *reader) finish() {
	close(rd.jobs)
	rd.wg.Wait()
	rd.cancel()
}

// stop abandons the queued commits and waits for the workers to exit.
func (rd *reader) stop() {
	rd.cancel()
	close(rd.jobs)
	rd.wg.Wait()
}

// result returns what was read of h; safe on a nil reader.
func (rd *reader) result(h plumbing.Hash) (readResult, bool) {
	if rd == nil {
		return readResult{}, false
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	res, ok := rd.results[h]
	return res, ok
}
