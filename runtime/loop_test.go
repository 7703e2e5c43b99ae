package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// funcLeaf is a leaf whose Tick is a closure, for loop tests.
type funcLeaf struct {
	Base
	tick func(n *funcLeaf) (Status, error)
}

func (n *funcLeaf) Tick() (Status, error) { return n.tick(n) }

func loopTree(t *testing.T, clock Clock, tick func(n *funcLeaf) (Status, error)) *Tree {
	t.Helper()
	reg := NewRegistry()
	reg.MustRegister(NodeType{ID: "Fn", Kind: ActionKind, New: func(*Config) (Node, error) {
		return &funcLeaf{tick: tick}, nil
	}})
	doc := &Document{Trees: []*TreeSpec{{ID: "Main", Root: N("Fn", nil)}}}
	tree, err := Build(reg, doc, BuildConf{Clock: clock, Seed: 1})
	require.NoError(t, err)
	return tree
}

// loopPatience bounds the loop tests' waits for the loop goroutine: it
// states liveness, not speed — the suite beside it, and other runs of it,
// have starved a test process for 5 s (proof run 76, load 12 on 2 cores).
const loopPatience = 30 * time.Second

// settle waits until the loop goroutine blocks on the manual clock.
func settle(t *testing.T, c *ManualClock) {
	t.Helper()
	deadline := time.Now().Add(loopPatience)
	for len(c.Pending()) == 0 {
		require.False(t, time.Now().After(deadline), "loop never waited on the clock")
		time.Sleep(50 * time.Microsecond)
	}
}

type loopRun struct {
	mu     sync.Mutex
	events []string
	st     Status
	err    error
	done   chan struct{}
	cancel context.CancelFunc
	loop   *Loop
}

