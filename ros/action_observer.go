package ros

import (
	"time"
)

// ActionObserver is told of the goals and cancels a connection's action
// clients send: the seam through which a peer that counts messages (the
// simulator's lockstep, package bridge) follows the action traffic without
// the action code knowing of it. The methods are called on the clients'
// goroutines and must not block.
type ActionObserver interface {
	// Sent is called once a goal or a cancel has been published.
	Sent()
	// HoldsCancels reports whether a cancel of a goal its server has not
	// yet said a word about waits for that word (maxCancelDelay at most)
	// before it goes: a goal and its cancel travel on topics of their
	// own, and a peer that counts them must take them in the same order
	// on every run.
	HoldsCancels() bool
}

// observerBox holds an ActionObserver for an atomic.Pointer.
type observerBox struct{ o ActionObserver }

// SetActionObserver installs o as the observer of the connection's action
// clients (nil removes it).
func (c *Conn) SetActionObserver(o ActionObserver) {
	if o == nil {
		c.observer.Store(nil)
		return
	}
	c.observer.Store(&observerBox{o})
}

// ActionObserver returns the observer SetActionObserver installed, or nil.
func (c *Conn) ActionObserver() ActionObserver {
	if b := c.observer.Load(); b != nil {
		return b.o
	}
	return nil
}

// GoalsEnded returns how many goals of the connection's action clients
// have received their terminal state so far, counting the goals that
// ActionClient.Run gave up on (a lockstep compares it with the number its
// simulator ended).
func (c *Conn) GoalsEnded() uint64 { return c.goalsEnded.Load() }

// actionSent tells the observer that a goal or a cancel went out.
func (c *Conn) actionSent() {
	if o := c.ActionObserver(); o != nil {
		o.Sent()
	}
}

// holdsCancels is the observer's HoldsCancels; false without one.
func (c *Conn) holdsCancels() bool {
	o := c.ActionObserver()
	return o != nil && o.HoldsCancels()
}

// AwaitCancels waits until the servers have acknowledged the cancels of the
// goals halted so far (or CancelAckPatience passed for each), or until
// deadline fires, and reports whether they were.
func (c *Conn) AwaitCancels(deadline <-chan time.Time) bool {
	c.mu.Lock()
	pending := append([]chan struct{}(nil), c.cancels...)
	c.mu.Unlock()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
	return true
}
