package ros

import (
	"time"
)

// pacingClock is the wall clock with timers precise to tens of
// microseconds, which Run paces the tick loop with. Go's timers wake from
// an epoll wait whose timeout is a whole number of milliseconds, so a timer
// fires up to a millisecond late; that alone would put the p99 lateness of
// a 100 Hz loop near a millisecond. Here a Go timer covers all but the last
// pacingWindow, and the rest is slept in the kernel (nanosleep) on the
// timer's own goroutine. Stopping a timer in that last stretch lets it run
// out and close a channel nobody reads.
type pacingClock struct{}

// pacingWindow is the stretch before a deadline slept in the kernel: more
// than the millisecond a Go timer may be late.
const pacingWindow = 2 * time.Millisecond

func (pacingClock) Now() time.Time { return time.Now() }

func (pacingClock) Timer(at time.Time) (<-chan struct{}, func()) {
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
	if d <= pacingWindow {
		go finish()
		return ch, func() {}
	}
	t := time.AfterFunc(d-pacingWindow, finish)
	return ch, func() { t.Stop() }
}
