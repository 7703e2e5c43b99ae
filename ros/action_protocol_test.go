package ros

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// twoInts are the topics' types of actionlib/TwoInts, for the raw peers.
func twoInts(t *testing.T) actionTopics {
	a, err := newActionTopics(reflect.TypeFor[actionlib.TwoIntsAction](), "actionlib/TwoIntsAction")
	require.NoError(t, err)
	return a
}

// rawServer is an action server made of plain topics, which says exactly
// what a test makes it say, in that order.
type rawServer struct {
	t                        *testing.T
	a                        actionTopics
	status, result, feedback *Publisher
	mu                       sync.Mutex
	goals                    []actionlib_msgs.GoalID
	cancels                  []actionlib_msgs.GoalID
}

func newRawServer(t *testing.T, c *Conn, name string) *rawServer {
	s := &rawServer{t: t, a: twoInts(t)}
	var err error
	s.status, err = c.publisher(name+"/status", reflect.TypeFor[actionlib_msgs.GoalStatusArray](), false)
	require.NoError(t, err)
	s.result, err = c.publisher(name+"/result", s.a.resultMsg, false)
	require.NoError(t, err)
	s.feedback, err = c.publisher(name+"/feedback", s.a.feedbackMsg, false)
	require.NoError(t, err)
	_, err = c.subscribe(name+"/goal", s.a.goalMsg, func(m any, _ time.Time) {
		id, _ := goalOf(m)
		s.mu.Lock()
		s.goals = append(s.goals, id)
		s.mu.Unlock()
	})
	require.NoError(t, err)
	_, err = c.subscribe(name+"/cancel", reflect.TypeFor[actionlib_msgs.GoalID](), func(m any, _ time.Time) {
		s.mu.Lock()
		s.cancels = append(s.cancels, *m.(*actionlib_msgs.GoalID))
		s.mu.Unlock()
	})
	require.NoError(t, err)
	return s
}

func (s *rawServer) publishStatus(list ...actionlib_msgs.GoalStatus) time.Time {
	m := &actionlib_msgs.GoalStatusArray{StatusList: list}
	m.Header.Stamp = time.Now()
	require.NoError(s.t, s.status.PublishWait(context.Background(), m))
	return m.Header.Stamp
}

func (s *rawServer) publishFeedback(st actionlib_msgs.GoalStatus) {
	require.NoError(s.t, s.feedback.PublishWait(context.Background(), newStatusMsg(s.a.feedbackMsg, "Feedback", time.Now(), st, nil)))
}

// goal waits for the first goal.
func (s *rawServer) goal() actionlib_msgs.GoalID {
	var id actionlib_msgs.GoalID
	require.Eventually(s.t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.goals) > 0 {
			id = s.goals[0]
		}
		return len(s.goals) > 0
	}, 10*time.Second, 5*time.Millisecond, "the server got no goal")
	return id
}

func (s *rawServer) cancelsOf(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.cancels {
		if c.Id == id {
			n++
		}
	}
	return n
}

