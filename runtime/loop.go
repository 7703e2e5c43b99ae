package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// LoopConf configures a fixed-rate tick loop.
type LoopConf struct {
	Tree *Tree
	// Clock paces the loop; the tree's clock when nil.
	Clock Clock
	// Rate is the tick rate in Hz.
	Rate float64
	// MaxRate caps early ticks: after a wake-up (an async leaf finished, an
	// input asked for one) the loop ticks at once, but never sooner than
	// 1/MaxRate after the previous tick. 0 or less than Rate disables
	// early ticks.
	MaxRate float64
	// Latch runs at the start of every tick, before the tree: the scan
	// cycle copies the newest inputs into the blackboard here.
	Latch func(now time.Time) error
	// Flush runs at the end of every tick: the scan cycle publishes the
	// outputs here.
	Flush func(now time.Time, status Status) error
	// UntilDone ends the loop when the root completes; otherwise a finished
	// tree starts again on the next tick.
	UntilDone bool
	// Watchdog calls OnStall when a tick has not finished this long after it
	// started (0 disables it): the robot must not drive on while the
	// controller is stuck. It runs on Wall.
	Watchdog time.Duration
	OnStall  func()
	// LatchWaits says that Latch may wait on purpose (a simulator's lockstep
	// waits for the sensor messages of the tick's time, while the simulated
	// world is held): the watchdog then starts when Latch returns, so that
	// it times the tree's tick and Flush only, with the same Watchdog.
	LatchWaits bool
	// Wall is the clock of the watchdog and of stall detection, which must
	// not depend on the clock the tree follows: a simulated clock that stops
	// would stop them too. WallClock when nil, except that a test pacing the
	// loop with a ManualClock drives the watchdog with it as well.
	Wall Clock
	// StallLimit, when > 0, makes the loop notice that its process did not
	// run for that long or longer (on Wall: SIGSTOP, a paused VM, a machine
	// that starves it), whether or not a tick was under way: the stall is
	// counted in LoopStats, and OnResume runs on the loop's goroutine before
	// the next tick latches its inputs, with how long the stall lasted. A
	// controller stops the robot there and takes in what arrived during the
	// stall before judging its inputs stale.
	StallLimit time.Duration
	OnResume   func(stalled time.Duration)
	// OnStop runs once when the loop ends for any reason (done, cancelled,
	// error, panic), after the tree is halted: stop the robot here.
	OnStop func(err error)
	// Observe, when set, receives every tick's timing.
	Observe func(TickReport)
}

// TickReport is the timing of one tick of a loop.
type TickReport struct {
	Seq   uint64
	Start time.Time
	// Lateness is how long after it was due the tick started. On a clock
	// that moves in steps fed from outside (a StepClock: ROS time from
	// /clock) it is measured on the wall clock from the moment the clock
	// reached the due time, so that it says how late the controller was and
	// not how coarse the simulator's step is.
	Lateness time.Duration
	Duration time.Duration // latch + tick + flush, on the loop's clock
	Early    bool          // ticked early, on a wake-up
	Status   Status
	// Stalled is how long the process did not run just before this tick
	// (LoopConf.StallLimit or longer; 0: no stall), so that a sink of tick
	// reports can count the stalls that LoopStats counts.
	Stalled time.Duration
}

// LoopStats summarises a loop's run.
type LoopStats struct {
	Ticks      uint64
	EarlyTicks uint64
	Overruns   uint64 // ticks that started a full period or more late
	Lateness   Histogram
	Durations  Histogram
	// Stalls counts the times the process did not run for StallLimit or
	// longer (on the wall clock, whatever clock the loop follows: a stall
	// under simulated time shows here even when the simulator waited);
	// LongestStall is the longest.
	Stalls       uint64
	LongestStall time.Duration
}

