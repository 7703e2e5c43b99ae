package ros

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/actionproc"

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
// share the node's action client for it; each goal is tracked on its own.
type ActionClient struct{ ac *actionClient }

type actionClient struct {
	conn          *Conn
	name          string
	typ           reflect.Type
	goal, res, fb reflect.Type
	client        *goroslib.ActionClient
	ready         chan struct{}
	waited        chan struct{}
	// sendMu serialises SendGoal: goroslib v2.1.5 numbers goal IDs without
	// a lock.
	sendMu sync.Mutex
}

// NewActionClient returns a client of an action server. Creating the first
// client of a server advertises and subscribes to its topics, which talks to
// the master: do it outside a tick.
func NewActionClient(conf ActionClientConf) (*ActionClient, error) {
	if conf.Conn == nil {
		return nil, fmt.Errorf("action %s: no ROS connection", conf.Name)
	}
	t, err := messageType(conf.Action)
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
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("action: %v", err)
	}
	r := c.Resolve(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("action %s: %w", r, errClosed)
	}
	if ac := c.actions[r]; ac != nil {
		if ac.typ != t {
			return nil, fmt.Errorf("action %s as %s: the node already uses it as %s", r, c.typeName(t), c.typeName(ac.typ))
		}
		return ac, nil
	}
	goal, res, fb, err := actionproc.GoalResultFeedback(reflect.New(t).Elem().Interface())
	if err != nil {
		return nil, fmt.Errorf("action %s: %s is not an action type: %v", r, c.typeName(t), err)
	}
	client, err := goroslib.NewActionClient(goroslib.ActionClientConf{Node: c.node, Name: r, Action: reflect.New(t).Interface()})
	if err != nil {
		return nil, fmt.Errorf("action %s: %w", r, err)
	}
	ac := &actionClient{conn: c, name: r, typ: t, goal: reflect.TypeOf(goal), res: reflect.TypeOf(res), fb: reflect.TypeOf(fb),
		client: client, ready: make(chan struct{}), waited: make(chan struct{})}
	// goroslib's WaitForServer has no timeout; it returns when the client
	// closes, so one waiter per client is enough.
	go func() {
		defer close(ac.waited)
		client.WaitForServer()
		close(ac.ready)
	}()
	c.actions[r] = ac
	return ac, nil
}

func (ac *actionClient) close() {
	ac.client.Close()
	<-ac.waited
}

// Name returns the resolved name of the action server.
func (a *ActionClient) Name() string { return a.ac.name }

