package ros

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
)

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
	// Check, when set, decides after Accept and says why it refuses: a
	// non-nil error rejects the goal with the error's text as its status
	// text and result (a value or pointer of the result type; nil for a
	// zero one) as its result, so that a client learns what was wrong.
	Check func(goal any) (result any, err error)
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
	// them (bridge/lockstep_actions.go).
	OnTaken func()
	// OnEnd, when set, is called with each goal once its terminal state
	// (succeeded, aborted, cancelled, rejected) has been published.
	OnEnd func(goal any)
}

// ErrPreempted, returned by an Execute (wrapped, with why), ends its goal
// PREEMPTED, as a client's cancel does: a server that decides itself that
// another goal takes this one's place (a mission server's replace) says so.
var ErrPreempted = errors.New("preempted")

// ActionServer serves an action until closed, the way actionlib's servers
// do:
//
//   - every goal it has heard of is in its status list, published on
//     <action>/status at 5 Hz and at every change; a goal that ended stays
//     listed for statusListTimeout, then is dropped;
//   - a cancel names a goal by id, or cancels every goal stamped at or
//     before its stamp, or (no id, no stamp) every goal;
//   - a cancel of a goal it has not seen yet is remembered (the goal is
//     listed RECALLING), and the goal, when it comes, ends RECALLED without
//     running; so does a goal stamped at or before the newest cancel stamp.
//     Goal and cancel travel on topics of their own, so a cancel can
//     overtake its goal: a server that forgot it would run the goal, and
//     the robot would drive on after its controller cancelled.
type ActionServer struct {
	conf   ActionServerConf
	conn   *Conn
	name   string
	topics actionTopics

	statusPub, resultPub, feedbackPub *Publisher
	goalSub, cancelSub                *Subscription

	// admit is held through the whole of onGoal and by onCancel: the
	// goal and the cancel topic are delivered on goroutines of their own,
	// and a cancel handled while its goal was being accepted (Accept may
	// wait for the simulator's lock) would find the goal PENDING, which
	// the goal's acceptance would then overwrite.
	admit sync.Mutex
	mu    sync.Mutex
	list  []*serverGoal // the status list, in arrival order
	// lastCancel is the newest stamp of a cancel: goals stamped at or
	// before it are cancelled on arrival.
	lastCancel time.Time
	wg         sync.WaitGroup
	closed     bool
	quit, done chan struct{} // the status publisher's
	once       sync.Once
}

// statusPeriod is how often a server publishes its status list (actionlib's
// default status frequency, 5 Hz), besides at every change.
const statusPeriod = 200 * time.Millisecond

// statusListTimeout is how long a goal that ended stays in the status list
// (actionlib's default), so that a client that missed its result learns its
// end from the status (and, once it is dropped, that it is gone).
const statusListTimeout = 5 * time.Second

