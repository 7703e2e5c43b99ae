package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
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
	// controller is stuck.
	Watchdog time.Duration
	OnStall  func()
	// OnStop runs once when the loop ends for any reason (done, cancelled,
	// error, panic), after the tree is halted: stop the robot here.
	OnStop func(err error)
	// Observe, when set, receives every tick's timing.
	Observe func(TickReport)
}

// TickReport is the timing of one tick of a loop.
type TickReport struct {
	Seq      uint64
	Start    time.Time
	Lateness time.Duration // start minus the time the tick was due
	Duration time.Duration // latch + tick + flush, on the loop's clock
	Early    bool          // ticked early, on a wake-up
	Status   Status
}

// LoopStats summarises a loop's run.
type LoopStats struct {
	Ticks      uint64
	EarlyTicks uint64
	Overruns   uint64 // ticks that started a full period or more late
	Lateness   Histogram
	Durations  Histogram
}

// Loop runs a tree at a fixed rate against a clock: the PLC-style scan cycle
// of DESIGN.md (latch inputs, tick, flush outputs), ticking early on a
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
		dog = startWatchdog(clock, c.Watchdog, c.OnStall)
		defer dog.stop()
	}
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
		start := clock.Now()
		if dog != nil {
			dog.arm(start)
		}
		st, err = l.scan(start)
		if dog != nil {
			dog.disarm()
		}
		end := clock.Now()
		rep := TickReport{Seq: seq, Start: start, Duration: end.Sub(start), Early: early, Status: st}
		if !early {
			rep.Lateness = max(0, start.Sub(sched))
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
		if late := end.Sub(sched); late >= 0 {
			// Missed one or more periods: skip them rather than burst.
			sched = sched.Add((late/period + 1) * period)
		}
	}
}

func (l *Loop) scan(now time.Time) (Status, error) {
	c := l.conf
	if c.Latch != nil {
		if err := c.Latch(now); err != nil {
			return Failure, fmt.Errorf("latching inputs: %w", err)
		}
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