// Ready reports whether the server is connected on all five action topics.
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
	// within cancelAckPatience, or the connection is closing. A paused
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
// returned. A goal sent less than goalTransit ago (in lockstep, any goal)
// that the server has not yet acknowledged is cancelled once it has (within
// AckTimeout and a second at most), so that the cancel cannot overtake the
// goal.
func (a *ActionClient) Run(ctx context.Context, goal any, conf GoalConf) (GoalOutcome, error) {
	ac := a.ac
	v := reflect.ValueOf(goal)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != ac.goal {
		return GoalOutcome{}, fmt.Errorf("action %s: want a goal of type %s, got %T", ac.name, ac.goal, goal)
	}
	if err := ctx.Err(); err != nil {
		return GoalOutcome{}, err
	}
	g := reflect.New(ac.goal)
	g.Elem().Set(v)

	type event struct {
		comm     goroslib.ActionClientCommState
		terminal goroslib.ActionClientTerminalState
		result   any
	}
	// Transitions come from goroslib's callbacks, under its lock: pass them
	// on without blocking. Eight states at most, so the buffer never fills.
	events := make(chan event, 16)
	var terminal atomic.Bool
	onTransition := reflect.MakeFunc(
		reflect.FuncOf([]reflect.Type{reflect.TypeFor[*goroslib.ActionClientGoalHandler](), reflect.PointerTo(ac.res)}, nil, false),
		func(in []reflect.Value) []reflect.Value {
			gh := in[0].Interface().(*goroslib.ActionClientGoalHandler)
			e := event{comm: gh.CommState(), result: in[1].Interface()}
			if e.comm == goroslib.ActionClientCommStateDone && terminal.CompareAndSwap(false, true) {
				// Counted for the lockstep (lockstep_actions.go), even
				// for a goal Run has given up on.
				if conf.OnTerminal != nil {
					conf.OnTerminal()
				}
				ac.conn.lockstep.ended.Add(1)
			}
			if ts, err := gh.TerminalState(); err == nil {
				e.terminal = ts
			}
			select {
			case events <- e:
			default:
			}
			return nil
		})
	gc := goroslib.ActionClientGoalConf{Goal: g.Interface(), OnTransition: onTransition.Interface()}
	if conf.OnFeedback != nil {
		gc.OnFeedback = reflect.MakeFunc(
			reflect.FuncOf([]reflect.Type{reflect.PointerTo(ac.fb)}, nil, false),
			func(in []reflect.Value) []reflect.Value {
				conf.OnFeedback(in[0].Interface())
				return nil
			}).Interface()
	}
	ac.sendMu.Lock()
	gh, err := ac.client.SendGoal(gc)
	sent := time.Now()
	ac.sendMu.Unlock()
	if err != nil {
		return GoalOutcome{}, fmt.Errorf("action %s: send goal: %w", ac.name, err)
	}
	ac.conn.lockstep.sent()
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
	for {
		select {
		case <-ctx.Done():
			// In lockstep the simulator is held at the tick until it has
			// the cancel, so waiting for the ack costs no simulated time,
			// however long the goal took on the wall clock.
			if !acked && (time.Since(sent) < goalTransit || ac.conn.lockstep.active()) {
				awaitAck(events, ackTimer, ac.conn.closing)
			}
			gh.Cancel()
			ac.conn.lockstep.sent()
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
					timer := time.NewTimer(cancelAckPatience)
					defer timer.Stop()
					for {
						select {
						case e := <-events:
							switch e.comm {
							case goroslib.ActionClientCommStateRecalling, goroslib.ActionClientCommStatePreempting,
								goroslib.ActionClientCommStateDone, goroslib.ActionClientCommStateLost:
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
			gh.Cancel()
			ac.conn.lockstep.sent()
			return GoalOutcome{}, fmt.Errorf("action server %s did not acknowledge the goal within %v: %w", ac.name, conf.AckTimeout, ErrServerUnreachable)
		case e := <-events:
			acked = true
			if ackTimer != nil && e.comm != goroslib.ActionClientCommStateWaitingForGoalAck {
				ackTimer = nil
				if conf.OnAccepted != nil {
					conf.OnAccepted()
				}
			}
			if e.comm != goroslib.ActionClientCommStateDone {
				continue
			}
			out := GoalOutcome{Result: e.result}
			switch e.terminal {
			case goroslib.ActionClientTerminalStateSucceeded:
				out.State = GoalSucceeded
			case goroslib.ActionClientTerminalStateAborted:
				out.State = GoalAborted
			case goroslib.ActionClientTerminalStateRejected:
				out.State = GoalRejected
			case goroslib.ActionClientTerminalStatePreempted:
				out.State = GoalPreempted
			case goroslib.ActionClientTerminalStateRecalled:
				out.State = GoalRecalled
			default:
				out.State = GoalLost
			}
			return out, nil
		}
	}
}

// cancelAckPatience bounds how long closing a connection waits for the
// servers to acknowledge the cancels of halted goals (see trackCancel).
const cancelAckPatience = 500 * time.Millisecond

// goalTransit is how long after its send a goal may still be on its way to
// the server, as far as a cancel is concerned: a cancel sent within it waits
// for the goal's acknowledgement (see awaitAck); one sent later goes at
// once, as the goal has arrived (on loopback in well under a millisecond;
// this leaves room for a loaded machine) and a server acknowledges slowly
// under load: rospy's took over 300 ms at a load of 12.
const goalTransit = 100 * time.Millisecond

// maxCancelDelay bounds how long a cancel waits for the server to
// acknowledge its goal (see awaitAck): a few of a server's status periods
// (goroslib's and actionlib's publish the status at 5 Hz at least).
const maxCancelDelay = time.Second

// awaitAck waits until the server has said its first word about a goal (its
// first transition), the goal's ack timeout expires, maxCancelDelay
// passes or the connection starts closing, whichever comes first. A goal cancelled before that must wait for
// it: the goal and the cancel travel on topics of their own, so the cancel
// can overtake its goal, and a server that gets a cancel of a goal it has
// not seen may forget it and then run the goal (goroslib's server does, and
// so the ActionServer below and the simulator's servers). actionlib's
// servers remember such a cancel; for them the wait costs one status
// message, not the stop.
func awaitAck[E any](events <-chan E, ackTimer, closing <-chan struct{}) {
	bound := time.NewTimer(maxCancelDelay)
	defer bound.Stop()
	select {
	case <-events:
	case <-ackTimer:
	case <-bound.C:
	case <-closing:
	}
}

// ActionServerConf configures NewActionServer.
type ActionServerConf struct {
	Conn *Conn
	// Name of the action as written: relative, private or global.
	Name string
	// Action is the action type: a value, a pointer or a MessageType.
	Action any
	// Accept, when set, decides whether a goal (a pointer to the goal type)
	// is taken; a goal it refuses is rejected.
	Accept func(goal any) bool
	// Execute works on one goal, on a goroutine of its own, and returns the
	// result (a value or pointer of the result type; nil for a zero one).
	// ctx ends when the client cancels the goal or, with Preempt, a newer
	// goal arrives: the goal then ends PREEMPTED whatever Execute returns.
	// Otherwise an error makes it ABORTED, nil SUCCEEDED. feedback publishes
	// a feedback (a value or pointer of the feedback type).
	Execute func(ctx context.Context, goal any, feedback func(fb any)) (result any, err error)
	// Preempt runs one goal at a time, as actionlib's SimpleActionServer
	// and move_base do: a new goal cancels the running one.
	Preempt bool
	// Cancel, when set, is called with the goal a client cancels, before
	// Execute's ctx ends: a server that must stop at once (a simulator in
	// lockstep) stops there. The goal ends PREEMPTED whatever Execute
	// returns, even when it returns before its ctx ends.
	Cancel func(goal any)
	// OnTaken, when set, is called once each goal has been accepted or
	// rejected and each cancel handled: a simulator in lockstep counts
	// them (lockstep_actions.go).
	OnTaken func()
	// OnEnd, when set, is called with each goal once its terminal state
	// (succeeded, aborted, cancelled, rejected) has been published.
	OnEnd func(goal any)
}

// ActionServer serves an action until closed.
type ActionServer struct {
	conf ActionServerConf
	as   *goroslib.ActionServer
	res  reflect.Type
	fb   reflect.Type
	// admit is held through the whole of onGoal and by onCancel: goroslib
	// delivers a goal and a cancel of it on goroutines of their own, and a
	// cancel handled while its goal was being accepted (Accept may wait
	// for the simulator's lock) found no goal to stop, and the goal then
	// ran: a robot drove on after its controller cancelled.
	admit  sync.Mutex
	mu     sync.Mutex
	goals  map[*goroslib.ActionServerGoalHandler]serverGoal
	wg     sync.WaitGroup
	closed bool
	once   sync.Once
}

// NewActionServer advertises an action server.
func NewActionServer(conf ActionServerConf) (*ActionServer, error) {
	c := conf.Conn
	if c == nil {
		return nil, fmt.Errorf("action %s: no ROS connection", conf.Name)
	}
	if conf.Execute == nil {
		return nil, fmt.Errorf("action %s: no Execute", conf.Name)
	}
	if err := checkName(conf.Name); err != nil {
		return nil, fmt.Errorf("action: %v", err)
	}
	t, err := messageType(conf.Action)
	if err != nil {
		return nil, fmt.Errorf("action %s: %v", conf.Name, err)
	}
	goal, res, fb, err := actionproc.GoalResultFeedback(reflect.New(t).Elem().Interface())
	if err != nil {
		return nil, fmt.Errorf("action %s: %s is not an action type: %v", conf.Name, t, err)
	}
	s := &ActionServer{conf: conf, res: reflect.TypeOf(res), fb: reflect.TypeOf(fb), goals: map[*goroslib.ActionServerGoalHandler]serverGoal{}}
	onGoal := reflect.MakeFunc(
		reflect.FuncOf([]reflect.Type{reflect.TypeFor[*goroslib.ActionServerGoalHandler](), reflect.PointerTo(reflect.TypeOf(goal))}, nil, false),
		func(in []reflect.Value) []reflect.Value {
			s.onGoal(in[0].Interface().(*goroslib.ActionServerGoalHandler), in[1].Interface())
			return nil
		})
	name := c.Resolve(conf.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("action %s: %w", name, errClosed)
	}
	s.as, err = goroslib.NewActionServer(goroslib.ActionServerConf{
		Node: c.node, Name: name, Action: reflect.New(t).Interface(),
		OnGoal: onGoal.Interface(), OnCancel: s.onCancel,
	})
	if err != nil {
		return nil, fmt.Errorf("action %s: %w", name, err)
	}
	c.servers = append(c.servers, s.Close)
	return s, nil
}

func (s *ActionServer) zeroResult() any { return reflect.New(s.res).Interface() }

// serverGoal is a goal Execute works on.
type serverGoal struct {
	goal   any
	cancel context.CancelFunc
	// cancelled is set before Cancel and the ctx's end: a goal whose
	// Execute returns because Cancel stopped it (before its ctx ended) is
	// still PREEMPTED, not ABORTED.
	cancelled *atomic.Bool
}

func (s *ActionServer) taken() {
	if s.conf.OnTaken != nil {
		s.conf.OnTaken()
	}
}

func (s *ActionServer) ended(goal any) {
	if s.conf.OnEnd != nil {
		s.conf.OnEnd(goal)
	}
}

func (s *ActionServer) onGoal(gh *goroslib.ActionServerGoalHandler, goal any) {
	defer s.taken()
	s.admit.Lock()
	defer s.admit.Unlock()
	if s.conf.Accept != nil && !s.conf.Accept(goal) {
		gh.SetRejected(s.zeroResult())
		s.ended(goal)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		gh.SetRejected(s.zeroResult())
		s.ended(goal)
		return
	}
	if s.conf.Preempt {
		for _, g := range s.goals {
			g.cancel()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := serverGoal{goal, cancel, new(atomic.Bool)}
	s.goals[gh] = g
	s.wg.Add(1)
	s.mu.Unlock()
	gh.SetAccepted()
	go s.execute(ctx, gh, g)
}

func (s *ActionServer) execute(ctx context.Context, gh *goroslib.ActionServerGoalHandler, g serverGoal) {
	defer s.wg.Done()
	goal := g.goal
	feedback := func(fb any) {
		if p, ok := s.value(fb, s.fb); ok && ctx.Err() == nil {
			gh.PublishFeedback(p)
		}
	}
	res, err := s.conf.Execute(ctx, goal, feedback)
	p, ok := s.value(res, s.res)
	if !ok {
		p = s.zeroResult()
	}
	s.mu.Lock()
	delete(s.goals, gh)
	s.mu.Unlock()
	switch {
	case ctx.Err() != nil || g.cancelled.Load():
		gh.SetCanceled(p)
	case err != nil:
		gh.SetAborted(p)
	default:
		gh.SetSucceeded(p)
	}
	s.ended(goal)
}

// value turns v (a value, a pointer or nil) into a pointer of type t.
func (s *ActionServer) value(v any, t reflect.Type) (any, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if !rv.IsValid() || rv.Type() != t {
		return nil, false
	}
	p := reflect.New(t)
	p.Elem().Set(rv)
	return p.Interface(), true
}

func (s *ActionServer) onCancel(gh *goroslib.ActionServerGoalHandler) {
	defer s.taken()
	s.admit.Lock()
	defer s.admit.Unlock()
	s.mu.Lock()
	g, running := s.goals[gh]
	s.mu.Unlock()
	if running {
		g.cancelled.Store(true)
		if s.conf.Cancel != nil {
			s.conf.Cancel(g.goal)
		}
		g.cancel()
		return
	}
	gh.SetCanceled(s.zeroResult())
	s.ended(nil)
}

// Close cancels the running goals, waits for their Execute to return, and
// unadvertises the server.
func (s *ActionServer) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		for _, g := range s.goals {
			g.cancel()
		}
		s.mu.Unlock()
		s.wg.Wait()
		s.as.Close()
	})
}