// NewActionServer advertises an action server.
func NewActionServer(conf ActionServerConf) (*ActionServer, error) {
	c := conf.Conn
	if c == nil {
		return nil, fmt.Errorf("action %s: no ROS connection", conf.Name)
	}
	if conf.Execute == nil {
		return nil, fmt.Errorf("action %s: no Execute", conf.Name)
	}
	if err := CheckName(conf.Name); err != nil {
		return nil, fmt.Errorf("action: %v", err)
	}
	t, err := MessageGoType(conf.Action)
	if err != nil {
		return nil, fmt.Errorf("action %s: %v", conf.Name, err)
	}
	name := c.Resolve(conf.Name)
	rosName, _ := c.msgs.NameOf(t)
	topics, err := newActionTopics(t, rosName)
	if err != nil {
		return nil, fmt.Errorf("action %s: %s is not an action type: %v", name, c.typeName(t), err)
	}
	s := &ActionServer{conf: conf, conn: c, name: name, topics: topics, quit: make(chan struct{}), done: make(chan struct{})}
	// Publishers first, then the subscribers: a client that sees this
	// server take its goals finds the status, result and feedback
	// advertised.
	if err := s.openTopics(); err != nil {
		s.closeTopics()
		return nil, fmt.Errorf("action %s: %w", name, err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.closeTopics()
		return nil, fmt.Errorf("action %s: %w", name, errClosed)
	}
	c.servers = append(c.servers, s.Close)
	c.mu.Unlock()
	go s.publishStatusPeriodically()
	return s, nil
}

func (s *ActionServer) openTopics() error {
	var err error
	c := s.conn
	// Latched, as actionlib's: a client that connects hears the server at
	// once, not at the next period.
	if s.statusPub, err = c.publisher(s.name+"/status", reflect.TypeFor[actionlib_msgs.GoalStatusArray](), true); err != nil {
		return err
	}
	if s.resultPub, err = c.publisher(s.name+"/result", s.topics.resultMsg, false); err != nil {
		return err
	}
	if s.feedbackPub, err = c.publisher(s.name+"/feedback", s.topics.feedbackMsg, false); err != nil {
		return err
	}
	if s.goalSub, err = c.subscribe(s.name+"/goal", s.topics.goalMsg, func(m any, _ time.Time) { s.onGoal(m) }); err != nil {
		return err
	}
	s.cancelSub, err = c.subscribe(s.name+"/cancel", reflect.TypeFor[actionlib_msgs.GoalID](), func(m any, _ time.Time) {
		s.onCancel(*m.(*actionlib_msgs.GoalID))
	})
	return err
}

func (s *ActionServer) closeTopics() {
	for _, sub := range []*Subscription{s.goalSub, s.cancelSub} {
		if sub != nil {
			sub.Close()
		}
	}
	for _, p := range []*Publisher{s.statusPub, s.resultPub, s.feedbackPub} {
		if p != nil {
			p.Close()
		}
	}
}

func (s *ActionServer) zeroResult() any { return reflect.New(s.topics.result).Interface() }

// serverGoal is an entry of the status list.
type serverGoal struct {
	status actionlib_msgs.GoalStatus
	goal   any // nil for a cancel whose goal has not come
	// ended is when the goal reached a terminal state (or its cancel came
	// alone); the entry is dropped statusListTimeout later.
	ended  time.Time
	cancel context.CancelFunc
	// cancelled is set before Cancel and the ctx's end: a goal whose
	// Execute returns because Cancel stopped it (before its ctx ended) is
	// still PREEMPTED, not ABORTED.
	cancelled atomic.Bool
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

// find returns the entry of goal id, or nil (under mu).
func (s *ActionServer) find(id string) *serverGoal {
	for _, g := range s.list {
		if g.status.GoalId.Id == id {
			return g
		}
	}
	return nil
}

func (s *ActionServer) onGoal(m any) {
	defer s.taken()
	id, goal := goalOf(m)
	s.admit.Lock()
	defer s.admit.Unlock()
	s.mu.Lock()
	if g := s.find(id.Id); g != nil {
		// A goal heard of before: its cancel came first, or it is a
		// duplicate, which changes nothing.
		if g.goal == nil && g.status.Status == actionlib_msgs.GoalStatus_RECALLING {
			g.goal = goal
			s.mu.Unlock()
			s.end(g, actionlib_msgs.GoalStatus_RECALLED, "cancelled before it arrived", nil)
			return
		}
		if !g.ended.IsZero() {
			g.ended = time.Now()
		}
		s.mu.Unlock()
		return
	}
	g := &serverGoal{status: actionlib_msgs.GoalStatus{GoalId: id, Status: actionlib_msgs.GoalStatus_PENDING}, goal: goal}
	s.list = append(s.list, g)
	early := !id.Stamp.IsZero() && !id.Stamp.After(s.lastCancel)
	closed := s.closed
	s.mu.Unlock()
	switch {
	case early:
		s.end(g, actionlib_msgs.GoalStatus_RECALLED, "cancelled by a cancel stamped after it", nil)
		return
	case closed:
		s.end(g, actionlib_msgs.GoalStatus_REJECTED, "the server is closing", nil)
		return
	}
	s.publishStatus()
	if s.conf.Accept != nil && !s.conf.Accept(goal) {
		s.end(g, actionlib_msgs.GoalStatus_REJECTED, "", nil)
		return
	}
	if s.conf.Check != nil {
		if res, err := s.conf.Check(goal); err != nil {
			p, _ := s.value(res, s.topics.result)
			s.end(g, actionlib_msgs.GoalStatus_REJECTED, err.Error(), p)
			return
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.end(g, actionlib_msgs.GoalStatus_REJECTED, "the server is closing", nil)
		return
	}
	if s.conf.Preempt {
		for _, o := range s.list {
			if o.cancel != nil && o.ended.IsZero() {
				o.cancel()
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	g.status.Status = actionlib_msgs.GoalStatus_ACTIVE
	s.wg.Add(1)
	s.mu.Unlock()
	s.publishStatus()
	go s.execute(ctx, g)
}

func (s *ActionServer) execute(ctx context.Context, g *serverGoal) {
	defer s.wg.Done()
	defer g.cancel()
	feedback := func(fb any) {
		p, ok := s.value(fb, s.topics.feedback)
		if !ok || ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		status := g.status
		s.mu.Unlock()
		_ = s.feedbackPub.Publish(newStatusMsg(s.topics.feedbackMsg, "Feedback", s.conn.clock.Now(), status, p))
	}
	res, err := s.conf.Execute(ctx, g.goal, feedback)
	p, ok := s.value(res, s.topics.result)
	if !ok {
		p = s.zeroResult()
	}
	switch {
	case ctx.Err() != nil || g.cancelled.Load():
		s.end(g, actionlib_msgs.GoalStatus_PREEMPTED, "", p)
	case errors.Is(err, ErrPreempted):
		s.end(g, actionlib_msgs.GoalStatus_PREEMPTED, err.Error(), p)
	case err != nil:
		s.end(g, actionlib_msgs.GoalStatus_ABORTED, err.Error(), p)
	default:
		s.end(g, actionlib_msgs.GoalStatus_SUCCEEDED, "", p)
	}
}

// resultPatience bounds how long a result waits to be handed to the
// clients' connections before OnEnd is told of it.
const resultPatience = time.Second

// end gives g its terminal state and publishes its result (a pointer; zero
// when nil), then the status list, then tells OnEnd.
func (s *ActionServer) end(g *serverGoal, status uint8, text string, result any) {
	if result == nil {
		result = s.zeroResult()
	}
	s.mu.Lock()
	g.status.Status, g.status.Text = status, text
	g.ended = time.Now()
	st := g.status
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), resultPatience)
	_ = s.resultPub.PublishWait(ctx, newStatusMsg(s.topics.resultMsg, "Result", s.conn.clock.Now(), st, result))
	cancel()
	s.publishStatus()
	s.ended(g.goal)
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

func (s *ActionServer) onCancel(id actionlib_msgs.GoalID) {
	defer s.taken()
	s.admit.Lock()
	defer s.admit.Unlock()
	all := id.Id == "" && id.Stamp.IsZero()
	found := false
	var stop []*serverGoal
	s.mu.Lock()
	for _, g := range s.list {
		match := g.status.GoalId.Id == id.Id
		found = found || match
		if !all && !match && (id.Stamp.IsZero() || g.status.GoalId.Stamp.After(id.Stamp)) {
			continue
		}
		// Under admit no goal is PENDING: Accept has decided.
		if g.status.Status == actionlib_msgs.GoalStatus_ACTIVE {
			g.status.Status = actionlib_msgs.GoalStatus_PREEMPTING
			g.cancelled.Store(true)
			stop = append(stop, g)
		}
	}
	if id.Id != "" && !found {
		// Its goal has not come: remembered, so that it never runs.
		s.list = append(s.list, &serverGoal{status: actionlib_msgs.GoalStatus{GoalId: id, Status: actionlib_msgs.GoalStatus_RECALLING}, ended: time.Now()})
	}
	if id.Stamp.After(s.lastCancel) {
		s.lastCancel = id.Stamp
	}
	s.mu.Unlock()
	for _, g := range stop {
		if s.conf.Cancel != nil {
			s.conf.Cancel(g.goal)
		}
		g.cancel()
	}
	s.publishStatus()
}

// publishStatus drops the entries whose time in the list is over and
// publishes the rest.
func (s *ActionServer) publishStatus() {
	now := time.Now()
	s.mu.Lock()
	keep := s.list[:0]
	list := make([]actionlib_msgs.GoalStatus, 0, len(s.list))
	for _, g := range s.list {
		if !g.ended.IsZero() && now.Sub(g.ended) > statusListTimeout {
			continue
		}
		keep = append(keep, g)
		list = append(list, g.status)
	}
	for i := len(keep); i < len(s.list); i++ {
		s.list[i] = nil
	}
	s.list = keep
	m := &actionlib_msgs.GoalStatusArray{StatusList: list}
	m.Header.Stamp = s.conn.clock.Now()
	// Queued under mu (Publish does not block), so that the arrays go out
	// in the order they were taken: an older one after a newer would show
	// a client its goal gone, and the goal would end LOST.
	_ = s.statusPub.Publish(m)
	s.mu.Unlock()
}

func (s *ActionServer) publishStatusPeriodically() {
	defer close(s.done)
	t := time.NewTicker(statusPeriod)
	defer t.Stop()
	for {
		s.publishStatus()
		select {
		case <-t.C:
		case <-s.quit:
			return
		}
	}
}

// Close cancels the running goals, waits for their Execute to return (their
// results go out), and unadvertises the server. A goal being accepted as
// Close is called is let through first, then cancelled like the others:
// its PENDING has gone out, so its end must go out before the topics do
// (a wire's subscription may close without waiting for its callbacks).
func (s *ActionServer) Close() {
	s.once.Do(func() {
		s.admit.Lock() // no goal half accepted
		s.mu.Lock()
		s.closed = true
		for _, g := range s.list {
			if g.cancel != nil {
				g.cancel()
			}
		}
		s.mu.Unlock()
		s.admit.Unlock()
		s.wg.Wait()
		close(s.quit)
		<-s.done
		s.closeTopics()
	})
}
