package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// ActionLeafConf configures an ActionLeaf: which server, which action, the
// timeouts, and how the goal is made and the outcome read.
type ActionLeafConf struct {
	// Conn is the ROS connection; a leaf without one (a tree built for
	// checking) fails its first tick with an error.
	Conn *ros.Conn
	// Server is the action server's name, resolved by Conn.
	Server string
	// Action is the action type: a value, a pointer or a MessageType.
	Action any
	// WaitForServerTimeout bounds the wait for the server to be up (0: no
	// limit), on the tree's clock from the tick that starts the leaf: the
	// first tick at or past it ends the wait, the goal is not sent and
	// the code is SERVER_UNREACHABLE.
	WaitForServerTimeout time.Duration
	// ServerTimeout bounds the wait for the server to acknowledge the goal
	// (0: no limit): past it the goal is cancelled and the code is
	// SERVER_UNREACHABLE.
	ServerTimeout time.Duration
	// Timeout bounds the whole goal (0: no limit), on the tree's clock: the
	// first tick at or past it cancels the goal and fails with the code
	// TIMEOUT (a tick decides, as BehaviorTree.ROS2's action nodes do, so
	// that in lockstep the cancel leaves at the same simulated time on
	// every run).
	Timeout time.Duration
	// Goal makes the goal (a value or pointer of the goal type) on the tick
	// that starts the leaf, on the tick's goroutine, so that one goal reads
	// the blackboard of one tick. An error is the tick's error.
	Goal func(n *runtime.Leaf) (any, error)
	// OnFeedback, when set, receives on the tick's goroutine, at each tick
	// while the goal runs, the newest feedback (a pointer) that arrived
	// since the previous tick.
	OnFeedback func(n *runtime.Leaf, fb any) error
	// OnDone, when set, decides the leaf's status on the tick that collects
	// the outcome, on the tick's goroutine; by default the leaf succeeds
	// when the goal did. Either way the code goes to the error_code output
	// port when the tree binds it.
	OnDone func(n *runtime.Leaf, o ActionOutcome) (runtime.Status, error)
}

// ActionOutcome is how one goal of an ActionLeaf ended.
type ActionOutcome struct {
	// State is the goal's terminal state on the server; 0 when it never got
	// one (unreachable server, timeout).
	State ros.GoalState
	// Result points to the server's result, or is nil.
	Result any
	// Code is NONE on success, else SERVER_UNREACHABLE, GOAL_REJECTED,
	// ABORTED, CANCELLED or TIMEOUT.
	Code string
	// Err says what went wrong, for logs; nil on success.
	Err error
}

// ActionLeaf is an action node that runs an actionlib goal: the contract of
// runtime's async leaves (RUNNING while the goal runs, the goal's end wakes
// the tree, halting cancels the goal without blocking the tick and the
// cancel reaches the server in the background) with the ROS parts: waiting
// for the server, the goal's acknowledgement and the overall timeout, all
// on the connection's clock, feedback and result handed to the tick's
// goroutine, and an error code. RunAction is one; the skills (NavigateTo,
// Dock) are others, built with NewActionLeaf in their NodeType.New.
//
// It is a runtime.Suspender: while the tree is paused its goal is
// cancelled and no goal leaves, the leaf staying RUNNING; when the tree
// goes on, the same goal is sent again (the pause does not count against
// Timeout). A skill that wraps one passes Suspend and Resume on.
type ActionLeaf struct {
	*runtime.Leaf
	conf   ActionLeafConf
	client *ros.ActionClient
	run    *actionRun // the latest run; tick's goroutine only
	resume bool       // Resume was called: the next tick sends the goal again
}

var _ runtime.Suspender = (*ActionLeaf)(nil)

// actionRun is one goal. The work's goroutine writes outcome before it
// returns; the tick's goroutine reads it after the async leaf saw the work
// end.
type actionRun struct {
	halted    bool // tick's goroutine only
	collected bool
	outcome   ActionOutcome
	terminal  atomic.Bool // the goal's terminal state has arrived

	mu       sync.Mutex
	feedback any
	deadline time.Time // the wait for the server's end, then the goal's Timeout while a goal runs (zero: none)
	expire   func()    // ends the wait or cancels the goal, at deadline
	serverBy time.Time // when the wait for the server ends (zero: no bound); set before the work starts
	returned bool      // the work has returned
	releases []func()  // lockstep holds released when the work returns
	send     func()    // the hold of the goal's send, released once it is out
	cur      *attempt  // the goal being sent or run, if any
	susp     *hold     // set by Suspend until Resume
}

