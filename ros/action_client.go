package ros

import (
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
)

// The client side of actionlib, on the connection's topics. Each goal has
// actionlib's communication state machine (commState), driven by the
// server's status arrays and by the goal's result, never by feedback:
// status and feedback travel on connections of their own, so a status
// array the server published before it had the goal can arrive after the
// goal's first feedback, and must not make the goal lost. A goal is lost
// only when a status array lacks it after an earlier one listed it (the
// server forgot it), as only then does its absence mean anything.

// commState is where a goal stands between client and server (actionlib's
// CommState).
type commState uint8

const (
	waitingForGoalAck commState = iota
	pending
	active
	waitingForResult
	waitingForCancelAck
	recalling
	preempting
	done
)

func (s commState) String() string {
	return [...]string{"WAITING_FOR_GOAL_ACK", "PENDING", "ACTIVE", "WAITING_FOR_RESULT",
		"WAITING_FOR_CANCEL_ACK", "RECALLING", "PREEMPTING", "DONE"}[s]
}

// commSteps returns the states a goal in state s goes through when the
// server reports status for it: none when the report changes nothing (or
// contradicts what the client knows, which actionlib ignores too).
func commSteps(s commState, status uint8) []commState {
	switch status {
	case actionlib_msgs.GoalStatus_PENDING:
		if s == waitingForGoalAck {
			return []commState{pending}
		}
	case actionlib_msgs.GoalStatus_ACTIVE:
		if s == waitingForGoalAck || s == pending {
			return []commState{active}
		}
	case actionlib_msgs.GoalStatus_RECALLING:
		switch s {
		case waitingForGoalAck:
			return []commState{pending, recalling}
		case pending, waitingForCancelAck:
			return []commState{recalling}
		}
	case actionlib_msgs.GoalStatus_PREEMPTING:
		switch s {
		case waitingForGoalAck, pending:
			return []commState{active, preempting}
		case active, waitingForCancelAck, recalling:
			return []commState{preempting}
		}
	case actionlib_msgs.GoalStatus_REJECTED:
		switch s {
		case waitingForGoalAck:
			return []commState{pending, waitingForResult}
		case pending, waitingForCancelAck, recalling:
			return []commState{waitingForResult}
		}
	case actionlib_msgs.GoalStatus_RECALLED:
		switch s {
		case waitingForGoalAck:
			return []commState{pending, waitingForResult}
		case pending, waitingForCancelAck:
			return []commState{recalling, waitingForResult}
		case recalling:
			return []commState{waitingForResult}
		}
	case actionlib_msgs.GoalStatus_PREEMPTED, actionlib_msgs.GoalStatus_SUCCEEDED, actionlib_msgs.GoalStatus_ABORTED:
		preempted := status == actionlib_msgs.GoalStatus_PREEMPTED
		switch s {
		case waitingForGoalAck, pending:
			if preempted {
				return []commState{active, preempting, waitingForResult}
			}
			return []commState{active, waitingForResult}
		case active:
			if preempted {
				return []commState{preempting, waitingForResult}
			}
			return []commState{waitingForResult}
		case waitingForCancelAck, recalling:
			return []commState{preempting, waitingForResult}
		case preempting:
			return []commState{waitingForResult}
		}
	}
	return nil
}

// goalEvent is a change of a goal's state, as Run sees it.
type goalEvent struct {
	state    commState
	terminal GoalState // with done
	result   any       // with done: a pointer to the result
}

// clientGoal is one goal of an action client (under actionClient.mu).
type clientGoal struct {
	id     actionlib_msgs.GoalID
	state  commState
	listed bool  // a status array listed the goal
	status uint8 // the newest status the server gave
	// cancelEarly is set when the cancel left before the server had
	// listed the goal: a server that forgets a cancel of a goal it has not
	// seen (goroslib's does) gets it again once it lists the goal.
	cancelEarly, cancelAgain bool
	abandoned                time.Time // Run returned before the goal ended
	// onEvent gets every change, under the client's lock: it must not
	// block. onFeedback gets every feedback, outside it.
	onEvent    func(goalEvent)
	onFeedback func(fb any)
	heard      func() // any word of the server on the goal, feedback too
}

// to moves g through steps, telling onEvent.
func (g *clientGoal) to(steps ...commState) {
	for _, s := range steps {
		g.state = s
		g.onEvent(goalEvent{state: s})
	}
}

// finish ends g with terminal state ts.
func (g *clientGoal) finish(ts GoalState, result any) {
	g.state = done
	g.onEvent(goalEvent{state: done, terminal: ts, result: result})
}

