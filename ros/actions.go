package ros

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// GoalState is how an action goal ended.
type GoalState uint8

// The terminal states of a goal (actionlib's, by name).
const (
	GoalSucceeded GoalState = iota + 1
	GoalAborted
	GoalRejected
	GoalPreempted // cancelled while active
	GoalRecalled  // cancelled before it started
	GoalLost      // the server forgot it
)

func (s GoalState) String() string {
	switch s {
	case GoalSucceeded:
		return "SUCCEEDED"
	case GoalAborted:
		return "ABORTED"
	case GoalRejected:
		return "REJECTED"
	case GoalPreempted:
		return "PREEMPTED"
	case GoalRecalled:
		return "RECALLED"
	case GoalLost:
		return "LOST"
	}
	return "UNKNOWN"
}

// The error codes of action leaves (the error_code output port of RunAction
// and of the skills built on ActionLeaf).
const (
	CodeNone              = "NONE"
	CodeServerUnreachable = "SERVER_UNREACHABLE"
	CodeGoalRejected      = "GOAL_REJECTED"
	CodeAborted           = "ABORTED"
	CodeCancelled         = "CANCELLED"
	CodeTimeout           = "TIMEOUT"
)

// ErrServerUnreachable is returned when an action server does not answer in
// time; errors.Is finds it.
var ErrServerUnreachable = errors.New("action server unreachable")

// ActionClientConf configures NewActionClient.
type ActionClientConf struct {
	Conn *Conn
	// Name of the action server as written: relative, private or global.
	Name string
	// Action is the action type (such as MoveBaseAction{}): a value, a
	// pointer or a MessageType.
	Action any
}

// ActionClient sends goals to one action server. Clients of one server
// share the node's action client for it; each goal is tracked on its own
// (action_client.go).
type ActionClient struct{ ac *actionClient }

type actionClient struct {
	conn   *Conn
	name   string
	typ    reflect.Type
	topics actionTopics

	goalPub, cancelPub                *Publisher
	statusSub, resultSub, feedbackSub *Subscription

	statusSeen chan struct{} // closed at the first status array
	statusOnce sync.Once
	ready      chan struct{} // closed once the server is connected
	quit       chan struct{} // closed by close
	waited     chan struct{} // closed when awaitServer returned

	mu    sync.Mutex
	goals map[string]*clientGoal // by goal id
	// statusStamp is the header stamp (Unix ns) of the newest status array
	// applied (tests wait on it).
	statusStamp atomic.Int64
}

// NewActionClient returns a client of an action server. Creating the first
// client of a server advertises and subscribes to its topics, which talks to
// the master: do it outside a tick.
func NewActionClient(conf ActionClientConf) (*ActionClient, error) {
	if conf.Conn == nil {
		return nil, fmt.Errorf("action %s: no ROS connection", conf.Name)
	}
	t, err := MessageGoType(conf.Action)
	if err != nil {
		return nil, fmt.Errorf("action %s: %v", conf.Name, err)
	}
	ac, err := conf.Conn.actionClient(conf.Name, t)
	if err != nil {
		return nil, err
	}
	return &ActionClient{ac: ac}, nil
}

func (c *Conn) actionClient(name string, t reflect.Type) (*actionClient, error) {
	if err := CheckName(name); err != nil {
		return nil, fmt.Errorf("action: %v", err)
	}
	r := c.Resolve(name)
	c.actionMu.Lock()
	defer c.actionMu.Unlock()
	c.mu.Lock()
	closed, existing := c.closed, c.actions[r]
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("action %s: %w", r, errClosed)
	}
	if existing != nil {
		if existing.typ != t {
			return nil, fmt.Errorf("action %s as %s: the node already uses it as %s", r, c.typeName(t), c.typeName(existing.typ))
		}
		return existing, nil
	}
	rosName, _ := c.msgs.NameOf(t)
	topics, err := newActionTopics(t, rosName)
	if err != nil {
		return nil, fmt.Errorf("action %s: %s is not an action type: %v", r, c.typeName(t), err)
	}
	ac := &actionClient{conn: c, name: r, typ: t, topics: topics,
		statusSeen: make(chan struct{}), ready: make(chan struct{}), quit: make(chan struct{}), waited: make(chan struct{}),
		goals: map[string]*clientGoal{}}
	if err := c.newActionClientTopics(ac); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		close(ac.waited)
		ac.closeTopics()
		return nil, fmt.Errorf("action %s: %w", r, errClosed)
	}
	c.actions[r] = ac
	c.mu.Unlock()
	go ac.awaitServer()
	return ac, nil
}