// attempt is one sending of the run's goal: the first, and one after each
// pause. Its fields are under the run's mu.
type attempt struct {
	cancel context.CancelCauseFunc
	susp   *hold // the suspension that cancelled it
}

// hold is one suspension of a run (ActionLeaf.Suspend).
type hold struct {
	resume  chan struct{} // closed by Resume: the goal goes again
	settled chan struct{} // closed once no goal of the run is in flight
	once    sync.Once
}

func (h *hold) settle() { h.once.Do(func() { close(h.settled) }) }

// errSuspended cancels the goal of a paused tree (ActionLeaf.Suspend).
var errSuspended = errors.New("the tree was paused")

// begin starts an attempt under ctx, or returns the channel to wait on
// while the run is suspended.
func (r *actionRun) begin(ctx context.Context) (context.Context, *attempt, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.susp != nil {
		return nil, nil, r.susp.resume
	}
	actx, cancel := context.WithCancelCause(ctx)
	r.cur = &attempt{cancel: cancel}
	return actx, r.cur, nil
}

// setDeadline notes when the wait for the server or the attempt's goal
// times out, and how to end it then (ActionLeaf.Tick decides).
func (r *actionRun) setDeadline(at time.Time, expire func()) {
	r.mu.Lock()
	r.deadline, r.expire = at, expire
	r.mu.Unlock()
}

// expired ends the wait for the server, or cancels the goal with
// errTimeout, when the tree's time now has reached its deadline, and
// reports whether it did.
func (r *actionRun) expired(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.returned || r.deadline.IsZero() || now.Before(r.deadline) {
		return false
	}
	r.deadline = time.Time{}
	r.expire()
	return true
}

// end ends the attempt at, settling the suspension that cancelled it.
func (r *actionRun) end(at *attempt) {
	r.mu.Lock()
	r.deadline = time.Time{} // a paused goal's time does not count
	s := at.susp
	if r.cur == at {
		r.cur = nil
	}
	r.mu.Unlock()
	at.cancel(nil)
	if s != nil {
		s.settle()
	}
}

// suspend holds the run: the goal in flight is cancelled (the work
// settles the hold once the server acknowledged it), none goes out until
// resume. Nil when the work has returned.
func (r *actionRun) suspend() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.returned {
		return nil
	}
	if r.susp != nil {
		return r.susp.settled
	}
	h := &hold{resume: make(chan struct{}), settled: make(chan struct{})}
	r.susp = h
	if at := r.cur; at != nil {
		at.susp = h
		at.cancel(errSuspended)
	} else {
		h.settle() // no goal in flight
	}
	return h.settled
}

// resume lets a suspended run send its goal again.
func (r *actionRun) resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h := r.susp; h != nil {
		r.susp = nil
		close(h.resume)
	}
}

// held adds a lockstep hold (lockstepActions.hold) that the work's return
// releases; none once it has returned.
func (r *actionRun) held(l *lockstepActions) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.returned {
		return func() {}
	}
	rel := l.hold()
	r.releases = append(r.releases, rel)
	return rel
}

// finish releases the holds, as the work returns.
func (r *actionRun) finish() {
	r.mu.Lock()
	r.returned = true
	rel := r.releases
	r.releases = nil
	r.mu.Unlock()
	for _, f := range rel {
		f()
	}
}

func (r *actionRun) setFeedback(fb any) {
	r.mu.Lock()
	r.feedback = fb
	r.mu.Unlock()
}

func (r *actionRun) takeFeedback() any {
	r.mu.Lock()
	defer r.mu.Unlock()
	fb := r.feedback
	r.feedback = nil
	return fb
}

var errTimeout = errors.New("the goal's timeout expired")

// errNoServer ends the wait for the server at WaitForServerTimeout.
var errNoServer = errors.New("the wait for the server ended")

// errStalled cancels the goals in flight when the watchdog sees a stuck
// tick (Conn.CancelGoals).
var errStalled = errors.New("the goal was cancelled: the controller stalled")

// NewActionLeaf returns an action leaf, for a NodeType.New. With a Conn, the
// action client is made at once (it registers topics with the master), so
// that the server connects before the first goal.
func NewActionLeaf(conf ActionLeafConf) (*ActionLeaf, error) {
	if conf.Goal == nil {
		return nil, errors.New("action leaf: no Goal function")
	}
	if _, err := ros.MessageGoType(conf.Action); err != nil {
		return nil, fmt.Errorf("action leaf: %v", err)
	}
	a := &ActionLeaf{conf: conf}
	if conf.Conn != nil {
		c, err := ros.NewActionClient(ros.ActionClientConf{Conn: conf.Conn, Name: conf.Server, Action: conf.Action})
		if err != nil {
			return nil, err
		}
		a.client = c
	}
	a.Leaf = runtime.NewAsyncAction(a.start)
	return a, nil
}

