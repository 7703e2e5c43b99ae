package bridge

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// The action goals' part of the lockstep. A goal or a cancel that a tree in
// lockstep sends must reach the simulator at the step the tick happened
// at, and a result the simulator sends before a tick must be seen by that
// tick; otherwise a run depends on the machine's scheduling. So:
//
//   - goals and cancels count as messages the peer sent (like cmd_vel
//     commands), and the simulator counts them as its action servers take
//     them in (ActionServerConf.OnTaken): it does not step past a tick
//     until it has them all;
//   - a goal a tick starts, or a cancel a tick's halt sends, is published
//     by the action's goroutine, so the peer holds its acknowledgement of
//     the tick until those are out (lockstepActions.hold);
//   - the simulator says, at every step it waits for a peer at, how many
//     goals each robot's servers have ended so far (GoalsEndedTopic), and
//     a tick waits, before it latches, until its connection has received
//     as many terminal states and the works of the leaves whose goal ended
//     have returned (a terminal state holds, like a send, until its work
//     returns), so that the tick collects them.
//
// Every one of these waits is for an event, not for a time: a wall-clock
// bound that decided which tick sees a goal's end made runs part under
// load (battery_drop_docks docked a tick later one run in seven). The
// bounds left are liveness bounds, and a wait that reaches one warns that
// the run may not repeat exactly.

// GoalsEndedTopic is the topic, relative to the simulator's node namespace
// and the robot's name (/sim/robot1/goals_ended), where the simulator
// says, each time it holds for a peer, how many goals of the robot's
// action servers have ended and what its sensors that also go out on
// change said last (std_msgs/Header: seq the count, stamp the simulated
// time it holds at, frame_id the values, "/robot1/bumper=false
// /robot1/docked=true", and the stamp of the newest message sent on each
// sensor topic, "/robot1/odom@12340000000" in nanoseconds, and the sensor
// topics a fault freezes or delays, "/robot1/scan=frozen"). A tick in
// lockstep waits for all of it, and for the sensors without a stamp by
// their schedule unless a fault holds them back: a change (the robot
// docked) goes out between its topic's periods, so the sensors' schedule
// alone does not tell the tick it is on its way, and a frozen topic's
// stamp stands still.
const GoalsEndedTopic = "goals_ended"

// lockstepActions is a connection's bookkeeping of goals for the
// lockstep, installed on it as its ros.ActionObserver (lockstepFor); all of
// it is safe for concurrent use, and a nil one is a connection outside the
// lockstep.
type lockstepActions struct {
	peer    atomic.Pointer[LockstepPeer]
	run     atomic.Pointer[lockstep] // the Run in lockstep, while it runs
	joining atomic.Bool              // a Run is joining the lockstep (startLockstep)

	mu     sync.Mutex
	holds  int // goals and cancels a tick asked for and not yet published
	zero   chan struct{}
	halts  int // halted goals whose cancel is not yet out
	halted chan struct{}
}

// installMu serialises lockstepFor's look and install.
var installMu sync.Mutex

// lockstepFor returns the connection's lockstep bookkeeping, installing it
// as the connection's action observer the first time.
func lockstepFor(c *ros.Conn) *lockstepActions {
	installMu.Lock()
	defer installMu.Unlock()
	l := lockstepOf(c)
	if l == nil {
		l = &lockstepActions{}
		c.SetActionObserver(l)
	}
	return l
}

// lockstepOf returns the connection's lockstep bookkeeping; nil when it
// has none (it never was a lockstep peer).
func lockstepOf(c *ros.Conn) *lockstepActions {
	if c == nil {
		return nil
	}
	l, _ := c.ActionObserver().(*lockstepActions)
	return l
}

// Sent counts a goal or a cancel published, when the connection is a
// lockstep peer (ros.ActionObserver).
func (l *lockstepActions) Sent() {
	if l == nil {
		return
	}
	if p := l.peer.Load(); p != nil {
		p.CountSent(1)
	}
}

// HoldsCancels makes a cancel wait for its goal's acknowledgement while the
// connection is a lockstep peer (ros.ActionObserver).
func (l *lockstepActions) HoldsCancels() bool { return l.active() }

// active reports whether the connection is a lockstep peer.
func (l *lockstepActions) active() bool { return l != nil && l.peer.Load() != nil }

