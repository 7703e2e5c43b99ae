package ros

import (
	"sync"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// SimClock is ROS time while /use_sim_time is set: Now is the time of the
// newest /clock message, and a Timer fires when /clock reaches its deadline,
// so that the tick loop, every Timeout and Delay and every ROS leaf's
// timeout follow the simulator, however fast or slow it runs. Before the
// first /clock message it reads the Unix epoch (time zero, as in ROS) and
// Started is open. Time never goes backwards: a /clock that jumps back (a
// bag played in a loop) holds the clock until it catches up.
//
// It is a runtime.StepClock: it remembers on the wall clock when it reached
// its recent times, so that the tick loop's lateness is the controller's and
// not the simulator's step, and LastSet says how long /clock has been
// silent.
type SimClock struct {
	clock   *runtime.ManualClock
	once    sync.Once
	started chan struct{}

	mu    sync.Mutex
	steps stepRing // the newest simSteps steps
	// pace holds steps at least paceEvery apart on the wall clock, for
	// Projected: the /clock messages of a stop, read at once when the
	// process resumes, fill steps many times over, but add a sample or
	// two here.
	pace stepRing
}

// simSteps is how many steps SimClock remembers for ReachedAt: a tick is due
// within a few steps of the newest.
const simSteps = 64

// paceSamples steps paceEvery apart: the pace of the last 1.6 s.
const (
	paceSamples = 32
	paceEvery   = 50 * time.Millisecond
)

type simStep struct {
	sim, wall time.Time
}

// stepRing remembers the newest steps pushed, up to its size.
type stepRing struct {
	s       []simStep
	next, n int
}

func newStepRing(size int) stepRing { return stepRing{s: make([]simStep, size)} }

func (r *stepRing) push(s simStep) {
	r.s[r.next] = s
	r.next = (r.next + 1) % len(r.s)
	r.n = min(r.n+1, len(r.s))
}

// newest returns the i-th newest step, i from 1 to r.n.
func (r *stepRing) newest(i int) simStep { return r.s[(r.next+len(r.s)-i)%len(r.s)] }

// full reports whether the ring has forgotten a step.
func (r *stepRing) full() bool { return r.n == len(r.s) }

// newSimClock returns a clock at time zero that moves only through set: a
// Conn feeds it from /clock, and tests drive one directly.
func newSimClock() *SimClock {
	return &SimClock{
		clock:   runtime.NewManualClock(time.Unix(0, 0)),
		started: make(chan struct{}),
		steps:   newStepRing(simSteps),
		pace:    newStepRing(paceSamples),
	}
}

// Now returns the newest simulated time.
func (c *SimClock) Now() time.Time { return c.clock.Now() }

// Timer returns a channel closed once the simulated time reaches at.
func (c *SimClock) Timer(at time.Time) (<-chan struct{}, func()) { return c.clock.Timer(at) }

// set moves the clock to t, as a /clock message does, and fires the timers it
// passes.
func (c *SimClock) set(t time.Time) { c.setAt(t, time.Now()) }

// setAt is set with the wall time of the message given.
func (c *SimClock) setAt(t, wall time.Time) {
	c.mu.Lock()
	c.steps.push(simStep{sim: t, wall: wall})
	if c.pace.n == 0 || wall.Sub(c.pace.newest(1).wall) >= paceEvery {
		c.pace.push(simStep{sim: t, wall: wall})
	}
	c.mu.Unlock()
	c.clock.Set(t)
	c.once.Do(func() { close(c.started) })
}

// LastSet returns the wall time of the newest set (the newest /clock
// message); zero before the first.
func (c *SimClock) LastSet() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.steps.n == 0 {
		return time.Time{}
	}
	return c.steps.newest(1).wall
}

// ReachedAt returns the wall time of the first remembered set that took the
// clock to at or later; false when none did, or it is older than the
// clock remembers.
func (c *SimClock) ReachedAt(at time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var found time.Time
	ok := false
	for i := 1; i <= c.steps.n; i++ { // newest first
		s := c.steps.newest(i)
		if s.sim.Before(at) {
			break
		}
		found, ok = s.wall, true
	}
	if ok && c.steps.full() && !c.steps.newest(c.steps.n).sim.Before(at) {
		return time.Time{}, false // every remembered step is past at: the first is forgotten
	}
	return found, ok
}

// Projected returns the simulated time the clock would read at wall time
// at, had /clock gone on at the pace of the steps it remembers from before
// wall time before (up to 1.6 s of them, sampled every 50 ms of the wall
// clock); false without two such steps a moment apart. After the process
// was stopped, the /clock messages of the stop are still to be read: the
// clock has caught up once it reads Projected(stop, now). Those messages,
// however many were read by then, do not make it forget the steps before
// the stop, unless reading them took over a second and a half (when the
// newest 64 steps were all it had, a stop's backlog read before the
// question left it none: cmd/btrobot's TestFailsafeStalledControllerResumes
// failed on that).
func (c *SimClock) Projected(before, at time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var newest, oldest simStep       // zero until a step before before is found
	for i := 1; i <= c.pace.n; i++ { // newest first
		s := c.pace.newest(i)
		if !s.wall.Before(before) {
			continue
		}
		if newest.wall.IsZero() {
			newest = s
		}
		oldest = s
	}
	span := newest.wall.Sub(oldest.wall) // 0 with fewer than two such steps
	if span <= 0 {
		return time.Time{}, false
	}
	rate := float64(newest.sim.Sub(oldest.sim)) / float64(span)
	return newest.sim.Add(time.Duration(rate * float64(at.Sub(newest.wall)))), true
}

// Started is closed once the clock has been set, by the first /clock message.
func (c *SimClock) Started() <-chan struct{} { return c.started }

// followClock feeds the SimClock from /clock, subscribed before it returns,
// until the Conn closes.
func (c *Conn) followClock() error {
	stop, err := c.wire.followClock(c.sim.set)
	if err != nil {
		return err
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		<-c.ctx.Done()
		stop()
	}()
	return nil
}
