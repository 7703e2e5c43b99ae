package ros

import (
	"sync"
	"sync/atomic"
	"time"

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
// /robot1/docked=true"). A tick in lockstep waits for both: a change
// (the robot docked) goes out between its topic's periods, so the
// sensors' schedule alone does not tell the tick it is on its way.
const GoalsEndedTopic = "goals_ended"

// lockstepActions is a connection's bookkeeping of goals for the
// lockstep; all of it is safe for concurrent use.
type lockstepActions struct {
	peer    atomic.Pointer[LockstepPeer]
	run     atomic.Pointer[lockstep] // the Run in lockstep, while it runs
	joining atomic.Bool              // a Run is joining the lockstep (startLockstep)
	ended   atomic.Uint64            // terminal states received, every goal of the connection

	mu     sync.Mutex
	holds  int // goals and cancels a tick asked for and not yet published
	zero   chan struct{}
	halts  int // halted goals whose cancel is not yet out
	halted chan struct{}
}

// sent counts a goal or a cancel published, when the connection is a
// lockstep peer.
func (l *lockstepActions) sent() {
	if p := l.peer.Load(); p != nil {
		p.CountSent(1)
	}
}

// active reports whether the connection is a lockstep peer.
func (l *lockstepActions) active() bool { return l.peer.Load() != nil }

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
// are out and their servers have taken them (Conn.trackCancel), at most
// patience each: a tick that halts one goal and starts another sends the
// cancel before the goal, so that the simulator takes them in that order on
// every run (they travel on different topics).
func (c *Conn) cancelsFirst(patience time.Duration) {
	l := &c.lockstep
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
	c.mu.Lock()
	pending := append([]chan struct{}(nil), c.cancels...)
	c.mu.Unlock()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// AwaitSent waits, in lockstep, until the goals and cancels that the
// ticks and halts so far asked for are published, at most patience, and
// reports whether they are; outside lockstep it returns true at once. Run
// does this after each tick, before it lets the simulator go to the next:
// a caller that ticks a tree in lockstep itself must too, or a goal still
// on its goroutine reaches the simulator steps late (and a halt that comes
// first finds nothing to cancel).
func (c *Conn) AwaitSent(patience time.Duration) bool {
	if !c.lockstep.active() {
		return true
	}
	return c.lockstep.wait(patience)
}

// wait returns once no goal or cancel is on its way, or after patience.
func (l *lockstepActions) wait(patience time.Duration) bool {
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
func (c *Conn) awaitEnded(l *runtime.Leaf) {
	if !c.lockstep.active() {
		l.AwaitAsync(asyncPatience)
		return
	}
	if !l.AwaitAsync(lockstepLiveness) {
		c.Logf(LogWarn, "lockstep: the work of %s did not return within %v of its goal's end; the run may not repeat exactly", l.Name(), lockstepLiveness)
	}
}