// TestClientCommStates: the client follows actionlib's communication state
// machine, moved by the server's status and result, never by feedback.
// Each case is what the raw server says, in order, and what must follow.
// "stale status after feedback" is the race that let move_base drive on
// after NavigateTo timed out: a status array the server published before
// it had the goal arrives after the goal's first feedback (they travel on
// connections of their own); goroslib's client, which moved the goal to
// ACTIVE on the feedback, then made it LOST, Run returned, and the cancel
// of the halted goal was never sent.
func TestClientCommStates(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "raw_server")
	c := connect(t, uri, "btrobot")
	active := func(id actionlib_msgs.GoalID) actionlib_msgs.GoalStatus {
		return actionlib_msgs.GoalStatus{GoalId: id, Status: actionlib_msgs.GoalStatus_ACTIVE}
	}
	cases := []struct {
		name string
		// server says things about the goal the client sent; fb is
		// closed at the client's first feedback, statusApplied waits
		// until the client applied the status array stamped at.
		server func(s *rawServer, id actionlib_msgs.GoalID, fb <-chan struct{}, statusApplied func(at time.Time))
		// cancel cancels the goal once the server spoke.
		cancel  bool
		want    GoalState // when the goal must end by itself
		cancels int       // cancels of the goal the server must get
	}{
		{
			name: "stale status after feedback",
			server: func(s *rawServer, id actionlib_msgs.GoalID, fb <-chan struct{}, statusApplied func(time.Time)) {
				s.publishFeedback(active(id))
				<-fb
				statusApplied(s.publishStatus()) // published before the goal arrived
			},
			cancel: true, cancels: 1,
		},
		{
			name: "a goal the status stops listing is lost",
			server: func(s *rawServer, id actionlib_msgs.GoalID, _ <-chan struct{}, _ func(time.Time)) {
				s.publishStatus(active(id))
				s.publishStatus()
			},
			want: GoalLost,
		},
		{
			name: "cancel before the server listed the goal is sent again once it does",
			server: func(s *rawServer, id actionlib_msgs.GoalID, _ <-chan struct{}, statusApplied func(time.Time)) {
				require.Eventually(t, func() bool { return s.cancelsOf(id.Id) == 1 }, 10*time.Second, 5*time.Millisecond)
				statusApplied(s.publishStatus()) // still stale: not lost, no second cancel
				s.publishStatus(active(id))      // a server that forgot the early cancel
			},
			cancel: true, cancels: 2,
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "/raw" + string(rune('a'+i))
			s := newRawServer(t, sc, name)
			client, err := NewActionClient(ActionClientConf{Conn: c, Name: name, Action: actionlib.TwoIntsAction{}})
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				s.publishStatus()
				return client.Ready()
			}, 10*time.Second, 20*time.Millisecond, "the client never saw the raw server")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fb := make(chan struct{})
			var fbOnce sync.Once
			type ran struct {
				out GoalOutcome
				err error
			}
			done := make(chan ran, 1)
			early := tc.name == "cancel before the server listed the goal is sent again once it does"
			sent := make(chan struct{})
			go func() {
				out, err := client.Run(ctx, &actionlib.TwoIntsActionGoal{A: 1, B: 2}, GoalConf{
					OnFeedback: func(any) { fbOnce.Do(func() { close(fb) }) },
					OnSent:     func() { close(sent) },
				})
				done <- ran{out, err}
			}()
			<-sent
			if early {
				cancel()
			}
			id := s.goal()
			statusApplied := func(at time.Time) {
				require.Eventually(t, func() bool { return client.ac.statusStamp.Load() == at.UnixNano() }, 10*time.Second, time.Millisecond,
					"the client never applied the status array")
			}
			tc.server(s, id, fb, statusApplied)
			if tc.cancel {
				if !early {
					select {
					case r := <-done:
						require.FailNow(t, fmt.Sprintf("Run returned %+v, %v before the goal was cancelled: the goal must still be active", r.out, r.err))
					default:
					}
				}
				cancel()
				r := <-done
				assert.ErrorIs(t, r.err, context.Canceled)
				require.Eventually(t, func() bool { return s.cancelsOf(id.Id) == tc.cancels }, 10*time.Second, 5*time.Millisecond,
					"the server must get %d cancels of the goal", tc.cancels)
				return
			}
			select {
			case r := <-done:
				require.NoError(t, r.err)
				assert.Equal(t, tc.want, r.out.State)
			case <-time.After(10 * time.Second):
				require.FailNow(t, "Run did not return")

			}
		})
	}
}

// rawClient is an action client made of plain topics.
type rawClient struct {
	t            *testing.T
	a            actionTopics
	goal, cancel *Publisher
	mu           sync.Mutex
	status       map[string]uint8 // newest status by goal id
	results      map[string]uint8
}

func newRawClient(t *testing.T, c *Conn, name string) *rawClient {
	r := &rawClient{t: t, a: twoInts(t), status: map[string]uint8{}, results: map[string]uint8{}}
	var err error
	r.goal, err = c.publisher(name+"/goal", r.a.goalMsg, false)
	require.NoError(t, err)
	r.cancel, err = c.publisher(name+"/cancel", reflect.TypeFor[actionlib_msgs.GoalID](), false)
	require.NoError(t, err)
	_, err = c.subscribe(name+"/status", reflect.TypeFor[actionlib_msgs.GoalStatusArray](), func(m any, _ time.Time) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, st := range m.(*actionlib_msgs.GoalStatusArray).StatusList {
			r.status[st.GoalId.Id] = st.Status
		}
	})
	require.NoError(t, err)
	_, err = c.subscribe(name+"/result", r.a.resultMsg, func(m any, _ time.Time) {
		st, _ := statusOf(m, "Result")
		r.mu.Lock()
		r.results[st.GoalId.Id] = st.Status
		r.mu.Unlock()
	})
	require.NoError(t, err)
	return r
}

func (r *rawClient) sendGoal(id actionlib_msgs.GoalID, a int64) {
	require.NoError(r.t, r.goal.Publish(r.a.newGoalMsg(time.Now(), id, reflect.ValueOf(actionlib.TwoIntsActionGoal{A: a}))))
}

func (r *rawClient) sendCancel(id actionlib_msgs.GoalID) { require.NoError(r.t, r.cancel.Publish(&id)) }

func (r *rawClient) awaitStatus(id string, status uint8) {
	require.Eventually(r.t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.status[id] == status
	}, 10*time.Second, 5*time.Millisecond, "goal %s never had status %d", id, status)
}

func (r *rawClient) awaitResult(id string, status uint8) {
	require.Eventually(r.t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		st, ok := r.results[id]
		return ok && st == status
	}, 10*time.Second, 5*time.Millisecond, "goal %s never ended with status %d", id, status)
}

