package runtime

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The loop's safety runs on its wall clock, whatever clock paces the tree:
// these tests pace the loop with one ManualClock (the simulated time) and
// give it another as the wall.

// TestLoopStallIsCountedOnTheWallClock: a process that did not run for the
// stall limit (SIGSTOP) is noticed before the next tick latches, whether
// the simulated time moved meanwhile or not, and only then.
func TestLoopStallIsCountedOnTheWallClock(t *testing.T) {
	const limit = 300 * time.Millisecond
	cases := []struct {
		name       string
		wallStep   time.Duration // wall time passing before the next period
		wantResume []string
	}{
		{"on time", 100 * time.Millisecond, nil},
		{"just under the limit", limit - time.Millisecond, nil},
		{"stalled at the limit", limit, []string{"resume 300ms"}},
		{"stalled five seconds", 5 * time.Second, []string{"resume 5s"}},
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // the monitor's goroutine ends with the loop
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewManualClock(testEpoch)
			wall := NewManualClock(testEpoch)
			run := &loopRun{}
			tree := loopTree(t, clock, func(*funcLeaf) (Status, error) { run.add("tick"); return Running, nil })
			var reported atomic.Int64 // the tick reports' Stalled, summed
			startLoop(t, LoopConf{
				Tree: tree, Rate: 10, Wall: wall, StallLimit: limit,
				Observe:  func(r TickReport) { reported.Add(int64(r.Stalled)) },
				OnResume: func(d time.Duration) { run.add("resume " + d.String()) },
				Latch:    func(time.Time) error { run.add("latch"); return nil },
			}, run)
			require.Equal(t, []string{"latch", "tick"}, run.expect(t, 2))
			// The monitor beats every limit/4 of wall time: step the wall in
			// beats, as a running process would see it, or all at once.
			wall.Advance(tc.wallStep)
			time.Sleep(5 * time.Millisecond) // let the monitor's beat run
			clock.Advance(100 * time.Millisecond)
			want := append(append([]string{}, tc.wantResume...), "latch", "tick")
			assert.Equal(t, want, run.expect(t, len(want)))
			s := run.loop.Stats()
			assert.Equal(t, uint64(len(tc.wantResume)), s.Stalls)
			if len(tc.wantResume) > 0 {
				assert.Equal(t, tc.wallStep, s.LongestStall)
				assert.Eventually(t, func() bool { return time.Duration(reported.Load()) == tc.wallStep }, time.Second, time.Millisecond,
					"the tick after the stall reports it")
			} else {
				assert.Zero(t, reported.Load())
			}
		})
	}
}

// TestLoopWatchdogRunsOnTheWallClock: a tick stuck while the simulated
// clock stands still (a simulator that died) still trips the watchdog,
// and simulated time racing ahead does not.
func TestLoopWatchdogRunsOnTheWallClock(t *testing.T) {
	clock := NewManualClock(testEpoch)
	wall := NewManualClock(testEpoch.Add(1000 * time.Hour)) // the wall is not the simulation's time
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	tree := loopTree(t, clock, func(*funcLeaf) (Status, error) {
		entered <- struct{}{}
		<-release
		return Running, nil
	})
	stalled := make(chan struct{}, 1)
	run := &loopRun{}
	startLoop(t, LoopConf{Tree: tree, Rate: 10, Wall: wall, Watchdog: 300 * time.Millisecond,
		OnStall: func() { stalled <- struct{}{} }}, run)
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the loop's: the tick must end
	<-entered
	settle(t, wall) // the watchdog's timer is on the wall
	assert.Empty(t, clock.Pending(), "the watchdog must not wait on the tree's clock")
	clock.Advance(time.Hour)
	select {
	case <-stalled:
		require.Fail(t, "the watchdog fired on simulated time")
	case <-time.After(5 * time.Millisecond):
	}
	wall.Advance(300 * time.Millisecond)
	select {
	case <-stalled:
	case <-time.After(5 * time.Second):
		require.Fail(t, "the watchdog did not fire on the wall clock")
	}
}

// stepClock is a simulated clock that remembers, on its wall clock, when
// it reached each time it was set to.
type stepClock struct {
	*ManualClock
	wall *ManualClock
	mu   sync.Mutex
	set  map[time.Time]time.Time
}

func (c *stepClock) Set(t time.Time) {
	c.mu.Lock()
	c.set[t] = c.wall.Now()
	c.mu.Unlock()
	c.ManualClock.Set(t)
}

func (c *stepClock) ReachedAt(at time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best, bestWall time.Time
	for t, w := range c.set {
		if !t.Before(at) && (best.IsZero() || t.Before(best)) {
			best, bestWall = t, w
		}
	}
	return bestWall, !best.IsZero()
}

// TestLoopLatenessOnAStepClock: a loop on a clock that moves in 30 ms steps
// ticks up to a step after the due time by that clock, but on time by the
// wall: lateness is the wall time from the step that reached the due time
// to the tick.
func TestLoopLatenessOnAStepClock(t *testing.T) {
	wall := NewManualClock(testEpoch)
	clock := &stepClock{ManualClock: NewManualClock(testEpoch), wall: wall, set: map[time.Time]time.Time{}}
	run := &loopRun{}
	tree := loopTree(t, clock.ManualClock, func(*funcLeaf) (Status, error) { run.add("tick"); return Running, nil })
	var mu sync.Mutex
	var late []time.Duration
	startLoop(t, LoopConf{Tree: tree, Clock: clock, Rate: 10, Wall: wall, Observe: func(r TickReport) {
		mu.Lock()
		late = append(late, r.Lateness)
		mu.Unlock()
	}}, run)
	run.expect(t, 1)
	for step := 1; step <= 4; step++ { // 30, 60, 90, 120 ms: the 100 ms tick comes at 120
		settle(t, clock.ManualClock)
		wall.Advance(30 * time.Millisecond)
		clock.Set(testEpoch.Add(time.Duration(step) * 30 * time.Millisecond))
	}
	run.expect(t, 1)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, late, 2)
	assert.Equal(t, time.Duration(0), late[1], "the tick started the moment the clock reached its time")
}