func (r *loopRun) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// expect waits until the loop has recorded n events and takes them.
func (r *loopRun) expect(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(loopPatience)
	for {
		r.mu.Lock()
		k := len(r.events)
		r.mu.Unlock()
		if k >= n {
			time.Sleep(time.Millisecond) // let any surplus show
			return r.take()
		}
		if time.Now().After(deadline) {
			// Taken only here: a take in every round's message would eat
			// the events the loop adds between the count and the take.
			require.FailNow(t, fmt.Sprintf("waited for %d loop events, have %v", n, r.take()))
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func (r *loopRun) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func startLoop(t *testing.T, conf LoopConf, run *loopRun) {
	t.Helper()
	loop, err := NewLoop(conf)
	require.NoError(t, err)
	run.loop = loop
	ctx, cancel := context.WithCancel(context.Background())
	run.cancel, run.done = cancel, make(chan struct{})
	go func() {
		defer close(run.done)
		run.st, run.err = loop.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-run.done })
}

func TestLoopScanCycleAtFixedRate(t *testing.T) {
	clock := NewManualClock(testEpoch)
	run := &loopRun{}
	tree := loopTree(t, clock, func(n *funcLeaf) (Status, error) { run.add("tick"); return Running, nil })
	startLoop(t, LoopConf{
		Tree: tree, Rate: 10,
		Latch: func(now time.Time) error { run.add("latch@" + now.Sub(testEpoch).String()); return nil },
		Flush: func(now time.Time, st Status) error { run.add("flush:" + st.String()); return nil },
	}, run)
	got := run.expect(t, 3)
	require.Len(t, got, 3, "first scan cycle = %v, want [latch@0s tick flush:RUNNING]", got)
	require.Equal(t, "latch@0s", got[0], "first scan cycle = %v, want [latch@0s tick flush:RUNNING]", got)
	require.Equal(t, "tick", got[1], "first scan cycle = %v, want [latch@0s tick flush:RUNNING]", got)
	require.Equal(t, "flush:RUNNING", got[2], "first scan cycle = %v, want [latch@0s tick flush:RUNNING]", got)
	for i := 1; i <= 5; i++ {
		// Advance only once the loop waits for the clock: a loop still
		// finishing its tick would read the next due time as its end.
		settle(t, clock)
		clock.Advance(50 * time.Millisecond) // half a period: no tick
		time.Sleep(time.Millisecond)
		got := run.take()
		require.Len(t, got, 0, "ticked between periods: %v", got)
		clock.Advance(50 * time.Millisecond)
		want := "latch@" + (time.Duration(i) * 100 * time.Millisecond).String()
		got = run.expect(t, 3)
		require.Len(t, got, 3, "period %d: %v, want %s first", i, got, want)
		require.Equal(t, want, got[0], "period %d: %v, want %s first", i, got, want)
	}
	s := run.loop.Stats()
	require.Equal(t, uint64(6), s.Ticks, "stats %+v", s)
	require.Equal(t, uint64(0), s.EarlyTicks, "stats %+v", s)
	require.Equal(t, uint64(0), s.Overruns, "stats %+v", s)
}

func TestLoopEarlyWakeIsRateLimited(t *testing.T) {
	clock := NewManualClock(testEpoch)
	run := &loopRun{}
	var tree *Tree
	tree = loopTree(t, clock, func(n *funcLeaf) (Status, error) {
		run.add("tick@" + clock.Now().Sub(testEpoch).String())
		return Running, nil
	})
	startLoop(t, LoopConf{Tree: tree, Rate: 10, MaxRate: 50}, run)
	run.expect(t, 1)
	settle(t, clock)
	tree.Wake() // right after a tick: must wait for 1/50 s
	time.Sleep(2 * time.Millisecond)
	got := run.take()
	require.Len(t, got, 0, "woke sooner than MaxRate allows: %v", got)
	clock.Advance(20 * time.Millisecond)
	got = run.expect(t, 1)
	require.Len(t, got, 1, "early tick = %v, want [tick@20ms]", got)
	require.Equal(t, "tick@20ms", got[0], "early tick = %v, want [tick@20ms]", got)
	settle(t, clock)
	clock.Advance(30 * time.Millisecond)
	tree.Wake() // 30 ms after the last tick: at once
	got = run.expect(t, 1)
	require.Len(t, got, 1, "early tick = %v, want [tick@50ms]", got)
	require.Equal(t, "tick@50ms", got[0], "early tick = %v, want [tick@50ms]", got)
	settle(t, clock)
	clock.Advance(50 * time.Millisecond) // the fixed schedule goes on
	got = run.expect(t, 1)
	require.Len(t, got, 1, "scheduled tick = %v, want [tick@100ms]", got)
	require.Equal(t, "tick@100ms", got[0], "scheduled tick = %v, want [tick@100ms]", got)
	s := run.loop.Stats()
	require.Equal(t, uint64(2), s.EarlyTicks, "stats ticks=%d early=%d, want 4 and 2", s.Ticks, s.EarlyTicks)
	require.Equal(t, uint64(4), s.Ticks, "stats ticks=%d early=%d, want 4 and 2", s.Ticks, s.EarlyTicks)
}

func TestLoopWakeIgnoredWithoutMaxRate(t *testing.T) {
	clock := NewManualClock(testEpoch)
	var n atomic.Int32
	tree := loopTree(t, clock, func(*funcLeaf) (Status, error) { n.Add(1); return Running, nil })
	run := &loopRun{}
	startLoop(t, LoopConf{Tree: tree, Rate: 10}, run)
	settle(t, clock)
	tree.Wake()
	time.Sleep(5 * time.Millisecond)
	require.Equal(t, int32(1), n.Load(), "ticks = %d, want 1: early wake-ups need MaxRate", n.Load())
}

func TestLoopWakeAtDeadline(t *testing.T) {
	clock := NewManualClock(testEpoch)
	run := &loopRun{}
	var tree *Tree
	tree = loopTree(t, clock, func(n *funcLeaf) (Status, error) {
		run.add("tick@" + clock.Now().Sub(testEpoch).String())
		tree.WakeAt(testEpoch.Add(30 * time.Millisecond))
		return Running, nil
	})
	startLoop(t, LoopConf{Tree: tree, Rate: 10, MaxRate: 100}, run)
	run.expect(t, 1)
	settle(t, clock)
	clock.Advance(30 * time.Millisecond)
	got := run.expect(t, 1)
	require.Len(t, got, 1, "deadline tick = %v, want [tick@30ms]", got)
	require.Equal(t, "tick@30ms", got[0], "deadline tick = %v, want [tick@30ms]", got)
}

func TestLoopEndings(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name    string
		tick    func(calls int) (Status, error)
		until   bool
		cancel  bool
		wantSt  Status
		wantErr string
	}{
		{name: "mission done", tick: func(c int) (Status, error) {
			if c < 3 {
				return Running, nil
			}
			return Success, nil
		}, until: true, wantSt: Success},
		{name: "cancelled", tick: func(int) (Status, error) { return Running, nil }, cancel: true, wantSt: Idle, wantErr: "context canceled"},
		{name: "tick error", tick: func(c int) (Status, error) {
			if c < 2 {
				return Running, nil
			}
			return Failure, boom
		}, wantSt: Failure, wantErr: "Main/Fn (Fn): boom"},
		{name: "panic in a node", tick: func(c int) (Status, error) { panic("wheel fell off") }, wantSt: Failure, wantErr: "panic in a node: wheel fell off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewManualClock(testEpoch)
			calls := 0
			tree := loopTree(t, clock, func(*funcLeaf) (Status, error) { calls++; return tc.tick(calls) })
			var stops []string
			run := &loopRun{}
			startLoop(t, LoopConf{Tree: tree, Rate: 10, UntilDone: tc.until, OnStop: func(err error) {
				stops = append(stops, "stop")
			}}, run)
			for i := 0; i < 10; i++ {
				select {
				case <-run.done:
				default:
					if tc.cancel && i == 2 {
						run.cancel()
						continue
					}
					if len(clock.Pending()) > 0 {
						clock.Advance(100 * time.Millisecond)
					}
					time.Sleep(time.Millisecond)
				}
			}
			select {
			case <-run.done:
			case <-time.After(loopPatience):
				require.Fail(t, "loop did not end")
			}
			assert.Equal(t, tc.wantSt, run.st, "status %v, want %v", run.st, tc.wantSt)
			if tc.wantErr == "" {
				assert.NoError(t, run.err)
			} else {
				assert.EqualError(t, run.err, tc.wantErr)
			}
			assert.Len(t, stops, 1, "OnStop ran %d times, want once", len(stops))
			st := tree.Root().base().Status()
			assert.Equal(t, Idle, st, "root left %v, want IDLE (halted)", st)
		})
	}
}