func (ac *actionClient) close() {
	close(ac.quit)
	<-ac.waited
	ac.closeTopics()
}

func (ac *actionClient) closeTopics() {
	for _, s := range []*Subscription{ac.statusSub, ac.resultSub, ac.feedbackSub} {
		if s != nil {
			s.Close()
		}
	}
	for _, p := range []*Publisher{ac.goalPub, ac.cancelPub} {
		if p != nil {
			p.Close()
		}
	}
}

// Name returns the resolved name of the action server.
func (a *ActionClient) Name() string { return a.ac.name }

// Ready reports whether the server is connected: it publishes its status,
// subscribes to this node's goals and cancels, and this node's result and
// feedback subscriptions are connected to it.
func (a *ActionClient) Ready() bool {
	select {
	case <-a.ac.ready:
		return true
	default:
		return false
	}
}

// WaitForServer waits until the server is connected, for at most timeout on
// clock (no limit when 0), or until ctx ends. A server that does not come
// gives an error wrapping ErrServerUnreachable.
func (a *ActionClient) WaitForServer(ctx context.Context, clock runtime.Clock, timeout time.Duration) error {
	var expired <-chan struct{}
	if timeout > 0 {
		ch, stop := clock.Timer(clock.Now().Add(timeout))
		defer stop()
		expired = ch
	}
	select {
	case <-a.ac.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return fmt.Errorf("action server %s did not come up within %v: %w", a.ac.name, timeout, ErrServerUnreachable)
	}
}

// GoalConf configures ActionClient.Run.
type GoalConf struct {
	// Clock measures AckTimeout; wall time when nil.
	Clock runtime.Clock
	// AckTimeout bounds the wait for the server's first word on the goal
	// (0: no limit); past it the goal is cancelled and Run returns an error
	// wrapping ErrServerUnreachable.
	AckTimeout time.Duration
	// OnFeedback, when set, receives a pointer to every feedback, on a
	// goroutine of the connection.
	OnFeedback func(fb any)
	// OnAccepted, when set, is called once the server acknowledged the goal.
	OnAccepted func()
	// OnSent, when set, is called once the goal has been published.
	OnSent func()
	// OnTerminal, when set, is called, on a goroutine of the connection,
	// when the goal's terminal state arrives, before Run returns it.
	OnTerminal func()
	// OnCancelAnswered, when set, is called once, in the background, after
	// Run returned because ctx ended and it had sent the goal (and so its
	// cancel): when the server has acknowledged the cancel, or did not
	// within CancelAckPatience, or the connection is closing. A paused
	// action leaf waits for it before it confirms the robot stopped.
	OnCancelAnswered func()
}

// GoalOutcome is how a goal ended, with the server's result (a pointer to
// the result type).
type GoalOutcome struct {
	State  GoalState
	Result any
}