// TestServerCancels: ActionServer cancels the way actionlib's servers do —
// by id, by stamp, all at once — and remembers a cancel of a goal it has
// not seen, so that the goal, when it comes, ends RECALLED and never runs.
// A goal and its cancel travel on topics of their own: goroslib's server
// forgot such a cancel and then ran the goal.
func TestServerCancels(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "server")
	cc := connect(t, uri, "raw_client")
	var mu sync.Mutex
	ran := map[int64]bool{}
	taken := 0 // goals and cancels the server took in
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "hold", Action: actionlib.TwoIntsAction{},
		OnTaken: func() {
			mu.Lock()
			taken++
			mu.Unlock()
		},
		Execute: func(ctx context.Context, g any, _ func(any)) (any, error) {
			mu.Lock()
			ran[g.(*actionlib.TwoIntsActionGoal).A] = true
			mu.Unlock()
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	require.NoError(t, err)
	r := newRawClient(t, cc, "/hold")
	require.Eventually(t, func() bool {
		n, _ := cc.SubscriberConns("/hold/goal")
		m, _ := cc.SubscriberConns("/hold/cancel")
		return n > 0 && m > 0
	}, 10*time.Second, 10*time.Millisecond, "the server never subscribed")
	// A result is published once and not latched: the raw client must be
	// connected to it before a goal ends, or the result is lost.
	require.Eventually(t, func() bool {
		n, _ := sc.SubscriberConns("/hold/result")
		m, _ := sc.SubscriberConns("/hold/status")
		return n > 0 && m > 0
	}, 10*time.Second, 10*time.Millisecond, "the raw client never subscribed")
	base := time.Now()
	id := func(n int64) actionlib_msgs.GoalID {
		return actionlib_msgs.GoalID{Id: "/raw_client-" + string(rune('0'+n)), Stamp: base.Add(time.Duration(n) * time.Millisecond)}
	}
	cases := []struct {
		name    string
		run     func()
		goal    int64
		want    uint8 // the goal's end
		ranGoal bool
	}{
		{
			name: "cancel before its goal",
			goal: 1,
			run: func() {
				r.sendCancel(actionlib_msgs.GoalID{Id: id(1).Id})
				r.awaitStatus(id(1).Id, actionlib_msgs.GoalStatus_RECALLING)
				r.sendGoal(id(1), 1)
			},
			want: actionlib_msgs.GoalStatus_RECALLED,
		},
		{
			name: "cancel by id",
			goal: 2,
			run: func() {
				r.sendGoal(id(2), 2)
				r.awaitStatus(id(2).Id, actionlib_msgs.GoalStatus_ACTIVE)
				r.sendCancel(actionlib_msgs.GoalID{Id: id(2).Id})
			},
			want: actionlib_msgs.GoalStatus_PREEMPTED, ranGoal: true,
		},
		{
			name: "a goal stamped before a cancel's stamp",
			goal: 3,
			run: func() {
				mu.Lock()
				before := taken
				mu.Unlock()
				r.sendCancel(actionlib_msgs.GoalID{Stamp: id(4).Stamp})
				require.Eventually(t, func() bool {
					mu.Lock()
					defer mu.Unlock()
					return taken > before
				}, 10*time.Second, 5*time.Millisecond, "the server never took the cancel")
				r.sendGoal(id(3), 3)
			},
			want: actionlib_msgs.GoalStatus_RECALLED,
		},
		{
			name: "cancel of everything",
			goal: 5,
			run: func() {
				r.sendGoal(id(5), 5)
				r.awaitStatus(id(5).Id, actionlib_msgs.GoalStatus_ACTIVE)
				r.sendCancel(actionlib_msgs.GoalID{})
			},
			want: actionlib_msgs.GoalStatus_PREEMPTED, ranGoal: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r.t = t
			tc.run()
			r.awaitResult(id(tc.goal).Id, tc.want)
			r.awaitStatus(id(tc.goal).Id, tc.want)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tc.ranGoal, ran[tc.goal], "Execute ran")
		})
	}
}

// TestGoalIDs: goal ids are actionlib's "<node>-<count>-<secs>.<nsecs>",
// unique among every client of the process even at one instant.
func TestGoalIDs(t *testing.T) {
	now := time.Unix(1700000000, 5)
	const n = 1000
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for _, node := range []string{"/robot1/btrobot", "/robot1/btrobot", "/other"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				id := newGoalID(node, now)
				mu.Lock()
				seen[id.Id] = true
				mu.Unlock()
				assert.Equal(t, now, id.Stamp)
			}
		}()
	}
	wg.Wait()
	assert.Len(t, seen, 3*n, "ids repeated")
	assert.Regexp(t, regexp.MustCompile(`^/robot1/btrobot-\d+-1700000000\.5$`), newGoalID("/robot1/btrobot", now).Id)
}