func TestLoopWatchdogFiresOnStalledTick(t *testing.T) {
	clock := NewManualClock(testEpoch)
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	tree := loopTree(t, clock, func(*funcLeaf) (Status, error) {
		entered <- struct{}{}
		<-release
		return Running, nil
	})
	stalled := make(chan struct{}, 1)
	run := &loopRun{}
	startLoop(t, LoopConf{Tree: tree, Rate: 10, Watchdog: 300 * time.Millisecond, OnStall: func() { stalled <- struct{}{} }}, run)
	<-entered
	settle(t, clock) // the watchdog's timer
	clock.Advance(299 * time.Millisecond)
	select {
	case <-stalled:
		require.Fail(t, "watchdog fired early")
	case <-time.After(5 * time.Millisecond):
	}
	clock.Advance(time.Millisecond)
	select {
	case <-stalled:
	case <-time.After(loopPatience):
		require.Fail(t, "watchdog did not fire on a stalled tick")
	}
	close(release)
}

func TestHistogramQuantiles(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Add(time.Duration(i) * time.Microsecond)
	}
	for _, q := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, 1000 * time.Microsecond}} {
		got := h.Quantile(q.q)
		assert.GreaterOrEqual(t, got, q.want, "q%.2f = %v, want within 5%% above %v", q.q, got, q.want)
		assert.LessOrEqual(t, float64(got), float64(q.want)*1.05, "q%.2f = %v, want within 5%% above %v", q.q, got, q.want)
	}
	assert.Equal(t, time.Millisecond, h.Max(), "max %v count %d", h.Max(), h.Count())
	assert.Equal(t, uint64(1000), h.Count(), "max %v count %d", h.Max(), h.Count())
}