// Run sends goal (a value or pointer of the goal type) and waits for its
// outcome. When ctx ends first, the goal is cancelled (the cancel is sent;
// Run does not wait for the server to confirm it) and ctx's error is
// returned. The cancel leaves at once; a server that had not yet listed
// the goal gets it again when it does (a server that forgets a cancel of a
// goal it has not seen, as goroslib's does, would run the goal). When the
// connection's ActionObserver holds cancels (a simulator's lockstep), a
// cancel waits for the server's first word on its goal instead
// (maxCancelDelay at most), so that the simulator takes the goal and its
// cancel in that order on every run.
//
// The goal's state follows actionlib's client: it changes on the server's
// status and result only. It ends LOST only when the server's status no
// longer lists a goal it listed before.
func (a *ActionClient) Run(ctx context.Context, goal any, conf GoalConf) (GoalOutcome, error) {
	ac := a.ac
	v := reflect.ValueOf(goal)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != ac.topics.goal {
		return GoalOutcome{}, fmt.Errorf("action %s: want a goal of type %s, got %T", ac.name, ac.topics.goal, goal)
	}
	if err := ctx.Err(); err != nil {
		return GoalOutcome{}, err
	}
	// Changes come under the client's lock: they are passed on without
	// blocking. A goal goes through eight states at most, so the buffer
	// never fills; heard keeps only that the server spoke.
	events := make(chan goalEvent, 16)
	heard := make(chan struct{}, 1)
	now := ac.conn.clock.Now()
	g := &clientGoal{
		id:         newGoalID(ac.conn.name, now),
		onFeedback: conf.OnFeedback,
		heard: func() {
			select {
			case heard <- struct{}{}:
			default:
			}
		},
	}
	g.onEvent = func(e goalEvent) {
		g.heard()
		if e.state == done {
			// Counted (Conn.GoalsEnded, which a lockstep reads) even for
			// a goal Run has given up on.
			if conf.OnTerminal != nil {
				conf.OnTerminal()
			}
			ac.conn.goalsEnded.Add(1)
		}
		select {
		case events <- e:
		default:
		}
	}
	ac.mu.Lock()
	ac.goals[g.id.Id] = g
	ac.mu.Unlock()
	abandon := func() {
		ac.mu.Lock()
		if g.state != done {
			g.abandoned = time.Now()
		}
		ac.mu.Unlock()
	}
	msg := ac.topics.newGoalMsg(now, g.id, v)
	if err := ac.goalPub.PublishWait(ac.conn.ctx, msg); err != nil {
		ac.mu.Lock()
		delete(ac.goals, g.id.Id)
		ac.mu.Unlock()
		return GoalOutcome{}, fmt.Errorf("action %s: send goal: %w", ac.name, err)
	}
	ac.conn.actionSent()
	if conf.OnSent != nil {
		conf.OnSent()
	}
	var ackTimer <-chan struct{}
	if conf.AckTimeout > 0 {
		clock := conf.Clock
		if clock == nil {
			clock = runtime.WallClock{}
		}
		ch, stop := clock.Timer(clock.Now().Add(conf.AckTimeout))
		defer stop()
		ackTimer = ch
	}
	acked := false // the server has said a word about the goal
	accepted := func() {
		if !acked {
			acked = true
			ackTimer = nil
			if conf.OnAccepted != nil {
				conf.OnAccepted()
			}
		}
	}
	for {
		select {
		case <-ctx.Done():
			abandon()
			// In lockstep (the observer holds cancels) the simulator is
			// held at the tick until it has the cancel, so waiting for the
			// ack costs no simulated time, however long the goal took on
			// the wall clock.
			if !acked && ac.conn.holdsCancels() {
				awaitAck(heard, ackTimer, ac.conn.closing)
			}
			ac.cancel(g)
			// Follow the goal until its server has acknowledged the
			// cancel, so that closing the connection waits for it (a
			// cancel still on its way when the connection closes is
			// lost, and the server drives the goal to its end).
			answered := make(chan struct{})
			if ac.conn.trackCancel(answered) {
				go func() {
					defer close(answered)
					if conf.OnCancelAnswered != nil {
						defer conf.OnCancelAnswered()
					}
					timer := time.NewTimer(CancelAckPatience)
					defer timer.Stop()
					for {
						select {
						case e := <-events:
							switch e.state {
							case recalling, preempting, waitingForResult, done:
								return
							}
						case <-timer.C:
							return
						}
					}
				}()
			} else if conf.OnCancelAnswered != nil {
				go conf.OnCancelAnswered() // closing: nobody follows the cancel
			}
			return GoalOutcome{}, ctx.Err()
		case <-ackTimer:
			abandon()
			ac.cancel(g)
			return GoalOutcome{}, fmt.Errorf("action server %s did not acknowledge the goal within %v: %w", ac.name, conf.AckTimeout, ErrServerUnreachable)
		case <-heard:
			accepted()
		case e := <-events:
			if e.state != waitingForCancelAck {
				accepted()
			}
			if e.state == done {
				return GoalOutcome{State: e.terminal, Result: e.result}, nil
			}
		}
	}
}

// CancelAckPatience bounds how long closing a connection waits for the
// servers to acknowledge the cancels of halted goals (see trackCancel).
const CancelAckPatience = 500 * time.Millisecond

// maxCancelDelay bounds how long, in lockstep, a cancel waits for the
// server to acknowledge its goal (see awaitAck): a few of a server's
// status periods (actionlib's and btrobot's publish the status at 5 Hz).
const maxCancelDelay = time.Second

// awaitAck waits until the server has said its first word about a goal,
// the goal's ack timeout expires, maxCancelDelay passes or the connection
// starts closing, whichever comes first. In lockstep a cancel waits for
// it, so that the simulator takes a goal and its cancel in the same order
// on every run (they travel on topics of their own); the simulator does
// not step meanwhile.
func awaitAck(heard <-chan struct{}, ackTimer, closing <-chan struct{}) {
	bound := time.NewTimer(maxCancelDelay)
	defer bound.Stop()
	select {
	case <-heard:
	case <-ackTimer:
	case <-bound.C:
	case <-closing:
	}
}