// Loop runs a tree at a fixed rate against a clock: the PLC-style scan cycle
// of ARCHITECTURE.md (latch inputs, tick, flush outputs), ticking early on a
// wake-up but never faster than MaxRate, and halting the tree when its
// context ends. Create it with NewLoop and call Run once.
type Loop struct {
	conf  LoopConf
	mu    sync.Mutex
	stats LoopStats
}

// NewLoop checks conf and returns a loop ready to Run.
func NewLoop(conf LoopConf) (*Loop, error) {
	switch {
	case conf.Tree == nil:
		return nil, errors.New("loop: no tree")
	case conf.Rate <= 0 || math.IsNaN(conf.Rate) || math.IsInf(conf.Rate, 0):
		return nil, fmt.Errorf("loop: rate must be a positive number of Hz, not %v", conf.Rate)
	}
	if conf.Clock == nil {
		conf.Clock = conf.Tree.clock
	}
	if conf.Wall == nil {
		conf.Wall = WallClock{}
		if mc, ok := conf.Clock.(*ManualClock); ok {
			conf.Wall = mc
		}
	}
	if conf.StallLimit < 0 {
		return nil, fmt.Errorf("loop: stall limit %v: want >= 0", conf.StallLimit)
	}
	return &Loop{conf: conf}, nil
}

// Stats returns a copy of the loop's statistics so far.
func (l *Loop) Stats() LoopStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

func hzPeriod(hz float64) time.Duration { return time.Duration(float64(time.Second) / hz) }

// Run ticks until ctx ends (returns IDLE and ctx's error after halting the
// tree), until the root completes with UntilDone (returns its status), or
// until a tick fails (returns the error; the tree is already halted).
func (l *Loop) Run(ctx context.Context) (st Status, err error) {
	c := l.conf
	clock, tree := c.Clock, c.Tree
	period := hzPeriod(c.Rate)
	minGap := period
	if c.MaxRate > c.Rate {
		minGap = hzPeriod(c.MaxRate)
	}
	var dog *watchdog
	if c.Watchdog > 0 && c.OnStall != nil {
		dog = startWatchdog(c.Wall, c.Watchdog, c.OnStall)
		defer dog.stop()
	}
	var stalls *stallMonitor
	if c.StallLimit > 0 {
		stalls = startStallMonitor(c.Wall, c.StallLimit)
		defer stalls.stop()
	}
	step, stepped := clock.(StepClock)
	defer func() {
		tree.Halt()
		if c.OnStop != nil {
			c.OnStop(err)
		}
	}()

	earlyOK := c.MaxRate > c.Rate
	sched := clock.Now() // when the next periodic tick is due
	var last time.Time
	for seq := uint64(1); ; seq++ {
		target, early := sched, false
		if at, ok := tree.NextWake(); ok && earlyOK && at.Before(sched) {
			if !last.IsZero() && at.Before(last.Add(minGap)) {
				at = last.Add(minGap)
			}
			if at.Before(sched) {
				target, early = at, true
			}
		}
		switch l.wait(ctx, target, last, minGap, earlyOK) {
		case waitCancelled:
			return Idle, ctx.Err()
		case waitWoken:
			early = true
		}
		var stalled time.Duration
		if stalls != nil {
			if d := stalls.check(); d > 0 {
				stalled = d
				l.recordStall(d)
				if c.OnResume != nil {
					c.OnResume(d)
				}
			}
		}
		start, startWall := clock.Now(), c.Wall.Now()
		arm := func() {}
		if dog != nil {
			if c.LatchWaits {
				arm = func() { dog.arm(c.Wall.Now()) }
			} else {
				dog.arm(startWall)
			}
		}
		st, err = l.scan(start, arm)
		if dog != nil {
			dog.disarm()
		}
		end := clock.Now()
		rep := TickReport{Seq: seq, Start: start, Duration: end.Sub(start), Early: early, Status: st, Stalled: stalled}
		if !early {
			rep.Lateness = max(0, start.Sub(sched))
			if stepped {
				if at, ok := step.ReachedAt(sched); ok {
					rep.Lateness = max(0, startWall.Sub(at))
				}
			}
			sched = sched.Add(period)
		}
		l.record(rep, period)
		if c.Observe != nil {
			c.Observe(rep)
		}
		if err != nil {
			return st, err
		}
		if c.UntilDone && st.Completed() {
			return st, nil
		}
		last = start
		if late := end.Sub(sched); late > 0 {
			// Missed one or more periods: skip them rather than burst.
			// A tick that ends exactly when the next is due (a manual or
			// simulated clock that stepped to it meanwhile) missed none.
			sched = sched.Add((late/period + 1) * period)
		}
	}
}