// TestLoopWatchdogAndAWaitingLatch: a latch that waits on purpose
// (LatchWaits: a simulator's lockstep holding the world) is not a stuck
// tick, and the watchdog times the tick from when it returns, with the
// same limit; without LatchWaits the latch counts.
func TestLoopWatchdogAndAWaitingLatch(t *testing.T) {
	cases := []struct {
		name        string
		latchWaits  bool
		firesInLock bool // the watchdog fires while the latch waits
	}{
		{"the latch counts", false, true},
		{"a latch that waits does not", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewManualClock(testEpoch)
			inLatch, releaseLatch := make(chan struct{}, 1), make(chan struct{})
			inTick, releaseTick := make(chan struct{}, 1), make(chan struct{})
			tree := loopTree(t, clock, func(*funcLeaf) (Status, error) {
				inTick <- struct{}{}
				<-releaseTick
				return Success, nil
			})
			stalled := make(chan struct{}, 2)
			run := &loopRun{}
			latched := false
			startLoop(t, LoopConf{Tree: tree, Rate: 10, UntilDone: true, Watchdog: 300 * time.Millisecond, LatchWaits: tc.latchWaits,
				OnStall: func() { stalled <- struct{}{} },
				Latch: func(time.Time) error {
					if !latched {
						latched = true
						inLatch <- struct{}{}
						<-releaseLatch
					}
					return nil
				}}, run)
			<-inLatch
			if tc.latchWaits {
				time.Sleep(20 * time.Millisecond) // a watchdog timer would be pending by now
				require.Empty(t, clock.Pending(), "no watchdog while the latch waits")
			} else {
				settle(t, clock)
			}
			clock.Advance(500 * time.Millisecond)
			select {
			case <-stalled:
				assert.True(t, tc.firesInLock, "the watchdog fired while the latch waited")
			case <-time.After(50 * time.Millisecond):
				assert.False(t, tc.firesInLock, "the watchdog did not fire while the latch waited")
			}
			close(releaseLatch)
			<-inTick
			if tc.latchWaits {
				settle(t, clock) // armed when the latch returned
				clock.Advance(299 * time.Millisecond)
				select {
				case <-stalled:
					require.Fail(t, "the watchdog fired early")
				case <-time.After(20 * time.Millisecond):
				}
				clock.Advance(time.Millisecond)
				select {
				case <-stalled:
				case <-time.After(loopPatience):
					require.Fail(t, "the watchdog did not fire on the stuck tick")
				}
			}
			close(releaseTick)
			<-run.done
		})
	}
}

// TestLoopScheduleAfterALongTick: a tick during which the clock reaches
// the next period's due time exactly (a simulated clock stepped to it
// meanwhile) is followed by that period's tick at once, not by the one
// after; a tick that overruns periods skips them, and the next tick is on
// the schedule, with no burst to catch up.
func TestLoopScheduleAfterALongTick(t *testing.T) {
	cases := []struct {
		name    string
		overrun time.Duration // how far the first tick moves the clock
		advance time.Duration // then, once the loop waits (0: it must not wait)
		want    string        // the second tick
	}{
		{"ends before the next due time", 60 * time.Millisecond, 40 * time.Millisecond, "tick@100ms"},
		{"ends on the next due time", 100 * time.Millisecond, 0, "tick@100ms"},
		{"ends just past it: that period is skipped", 101 * time.Millisecond, 99 * time.Millisecond, "tick@200ms"},
		{"overruns 2.5 periods: the next on the schedule, no burst", 250 * time.Millisecond, 50 * time.Millisecond, "tick@300ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewManualClock(testEpoch)
			run := &loopRun{}
			first := true
			tree := loopTree(t, clock, func(*funcLeaf) (Status, error) {
				run.add("tick@" + clock.Now().Sub(testEpoch).String())
				if first {
					first = false
					clock.Advance(tc.overrun)
				}
				return Running, nil
			})
			startLoop(t, LoopConf{Tree: tree, Rate: 10}, run)
			if tc.advance == 0 { // the second tick comes without waiting
				assert.Equal(t, []string{"tick@0s", tc.want}, run.expect(t, 2))
				return
			}
			require.Equal(t, []string{"tick@0s"}, run.expect(t, 1))
			settle(t, clock)
			clock.Advance(tc.advance)
			assert.Equal(t, []string{tc.want}, run.expect(t, 1))
		})
	}
}