// standsStill reports whether, in lockstep, the simulated world stands
// still while the tree is held: a pause then suspends nothing
// (LockstepConf.Suspend says otherwise).
func (l *lockstepActions) standsStill() bool {
	if !l.active() {
		return false
	}
	run := l.run.Load()
	return run == nil || !run.suspend
}

// hold notes a goal or cancel on its way; the returned release (safe to
// call more than once) notes it out.
func (l *lockstepActions) hold() (release func()) {
	if !l.active() {
		return func() {}
	}
	l.mu.Lock()
	l.holds++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.holds--
			if l.holds == 0 && l.zero != nil {
				close(l.zero)
				l.zero = nil
			}
			l.mu.Unlock()
		})
	}
}

// halting notes a halted goal whose cancel is on its way; the returned
// release notes it out. A goal sent meanwhile waits for it (cancelsFirst).
func (l *lockstepActions) halting() (release func()) {
	if !l.active() {
		return func() {}
	}
	l.mu.Lock()
	l.halts++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.halts--
			if l.halts == 0 && l.halted != nil {
				close(l.halted)
				l.halted = nil
			}
			l.mu.Unlock()
		})
	}
}

// cancelsFirst waits, in lockstep, until the cancels of goals halted so far
// are out and their servers have taken them (Conn.AwaitCancels), at most
// patience each: a tick that halts one goal and starts another sends the
// cancel before the goal, so that the simulator takes them in that order on
// every run (they travel on different topics).
func cancelsFirst(c *ros.Conn, patience time.Duration) {
	l := lockstepOf(c)
	if !l.active() {
		return
	}
	l.mu.Lock()
	var halted chan struct{}
	if l.halts > 0 {
		if l.halted == nil {
			l.halted = make(chan struct{})
		}
		halted = l.halted
	}
	l.mu.Unlock()
	t := time.NewTimer(patience)
	defer t.Stop()
	if halted != nil {
		select {
		case <-halted:
		case <-t.C:
			return
		}
	}
	c.AwaitCancels(t.C)
}

// AwaitSent waits until the goals and cancels that the ticks and halts
// on the peer's connection so far asked for are published, at most
// patience, and reports whether they are. Run does this after each tick,
// before it lets the simulator go to the next: a caller that ticks a tree
// in lockstep itself must too, or a goal still on its goroutine reaches the
// simulator steps late (and a halt that comes first finds nothing to
// cancel).
func (p *LockstepPeer) AwaitSent(patience time.Duration) bool {
	l := lockstepOf(p.conn)
	if !l.active() {
		return true
	}
	return l.wait(patience)
}

// wait returns once no goal or cancel is on its way, or after patience.
func (l *lockstepActions) wait(patience time.Duration) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	if l.holds == 0 {
		l.mu.Unlock()
		return true
	}
	if l.zero == nil {
		l.zero = make(chan struct{})
	}
	zero := l.zero
	l.mu.Unlock()
	t := time.NewTimer(patience)
	defer t.Stop()
	select {
	case <-zero:
		return true
	case <-t.C:
		return false
	}
}

// idle reports whether no goal or cancel is on its way and every work
// whose goal ended has returned.
func (l *lockstepActions) idle() bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.holds == 0
}

// lockstepLiveness bounds, in lockstep, a wait for something that has
// nothing left to do but happen (the work of a goal that ended, which
// only has to return): past it the wait warns and gives up, and the run
// may not repeat; it is not the bound that makes runs repeat.
const lockstepLiveness = 10 * time.Second

// awaitEnded waits, on the tick that will collect it, for the work of an
// action leaf whose goal has ended to return: at most asyncPatience
// outside lockstep; in lockstep, where the latch has waited for it
// already (lockstep.waitGoals), up to lockstepLiveness, with a warning if
// it does not, since the tick would then see the goal a tick late.
func awaitEnded(c *ros.Conn, l *runtime.Leaf) {
	if !lockstepOf(c).active() {
		l.AwaitAsync(asyncPatience)
		return
	}
	if !l.AwaitAsync(lockstepLiveness) {
		c.Logf(ros.LogWarn, "lockstep: the work of %s did not return within %v of its goal's end; the run may not repeat exactly", l.Name(), lockstepLiveness)
	}
}
