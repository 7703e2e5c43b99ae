package master

import (
	"context"
	"sync"
)

// budget is a count of bytes that requests take shares of and give back: it
// bounds the memory of work in progress (request bodies being decoded,
// parameters copied for an answer) however many clients call at once.
type budget struct {
	size int64

	mu   sync.Mutex
	free int64
	// freed is closed, and replaced, whenever bytes are given back; waiters
	// then look again.
	freed chan struct{}
}

func newBudget(size int64) *budget {
	return &budget{size: size, free: size, freed: make(chan struct{})}
}

// acquire takes n bytes, waiting until they are free or ctx ends. A share
// larger than the whole budget is taken as the whole budget, once it is
// all free.
func (b *budget) acquire(ctx context.Context, n int64) error {
	n = min(n, b.size)
	for {
		b.mu.Lock()
		if n <= b.free {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryAcquire takes n bytes if they are free now and reports whether it did.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.free {
		return false
	}
	b.free -= n
	return true
}

// idle reports whether no share is taken.
func (b *budget) idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.free == b.size
}

// release gives back n bytes taken by acquire or tryAcquire.
func (b *budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free = min(b.free+n, b.size)
	close(b.freed)
	b.freed = make(chan struct{})
}