// start makes the goal on the tick's goroutine and returns the work.
func (a *ActionLeaf) start(n *runtime.Leaf) (runtime.AsyncWork, error) {
	if a.client == nil {
		return nil, errNoConn
	}
	goal, err := a.conf.Goal(n)
	if err != nil {
		return nil, err
	}
	r := &actionRun{}
	a.run, a.resume = r, false
	client, conf, clock := a.client, a.conf, a.conf.Conn.Clock()
	if conf.WaitForServerTimeout > 0 {
		r.serverBy = clock.Now().Add(conf.WaitForServerTimeout)
	}
	// In lockstep, the tick's acknowledgement waits for the goal to be
	// out, when it goes at once (lockstep_actions.go).
	ls := lockstepOf(conf.Conn)
	if client.Ready() {
		r.send = r.held(ls)
	}
	return func(ctx context.Context) (runtime.Status, error) {
		defer r.finish()
		r.outcome = runGoal(ctx, client, clock, conf, goal, r)
		return runtime.Success, nil // the leaf's status is decided on the tick
	}, nil
}

// runGoal runs one goal to its outcome, on the work's goroutine. A pause
// of the tree (ActionLeaf.Suspend) cancels the goal and the work waits; on
// Resume the same goal is sent again. The time suspended does not count
// against the goal's Timeout.
func runGoal(ctx context.Context, client *ros.ActionClient, clock runtime.Clock, conf ActionLeafConf, goal any, r *actionRun) ActionOutcome {
	// The wait for the server ends on the tick that reaches serverBy, as
	// a goal's Timeout does (ActionLeaf.Tick), not on a timer: in
	// lockstep, a timer's goroutine that a loaded machine ran late let
	// simulated time run on (SERVER_UNREACHABLE after 5.4 s of a 5 s
	// wait).
	wctx, wcancel := context.WithCancelCause(ctx)
	if !r.serverBy.IsZero() {
		r.setDeadline(r.serverBy, func() { wcancel(errNoServer) })
	}
	werr := client.WaitForServer(wctx, clock, 0)
	r.setDeadline(time.Time{}, nil) // no tick ends the wait from here
	// A tick that ended the wait as the server came up waits for this
	// work to return: it has decided, so the wait failed.
	expired := errors.Is(context.Cause(wctx), errNoServer)
	wcancel(nil)
	if expired || werr != nil {
		if expired && ctx.Err() == nil {
			werr = fmt.Errorf("action server %s did not come up within %v: %w", client.Name(), conf.WaitForServerTimeout, ros.ErrServerUnreachable)
		}
		return ActionOutcome{Code: ros.CodeServerUnreachable, Err: werr}
	}
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer conf.Conn.TrackGoal(cancel)()
	left := conf.Timeout // what is left of it
	var (
		out ros.GoalOutcome
		err error
	)
	for {
		actx, at, wait := r.begin(gctx)
		if wait != nil {
			select {
			case <-wait:
				continue
			case <-gctx.Done():
			}
			break
		}
		began := clock.Now()
		if conf.Timeout > 0 {
			r.setDeadline(began.Add(left), func() { cancel(errTimeout) })
		}
		// The server's acknowledgement is a matter of the connection,
		// measured on the wall clock like the other liveness checks —
		// except in lockstep, where the simulator does not step past a
		// tick until its servers have taken the tick's goals
		// (lockstep_actions.go), so no goal is on its way while simulated
		// time runs: there the tree's clock measures it, and a server that
		// died fails its goal after the same simulated time however fast
		// the transport and the machine run.
		// In lockstep, the cancels of goals halted before this one go first.
		cancelsFirst(conf.Conn, ros.CancelAckPatience)
		answered := make(chan struct{})
		acked := make(chan struct{}) // closed by OnAccepted, called once
		var sent atomic.Bool
		var ackClock runtime.Clock // nil: wall time
		if lockstepOf(conf.Conn).active() {
			ackClock = clock
		}
		out, err = client.Run(actx, goal, ros.GoalConf{Clock: ackClock, AckTimeout: conf.ServerTimeout, OnFeedback: r.setFeedback,
			OnSent:     func() { sent.Store(true); r.finishSendOnAck(actx, acked, ackClock != nil) },
			OnAccepted: func() { close(acked) },
			OnTerminal: func() {
				if errors.Is(context.Cause(actx), errSuspended) {
					// The end of a goal a pause cancelled: the work goes
					// on (it waits for the resume), no tick collects it,
					// and a hold until the work returns would hold every
					// tick of a lockstep that suspends (LockstepConf.Suspend).
					return
				}
				r.terminal.Store(true)
				// In lockstep, the next tick's latch waits for the work to
				// return (lockstep_actions.go).
				r.held(lockstepOf(conf.Conn))
			},
			OnCancelAnswered: func() { close(answered) }})
		paused := errors.Is(context.Cause(actx), errSuspended) && gctx.Err() == nil && errors.Is(err, context.Canceled)
		if paused && sent.Load() {
			// The robot is still until the server has the cancel.
			select {
			case <-answered:
			case <-gctx.Done():
			}
		}
		r.end(at)
		left -= clock.Now().Sub(began)
		if !paused || gctx.Err() != nil {
			break
		}
	}
	switch {
	case errors.Is(context.Cause(gctx), errTimeout):
		return ActionOutcome{Code: ros.CodeTimeout, Err: fmt.Errorf("action %s: %w (%v)", client.Name(), errTimeout, conf.Timeout)}
	case ctx.Err() != nil:
		return ActionOutcome{Code: ros.CodeCancelled, Err: ctx.Err()} // halted: dropped
	case errors.Is(context.Cause(gctx), errStalled):
		return ActionOutcome{Code: ros.CodeCancelled, Err: fmt.Errorf("action %s: %w", client.Name(), errStalled)}
	case errors.Is(err, ros.ErrServerUnreachable):
		return ActionOutcome{Code: ros.CodeServerUnreachable, Err: err}
	case err != nil:
		return ActionOutcome{Code: ros.CodeServerUnreachable, Err: err}
	}
	o := ActionOutcome{State: out.State, Result: out.Result}
	switch out.State {
	case ros.GoalSucceeded:
		o.Code = ros.CodeNone
	case ros.GoalAborted:
		o.Code = ros.CodeAborted
	case ros.GoalRejected:
		o.Code = ros.CodeGoalRejected
	case ros.GoalPreempted, ros.GoalRecalled:
		o.Code = ros.CodeCancelled
	default:
		o.Code = ros.CodeServerUnreachable
	}
	if o.Code != ros.CodeNone {
		o.Err = fmt.Errorf("action %s: the goal ended %s", client.Name(), out.State)
	}
	return o
}