// goalCount numbers the goals of every client in the process, as
// actionlib's goal id generator does, so that ids are unique even between
// two clients of one node.
var goalCount atomic.Uint64

// newGoalID returns a goal id the way actionlib makes them:
// "<node>-<count>-<secs>.<nsecs>", stamped now.
func newGoalID(node string, now time.Time) actionlib_msgs.GoalID {
	n := goalCount.Add(1)
	return actionlib_msgs.GoalID{Stamp: now,
		Id: node + "-" + strconv.FormatUint(n, 10) + "-" + strconv.FormatInt(now.Unix(), 10) + "." + strconv.Itoa(now.Nanosecond())}
}

// abandonedGoalTTL bounds how long a goal Run gave up on is followed (for
// its terminal state, which the lockstep counts) when its server says
// nothing more of it.
const abandonedGoalTTL = time.Minute

// onStatus applies a status array to every goal.
func (ac *actionClient) onStatus(m *actionlib_msgs.GoalStatusArray) {
	ac.statusOnce.Do(func() { close(ac.statusSeen) })
	var again []actionlib_msgs.GoalID
	ac.mu.Lock()
	now := time.Now()
	for id, g := range ac.goals {
		if !g.abandoned.IsZero() && now.Sub(g.abandoned) > abandonedGoalTTL {
			delete(ac.goals, id)
			continue
		}
		var st *actionlib_msgs.GoalStatus
		for i := range m.StatusList {
			if m.StatusList[i].GoalId.Id == id {
				st = &m.StatusList[i]
				break
			}
		}
		if st == nil {
			// Absent: not yet there (the array left the server before
			// the goal arrived), or forgotten, if an earlier array
			// listed it.
			if g.listed && g.state != waitingForResult {
				g.finish(GoalLost, nil)
				delete(ac.goals, id)
			}
			continue
		}
		g.listed = true
		g.status = st.Status
		g.to(commSteps(g.state, st.Status)...)
		if g.heard != nil {
			g.heard()
		}
		if g.cancelEarly && !g.cancelAgain && g.state == waitingForCancelAck &&
			(st.Status == actionlib_msgs.GoalStatus_PENDING || st.Status == actionlib_msgs.GoalStatus_ACTIVE) {
			g.cancelAgain = true
			again = append(again, g.id)
		}
	}
	ac.mu.Unlock()
	for _, id := range again {
		ac.sendCancel(id.Id)
	}
	ac.statusStamp.Store(m.Header.Stamp.UnixNano())
}

// onResult ends the goal the result is for.
func (ac *actionClient) onResult(m any) {
	st, res := statusOf(m, "Result")
	ac.mu.Lock()
	defer ac.mu.Unlock()
	g := ac.goals[st.GoalId.Id]
	if g == nil {
		return
	}
	delete(ac.goals, st.GoalId.Id)
	g.status = st.Status
	g.to(commSteps(g.state, st.Status)...)
	g.finish(terminalState(st.Status), res)
}

// terminalState is the GoalState of a final status.
func terminalState(status uint8) GoalState {
	switch status {
	case actionlib_msgs.GoalStatus_SUCCEEDED:
		return GoalSucceeded
	case actionlib_msgs.GoalStatus_ABORTED:
		return GoalAborted
	case actionlib_msgs.GoalStatus_REJECTED:
		return GoalRejected
	case actionlib_msgs.GoalStatus_PREEMPTED:
		return GoalPreempted
	case actionlib_msgs.GoalStatus_RECALLED:
		return GoalRecalled
	}
	return GoalLost // a result with a status that is not final
}

// onFeedback passes a feedback on to its goal; it changes no state.
func (ac *actionClient) onFeedback(m any) {
	st, fb := statusOf(m, "Feedback")
	ac.mu.Lock()
	g := ac.goals[st.GoalId.Id]
	var cb func(any)
	var heard func()
	if g != nil && g.abandoned.IsZero() {
		cb, heard = g.onFeedback, g.heard
	}
	ac.mu.Unlock()
	if heard != nil {
		heard()
	}
	if cb != nil {
		cb(fb)
	}
}

// cancel asks the server to cancel g, unless it has ended or a cancel of
// it is out already. It reports whether a cancel was sent.
func (ac *actionClient) cancel(g *clientGoal) bool {
	ac.mu.Lock()
	switch g.state {
	case waitingForGoalAck, pending, active:
	default:
		ac.mu.Unlock()
		return false
	}
	g.cancelEarly = !g.listed
	g.to(waitingForCancelAck)
	ac.mu.Unlock()
	ac.sendCancel(g.id.Id)
	return true
}