// scan latches the inputs, calls arm (every time: the watchdog is
// disarmed after it), ticks the tree and flushes the outputs.
func (l *Loop) scan(now time.Time, arm func()) (Status, error) {
	c := l.conf
	if c.Latch != nil {
		err := c.Latch(now)
		arm()
		if err != nil {
			return Failure, fmt.Errorf("latching inputs: %w", err)
		}
	} else {
		arm()
	}
	st, err := c.Tree.TickExactlyOnce()
	if err != nil {
		return st, err
	}
	if c.Flush != nil {
		if err := c.Flush(c.Clock.Now(), st); err != nil {
			return st, fmt.Errorf("flushing outputs: %w", err)
		}
	}
	return st, nil
}

type waitResult int

const (
	waitDue waitResult = iota
	waitWoken
	waitCancelled
)

// wait blocks until target, or until a wake-up (when wakeOK) no sooner
// than last+minGap.
func (l *Loop) wait(ctx context.Context, target, last time.Time, minGap time.Duration, wakeOK bool) waitResult {
	clock, tree := l.conf.Clock, l.conf.Tree
	if ctx.Err() != nil {
		return waitCancelled
	}
	if !clock.Now().Before(target) {
		return waitDue
	}
	var wake <-chan struct{}
	if wakeOK {
		wake = tree.WakeC()
	}
	timer, stop := clock.Timer(target)
	defer stop()
	select {
	case <-ctx.Done():
		return waitCancelled
	case <-timer:
		return waitDue
	case <-wake:
	}
	earliest := last.Add(minGap)
	if last.IsZero() || !clock.Now().Before(earliest) {
		return waitWoken
	}
	if !earliest.Before(target) {
		// The wake-up came too soon after the last tick to tick early.
		select {
		case <-ctx.Done():
			return waitCancelled
		case <-timer:
			return waitDue
		}
	}
	at, stopAt := clock.Timer(earliest)
	defer stopAt()
	select {
	case <-ctx.Done():
		return waitCancelled
	case <-at:
		return waitWoken
	}
}

func (l *Loop) record(r TickReport, period time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.stats
	s.Ticks++
	if r.Early {
		s.EarlyTicks++
	} else {
		s.Lateness.Add(r.Lateness)
		if r.Lateness >= period {
			s.Overruns++
		}
	}
	s.Durations.Add(r.Duration)
}

func (l *Loop) recordStall(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Stalls++
	l.stats.LongestStall = max(l.stats.LongestStall, d)
}

// stallMonitor notices that the process did not run for limit or longer. A
// goroutine beats often on the wall clock; a beat that finds the previous
// one too long ago saw a stall. The loop looks too, before each tick, since
// after a stall it may run before the beating goroutine does. Whoever swaps
// the last beat's time first owns a gap, so each stall counts once.
type stallMonitor struct {
	wall    Clock
	limit   time.Duration
	last    atomic.Int64 // wall time of the last beat, Unix nanoseconds
	pending atomic.Int64 // the longest stall seen by a beat, not yet taken
	quit    chan struct{}
	done    chan struct{}
}

// stallBeat is how often the monitor beats: a quarter of the limit, within
// bounds that keep it both cheap and prompt.
func stallBeat(limit time.Duration) time.Duration {
	return min(max(limit/4, 5*time.Millisecond), 50*time.Millisecond)
}