// ackHold bounds how long, in lockstep, a tick's acknowledgement waits for
// the server's first word on the goal it sent (finishSendOnAck): a few of
// a server's status periods. A server that says nothing within it is
// judged by ServerTimeout, on the tree's clock, as the world runs on.
const ackHold = time.Second

// finishSendOnAck releases the hold of the goal's send once the server has
// said its first word on the goal (acked closes), ackHold after the send at
// the latest, or when the attempt ends. The goal's acknowledgement is
// measured on the tree's clock in lockstep (ServerTimeout): had the hold
// ended at the send, the world would run on while the server's word was on
// its way, and on a loaded machine it ran past ServerTimeout before the
// word came (FollowWaypoints' second goal cancelled as unacknowledged).
// The simulator does not step while the hold lasts.
func (r *actionRun) finishSendOnAck(actx context.Context, acked <-chan struct{}, lockstep bool) {
	if !lockstep {
		r.finishSend()
		return
	}
	go func() {
		t := time.NewTimer(ackHold)
		defer t.Stop()
		select {
		case <-acked:
		case <-t.C:
		case <-actx.Done():
		}
		r.finishSend()
	}()
}

// finishSend releases the hold of the goal's send once the goal is out;
// r.send is written before the work starts.
func (r *actionRun) finishSend() {
	if r.send != nil {
		r.send() // releasing twice is harmless
	}
}