// sendCancel publishes a cancel of one goal: by id, with a zero stamp (a
// stamp would cancel every goal of the server stamped before it).
func (ac *actionClient) sendCancel(id string) {
	_ = ac.cancelPub.Publish(&actionlib_msgs.GoalID{Id: id})
	ac.conn.actionSent()
}

// serverPoll is how often a client that heard the server's status checks
// whether the server's goal and cancel subscribers are connected: at
// first every minServerPoll (they connect within milliseconds of the
// status, and a simulator in lockstep runs on meanwhile), then less often.
const (
	minServerPoll = 2 * time.Millisecond
	maxServerPoll = 50 * time.Millisecond
)

// awaitServer closes ready once the server is there, the way actionlib's
// clients judge it: it publishes a status, and one node subscribes to
// goals and cancels through this node's publishers and publishes the
// results and feedback this node's subscriptions are connected to (from
// the node's own bus information). A result is published once and not
// latched: a goal sent before the result connection was made could end
// unheard.
func (ac *actionClient) awaitServer() {
	defer close(ac.waited)
	select {
	case <-ac.statusSeen:
	case <-ac.quit:
		return
	}
	poll := minServerPoll
	t := time.NewTimer(poll)
	defer t.Stop()
	for {
		if ac.serverConnected() {
			close(ac.ready)
			return
		}
		select {
		case <-t.C:
		case <-ac.quit:
			return
		}
		poll = min(2*poll, maxServerPoll)
		t.Reset(poll)
	}
}

// serverConnected reports whether one node subscribes to both the goal and
// the cancel topic through this node's publishers and publishes the result
// and feedback topics to this node's subscriptions. A wire that knows a
// publisher only by its URI names no peer: any connection counts then.
func (ac *actionClient) serverConnected() bool {
	conns, err := ac.conn.wire.bus()
	if err != nil {
		return false
	}
	goal, cancel := ac.goalPub.Topic(), ac.cancelPub.Topic()
	result, feedback := ac.resultSub.Topic(), ac.feedbackSub.Topic()
	onGoal, onCancel := map[string]bool{}, map[string]bool{}
	onResult, onFeedback := map[string]bool{}, map[string]bool{}
	for _, b := range conns {
		switch {
		case !b.in && b.topic == goal:
			onGoal[b.peer] = true
		case !b.in && b.topic == cancel:
			onCancel[b.peer] = true
		case b.in && b.topic == result:
			onResult[b.peer] = true
		case b.in && b.topic == feedback:
			onFeedback[b.peer] = true
		}
	}
	for p := range onCancel {
		if onGoal[p] && (onResult[p] || onResult[""]) && (onFeedback[p] || onFeedback[""]) {
			return true
		}
	}
	return false
}

// newActionClientTopics subscribes and advertises a client's topics.
func (c *Conn) newActionClientTopics(ac *actionClient) (err error) {
	var closers []func()
	defer func() {
		if err != nil {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i]()
			}
		}
	}()
	sub := func(topic string, t reflect.Type, cb func(any)) (*Subscription, error) {
		s, err := c.subscribe(ac.name+"/"+topic, t, func(m any, _ time.Time) { cb(m) })
		if err == nil {
			closers = append(closers, s.Close)
		}
		return s, err
	}
	pub := func(topic string, t reflect.Type) (*Publisher, error) {
		p, err := c.publisher(ac.name+"/"+topic, t, false)
		if err == nil {
			closers = append(closers, p.Close)
		}
		return p, err
	}
	if ac.resultSub, err = sub("result", ac.topics.resultMsg, ac.onResult); err != nil {
		return err
	}
	if ac.feedbackSub, err = sub("feedback", ac.topics.feedbackMsg, ac.onFeedback); err != nil {
		return err
	}
	if ac.goalPub, err = pub("goal", ac.topics.goalMsg); err != nil {
		return err
	}
	if ac.cancelPub, err = pub("cancel", reflect.TypeFor[actionlib_msgs.GoalID]()); err != nil {
		return err
	}
	ac.statusSub, err = sub("status", reflect.TypeFor[actionlib_msgs.GoalStatusArray](), func(m any) {
		ac.onStatus(m.(*actionlib_msgs.GoalStatusArray))
	})
	if err != nil {
		return fmt.Errorf("action %s: %w", ac.name, err)
	}
	return nil
}
