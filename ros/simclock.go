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
type SimClock struct {
	clock   *runtime.ManualClock
	once    sync.Once
	started chan struct{}
}

// NewSimClock returns a clock at time zero that moves only through Set. A
// Conn feeds it from /clock; tests and the simulator may drive one directly.
func NewSimClock() *SimClock {
	return &SimClock{clock: runtime.NewManualClock(time.Unix(0, 0)), started: make(chan struct{})}
}

// Now returns the newest simulated time.
func (c *SimClock) Now() time.Time { return c.clock.Now() }

// Timer returns a channel closed once the simulated time reaches at.
func (c *SimClock) Timer(at time.Time) (<-chan struct{}, func()) { return c.clock.Timer(at) }

// Set moves the clock to t, as a /clock message does, and fires the timers it
// passes.
func (c *SimClock) Set(t time.Time) {
	c.clock.Set(t)
	c.once.Do(func() { close(c.started) })
}

// Started is closed once the clock has been set, by the first /clock message.
func (c *SimClock) Started() <-chan struct{} { return c.started }

// followClock feeds the SimClock from the /clock subscription goroslib keeps
// for a node under /use_sim_time (a node can subscribe to a topic only once,
// so the bridge cannot have its own). A zero-length sleep on goroslib's sim
// clock fires at the next /clock message: registering the next sleep before
// reading the time means no message is missed between the two.
func (c *Conn) followClock() {
	defer c.wg.Done()
	next := c.node.TimeSleepChan(0)
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-next:
		}
		next = c.node.TimeSleepChan(0)
		c.sim.Set(c.node.TimeNow())
	}
}
