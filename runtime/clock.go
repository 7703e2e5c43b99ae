package runtime

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time source of a tree and its loop. Everything that waits
// reads a Clock, never the wall directly, so that a simulator (ROS sim time)
// or a test (ManualClock) can run a long mission in a short while.
type Clock interface {
	// Now returns the clock's current time.
	Now() time.Time
	// Timer returns a channel that is closed once the clock reaches at, and a
	// stop function that releases the timer early. A time already passed
	// gives a channel that is closed at once.
	Timer(at time.Time) (<-chan struct{}, func())
}

// StepClock is a Clock that moves in steps fed from outside, such as ROS
// time following /clock. The loop measures lateness against it on the wall
// clock, from the moment the clock reached a tick's due time: on the
// simulated clock alone a loop that is on time would look a step late.
type StepClock interface {
	Clock
	// ReachedAt returns the wall time at which the clock first read at or
	// later; false when it has not, or no longer remembers.
	ReachedAt(at time.Time) (time.Time, bool)
}

// WallClock is the host's clock, with timers precise to tens of
// microseconds. Go's own timers wake from an epoll wait whose timeout is a
// whole number of milliseconds, so they fire up to a millisecond late;
// that alone would put the p99 lateness of a 100 Hz loop near a
// millisecond. Here a Go timer covers all but the last preciseWindow, and
// the rest is slept in the kernel (nanosleep) on the timer's goroutine.
// Stopping a timer in that last stretch lets it run out and close a
// channel nobody reads.
type WallClock struct{}

// preciseWindow is the stretch before a deadline slept in the kernel: more
// than the millisecond a Go timer may be late.
const preciseWindow = 2 * time.Millisecond

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// Timer waits on the host's monotonic clock.
func (WallClock) Timer(at time.Time) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	d := time.Until(at)
	if d <= 0 {
		close(ch)
		return ch, func() {}
	}
	finish := func() {
		for r := time.Until(at); r > 0; r = time.Until(at) {
			sleepPrecisely(r)
		}
		close(ch)
	}
	if d <= preciseWindow {
		go finish()
		return ch, func() {}
	}
	t := time.AfterFunc(d-preciseWindow, finish)
	return ch, func() { t.Stop() }
}

// ManualClock is a clock that moves only when told to. Tests use it to step a
// loop or a timeout deterministically. It is safe for concurrent use.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []manualTimer
}

type manualTimer struct {
	at time.Time
	ch chan struct{}
}

// NewManualClock returns a clock that reads start until advanced.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d and fires the timers it passes.
func (c *ManualClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t (never backwards) and fires the timers it passes.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.now) {
			close(tm.ch)
		} else {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}

// Pending returns the deadlines of the timers not yet fired, earliest first.
func (c *ManualClock) Pending() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]time.Time, len(c.timers))
	for i, tm := range c.timers {
		out[i] = tm.at
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// Timer fires when Advance or Set reaches at.
func (c *ManualClock) Timer(at time.Time) (<-chan struct{}, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if !at.After(c.now) {
		close(ch)
		return ch, func() {}
	}
	c.timers = append(c.timers, manualTimer{at: at, ch: ch})
	stop := func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, tm := range c.timers {
			if tm.ch == ch {
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				return
			}
		}
	}
	return ch, stop
}