func startStallMonitor(wall Clock, limit time.Duration) *stallMonitor {
	m := &stallMonitor{wall: wall, limit: limit, quit: make(chan struct{}), done: make(chan struct{})}
	m.last.Store(wall.Now().UnixNano())
	beat := stallBeat(limit)
	go func() {
		defer close(m.done)
		var tick <-chan time.Time
		if _, ok := wall.(WallClock); ok {
			t := time.NewTicker(beat)
			defer t.Stop()
			tick = t.C
		}
		for {
			if tick != nil {
				select {
				case <-m.quit:
					return
				case <-tick:
				}
			} else {
				fire, stop := wall.Timer(wall.Now().Add(beat))
				select {
				case <-m.quit:
					stop()
					return
				case <-fire:
				}
			}
			if d := m.swap(); d >= limit {
				for {
					p := m.pending.Load()
					if int64(d) <= p || m.pending.CompareAndSwap(p, int64(d)) {
						break
					}
				}
			}
		}
	}()
	return m
}

// swap records a beat now and returns the time since the previous one.
func (m *stallMonitor) swap() time.Duration {
	now := m.wall.Now().UnixNano()
	return time.Duration(now - m.last.Swap(now))
}

// check returns how long the process was stalled since the last check (0:
// not stalled).
func (m *stallMonitor) check() time.Duration {
	d := m.swap()
	if d < m.limit {
		d = 0
	}
	return max(d, time.Duration(m.pending.Swap(0)))
}

func (m *stallMonitor) stop() {
	close(m.quit)
	<-m.done
}

// watchdog calls onStall when a tick runs longer than limit.
type watchdog struct {
	armc  chan time.Time
	quit  chan struct{}
	done  chan struct{}
	clock Clock
}

func startWatchdog(clock Clock, limit time.Duration, onStall func()) *watchdog {
	w := &watchdog{armc: make(chan time.Time), quit: make(chan struct{}), done: make(chan struct{}), clock: clock}
	go func() {
		defer close(w.done)
		for {
			var start time.Time
			select {
			case <-w.quit:
				return
			case start = <-w.armc:
			}
			fire, stop := clock.Timer(start.Add(limit))
			select {
			case <-w.quit:
				stop()
				return
			case <-w.armc: // disarmed: the tick ended in time
				stop()
			case <-fire:
				onStall()
				<-w.armc // wait for the stalled tick to end
			}
		}
	}()
	return w
}

func (w *watchdog) arm(start time.Time) { w.armc <- start }
func (w *watchdog) disarm()             { w.armc <- time.Time{} }
func (w *watchdog) stop() {
	close(w.quit)
	<-w.done
}

// Histogram counts durations in logarithmic buckets (about 4% wide) from
// 100 ns to 100 s, for quantiles without keeping samples.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	max    time.Duration
	sum    time.Duration
}

const (
	histBuckets = 512
	histMin     = 100 * time.Nanosecond
	histFactor  = 1.04
)

var histLogFactor = math.Log(histFactor)

// Add counts one duration.
func (h *Histogram) Add(d time.Duration) {
	i := 0
	if d > histMin {
		i = min(histBuckets-1, int(math.Log(float64(d)/float64(histMin))/histLogFactor)+1)
	}
	h.counts[i]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// Count returns how many durations were added.
func (h *Histogram) Count() uint64 { return h.n }

// Max returns the largest duration added.
func (h *Histogram) Max() time.Duration { return h.max }

// Mean returns the mean duration.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Quantile returns an upper bound of the q-quantile (0 < q <= 1), accurate
// to a bucket's width.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			if i == 0 {
				return min(histMin, h.max)
			}
			return min(time.Duration(float64(histMin)*math.Pow(histFactor, float64(i))), h.max)
		}
	}
	return h.max
}