// Tick runs the async leaf, hands the newest feedback to OnFeedback, and on
// the tick that collects the outcome decides the status and writes the
// error code.
func (a *ActionLeaf) Tick() (runtime.Status, error) {
	if r := a.run; r != nil && !r.halted && a.resume {
		a.resume = false
		// In lockstep, the tick holds the simulator until the goal sent
		// again is out, as for the first send (finishSend).
		r.send = r.held(lockstepOf(a.conf.Conn))
		r.resume() // the paused goal goes again
	}
	if r := a.run; r != nil && !r.halted && (r.terminal.Load() || r.expired(a.conf.Conn.Clock().Now())) {
		// The goal has ended, or its Timeout has come and this tick
		// cancels it: let its work return, so that this tick collects it
		// whatever the scheduling (the lockstep counts on it). The
		// timeout is the tick's to decide, on the tree's time, not a
		// timer's: in lockstep a timer's goroutine that a loaded machine
		// ran late let simulated time run past the timeout before the
		// cancel went out.
		awaitEnded(a.conf.Conn, a.Leaf)
	}
	st, err := a.Leaf.Tick()
	r := a.run
	if r == nil || r.halted {
		return st, err
	}
	if a.conf.OnFeedback != nil {
		if fb := r.takeFeedback(); fb != nil {
			if ferr := a.conf.OnFeedback(a.Leaf, fb); ferr != nil && err == nil {
				err = ferr
			}
		}
	}
	if err != nil || !st.Completed() || r.collected {
		return st, err
	}
	r.collected = true
	o := r.outcome
	if err := writeCode(a.Leaf, o.Code); err != nil {
		return runtime.Failure, err
	}
	if o.Code != ros.CodeNone && a.Explaining() {
		a.SetReason(o.Reason(a.Server()))
	}
	if a.conf.OnDone != nil {
		return a.conf.OnDone(a.Leaf, o)
	}
	if o.Code == ros.CodeNone {
		return runtime.Success, nil
	}
	return runtime.Failure, nil
}

// Server returns the action server's name, resolved (as reasons and logs
// name it).
func (a *ActionLeaf) Server() string {
	if a.client != nil {
		return a.client.Name()
	}
	return a.conf.Server
}

// Outcome returns how the latest goal ended, from the tick that collected
// it on (a skill reads it to say why it failed); ok is false before the
// first goal has ended, while a goal runs, and after a halt.
func (a *ActionLeaf) Outcome() (o ActionOutcome, ok bool) {
	if r := a.run; r != nil && r.collected && !r.halted {
		return r.outcome, true
	}
	return ActionOutcome{}, false
}

// Reason says, for a leaf's reason, why a goal of the action server did
// not succeed: "/robot1/move_base aborted the goal", "... did not end
// within its timeout (3m0s); cancelled", or the server's trouble. Empty on
// success.
func (o ActionOutcome) Reason(server string) string {
	switch o.Code {
	case ros.CodeNone:
		return ""
	case ros.CodeAborted:
		return server + " aborted the goal"
	case ros.CodeGoalRejected:
		return server + " rejected the goal"
	case ros.CodeCancelled:
		if errors.Is(o.Err, errStalled) {
			return fmt.Sprintf("the goal of %s was cancelled: the controller stalled (the watchdog)", server)
		}
		return fmt.Sprintf("%s ended the goal %v (cancelled by someone else)", server, o.State)
	}
	if o.Err != nil {
		return o.Err.Error()
	}
	return server + ": " + o.Code
}

// Suspend holds the running goal while the tree is paused
// (runtime.Suspender): the goal is cancelled in the background and none
// leaves until Resume; the leaf stays RUNNING. The channel closes once the
// server acknowledged the cancel (or CancelAckPatience passed). In
// lockstep it does nothing, unless LockstepConf.Suspend: the simulated
// world stands still with the held tick.
func (a *ActionLeaf) Suspend() <-chan struct{} {
	r := a.run
	if r == nil || r.halted || a.conf.Conn == nil || lockstepOf(a.conf.Conn).standsStill() {
		return nil
	}
	a.resume = false
	return r.suspend()
}

// Resume sends the suspended goal again, the same goal, on the leaf's next
// tick (runtime.Suspender); a halt before that sends nothing.
func (a *ActionLeaf) Resume() {
	if r := a.run; r != nil && !r.halted {
		a.resume = true
	}
}

// Halt cancels the running goal (in the background) and leaves the leaf
// IDLE; the halted goal's feedback and outcome are dropped.
func (a *ActionLeaf) Halt() {
	a.resume = false
	if r := a.run; r != nil {
		if !r.halted && a.conf.Conn != nil {
			ls := lockstepOf(a.conf.Conn)
			r.held(ls) // the cancel, in lockstep
			r.mu.Lock()
			if !r.returned {
				r.releases = append(r.releases, ls.halting())
			}
			r.mu.Unlock()
		}
		r.halted = true
	}
	a.Leaf.Halt()
}

// asyncPatience bounds how long a tick waits for the work of a goal that
// has ended to return: it has nothing left to do but return, which a
// machine under load may take a while to schedule.
const asyncPatience = time.Second
