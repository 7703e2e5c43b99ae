package ros

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestCancelRightAfterTheGoal: a goal cancelled at once, while it may still
// be on its way to the server, is cancelled on the server all the same.
// Goal and cancel travel on topics of their own, so the cancel can arrive
// first; the Go ActionServer (goroslib's) forgets a cancel of a goal it has
// not seen and would then run the goal for ever: the robot drives on after
// the tree halted it. Each case cancels after a delay drawn from its range,
// many times; whatever reached the server must end cancelled.
func TestCancelRightAfterTheGoal(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "holder")
	var mu sync.Mutex
	received, cancelled := map[int64]bool{}, map[int64]bool{}
	release := make(chan struct{})
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "hold", Action: actionlib.TwoIntsAction{},
		Execute: func(ctx context.Context, g any, _ func(any)) (any, error) {
			id := g.(*actionlib.TwoIntsActionGoal).A
			mu.Lock()
			received[id] = true
			mu.Unlock()
			select {
			case <-ctx.Done():
				mu.Lock()
				cancelled[id] = true
				mu.Unlock()
				return nil, ctx.Err()
			case <-release: // the test is over
				return nil, nil
			}
		},
	})
	require.NoError(t, err)
	defer close(release)
	c := connect(t, uri, "btrobot")
	client, err := NewActionClient(ActionClientConf{Conn: c, Name: "hold", Action: actionlib.TwoIntsAction{}})
	require.NoError(t, err)
	require.NoError(t, client.WaitForServer(context.Background(), c.Clock(), 5*time.Second))
	cases := []struct {
		name     string
		min, max time.Duration // of the delay before the cancel
		goals    int
	}{
		{"before or while the goal is sent", 0, 100 * time.Microsecond, 20},
		{"while the goal travels", 100 * time.Microsecond, time.Millisecond, 20},
		{"after the server has it", 50 * time.Millisecond, 60 * time.Millisecond, 3},
	}
	var next int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ids []int64
			for i := 0; i < tc.goals; i++ {
				next++
				id := next
				ids = append(ids, id)
				ctx, cancel := context.WithCancel(context.Background())
				delay := tc.min + time.Duration(i)*(tc.max-tc.min)/time.Duration(tc.goals)
				go func() {
					time.Sleep(delay)
					cancel()
				}()
				done := make(chan error, 1)
				go func() {
					_, err := client.Run(ctx, &actionlib.TwoIntsActionGoal{A: id}, GoalConf{AckTimeout: 2 * time.Second})
					done <- err
				}()
				select {
				case err := <-done:
					require.ErrorIs(t, err, context.Canceled, "goal %d: Run returned %v, want the context's cancellation", id, err)
				case <-time.After(5 * time.Second):
					require.FailNow(t, "Run did not return after the cancel", "goal %d", id)
				}
			}
			// A goal still on its way arrives within this.
			var missed []int64
			reached := 0
			deadline := time.Now().Add(2 * time.Second)
			for {
				mu.Lock()
				missed, reached = nil, 0
				for _, id := range ids {
					if received[id] {
						reached++
						if !cancelled[id] {
							missed = append(missed, id)
						}
					}
				}
				mu.Unlock()
				if len(missed) == 0 && time.Now().After(deadline.Add(-time.Second)) || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("%d of %d goals reached the server", reached, tc.goals)
			assert.Empty(t, missed, "goals %v reached the server and were never cancelled there", missed)
			if tc.min >= 50*time.Millisecond {
				assert.Equal(t, tc.goals, reached, "%d of %d goals reached the server before their cancel; want all", reached, tc.goals)
			}
		})
	}
}

// rawGoal sends a TwoInts goal to the server name on the master at uri
// with goroslib's own client (none of ActionClient's care about cancels),
// and returns its handle with its comm states and its terminal state as
// they come. goroslib's actionlib.TwoIntsActionGoal has the MD5 sum of
// TwoIntsGoal (36d09b…, not ROS's 684a2d…), so the server must run on
// goroslib's wire too: btrobot's own wire sends ROS's sum, and goroslib's
// publisher refuses it.
func rawGoal(t *testing.T, uri, name string) (*goroslib.ActionClientGoalHandler, <-chan goroslib.ActionClientCommState, <-chan goroslib.ActionClientTerminalState) {
	t.Helper()
	c := connectWire(t, uri, WireGoroslib, "btrobot") // a host for goroslib's client
	client, err := goroslib.NewActionClient(goroslib.ActionClientConf{Node: c.wire.(*rosWire).node, Name: name, Action: &actionlib.TwoIntsAction{}})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	client.WaitForServer()
	states := make(chan goroslib.ActionClientCommState, 16)
	terminal := make(chan goroslib.ActionClientTerminalState, 1)
	gh, err := client.SendGoal(goroslib.ActionClientGoalConf{
		Goal: &actionlib.TwoIntsActionGoal{A: 1, B: 2},
		OnTransition: func(gh *goroslib.ActionClientGoalHandler, _ *actionlib.TwoIntsActionResult) {
			select {
			case states <- gh.CommState():
			default:
			}
			if ts, err := gh.TerminalState(); err == nil {
				select {
				case terminal <- ts:
				default:
				}
			}
		},
	})
	require.NoError(t, err)
	return gh, states, terminal
}

// TestCancelStoppedByTheCancelHook: a server whose Cancel hook stops the
// goal (the simulator's: it brakes and ends the mission there) has Execute
// return before the goal's ctx ends; the goal still ends PREEMPTED, as the
// client asked, not ABORTED. The hook here lingers after stopping the goal,
// so that Execute has returned well before the ctx ends: before the fix the
// goal ended ABORTED every time.
func TestCancelStoppedByTheCancelHook(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connectWire(t, uri, WireGoroslib, "stopper") // for rawGoal
	stop := make(chan struct{})
	var once sync.Once
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "stoppable", Action: actionlib.TwoIntsAction{},
		Cancel: func(any) {
			once.Do(func() { close(stop) })
			time.Sleep(200 * time.Millisecond)
		},
		Execute: func(ctx context.Context, _ any, _ func(any)) (any, error) {
			select {
			case <-stop:
				return nil, errors.New("stopped by the cancel hook")
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	require.NoError(t, err)
	gh, states, terminal := rawGoal(t, uri, "/stoppable")
	for s := range states {
		if s == goroslib.ActionClientCommStateActive {
			break
		}
	}
	gh.Cancel()
	select {
	case ts := <-terminal:
		assert.Equal(t, goroslib.ActionClientTerminalStatePreempted, ts, "the cancelled goal ended %v, want PREEMPTED", ts)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the cancelled goal never ended")
	}
}

// TestCancelWhileTheGoalIsAccepted: a cancel that reaches the server while
// its goal is still being accepted (Accept waits, as the simulator's does
// for its lock) stops the goal once accepted. goroslib hands the goal and
// the cancel to the server on goroutines of their own; the cancel used to
// find no goal to stop, and the goal then ran to its end: in a hil run the
// robot drove on to its next place after the mission had stopped.
func TestCancelWhileTheGoalIsAccepted(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connectWire(t, uri, WireGoroslib, "slow_acceptor") // for rawGoal
	accepting, release := make(chan struct{}), make(chan struct{})
	ran := make(chan error, 1)
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "slow", Action: actionlib.TwoIntsAction{},
		Accept: func(any) bool {
			close(accepting)
			<-release
			return true
		},
		Execute: func(ctx context.Context, _ any, _ func(any)) (any, error) {
			select {
			case <-ctx.Done():
				ran <- ctx.Err()
				return nil, ctx.Err()
			case <-time.After(5 * time.Second):
				ran <- errors.New("ran to its end: the cancel was lost")
				return nil, nil
			}
		},
	})
	require.NoError(t, err)
	gh, _, terminal := rawGoal(t, uri, "/slow")
	<-accepting
	gh.Cancel()
	time.Sleep(300 * time.Millisecond) // the cancel reaches the server meanwhile
	close(release)
	select {
	case err := <-ran:
		require.ErrorIs(t, err, context.Canceled, "the goal cancelled while accepted: %v", err)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "Execute never returned")
	}
	select {
	case ts := <-terminal:
		assert.Equal(t, goroslib.ActionClientTerminalStatePreempted, ts, "the goal ended %v, want PREEMPTED", ts)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the goal never ended")

	}
}

// TestCloseWhileAGoalIsAccepted: a server closed while a goal is being
// accepted (Accept waits, as the simulator's does for its lock, while a
// fault stops move_base) lets that goal through before its topics go: its
// PENDING has gone out, so its end must too. On the in-process graph the
// close did not wait for the goal's callback, the end went out on closed
// topics, and the client kept a goal acknowledged and never ended: hil's
// move_base_dies_on_goal ran to its time limit with NavigateTo RUNNING
// (1 run in 30-50 under load).
func TestCloseWhileAGoalIsAccepted(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			g := tr.start(t)
			sc := g.join(t, "closing_server")
			accepting, release := make(chan struct{}), make(chan struct{})
			server, err := NewActionServer(ActionServerConf{
				Conn: sc, Name: "/closing", Action: actionlib.TwoIntsAction{},
				Accept: func(any) bool {
					close(accepting)
					<-release
					return true
				},
				Execute: func(ctx context.Context, _ any, _ func(any)) (any, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				},
			})
			require.NoError(t, err)
			c := g.join(t, "btrobot")
			client, err := NewActionClient(ActionClientConf{Conn: c, Name: "/closing", Action: actionlib.TwoIntsAction{}})
			require.NoError(t, err)
			require.NoError(t, client.WaitForServer(context.Background(), c.Clock(), 10*time.Second))
			type ended struct {
				out GoalOutcome
				err error
			}
			done := make(chan ended, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				out, err := client.Run(ctx, actionlib.TwoIntsActionGoal{A: 1, B: 2}, GoalConf{})
				done <- ended{out, err}
			}()
			<-accepting
			closed := make(chan struct{})
			go func() { server.Close(); close(closed) }()
			// A Close that does not wait for the goal being accepted
			// returns at once; one that waits still waits a second later.
			select {
			case <-closed:
			case <-time.After(time.Second):
			}
			close(release)
			e := <-done
			require.NoError(t, e.err, "the goal accepted as the server closed never ended")
			assert.Equal(t, GoalPreempted, e.out.State, "the goal ended %v, want PREEMPTED by the close", e.out.State)
			<-closed
		})
	}
}

// TestAwaitActionServers: AwaitActionServers returns once the clients
// whose servers are on the graph are connected to them (so that a goal
// given at once leaves at once), and does not wait for a server that is
// not there.
func TestAwaitActionServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server bool
	}{
		{name: "a server on the graph", server: true},
		{name: "no server", server: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			if tc.server {
				sc := connect(t, uri, "server")
				_, err := NewActionServer(ActionServerConf{
					Conn: sc, Name: "/adder", Action: actionlib.TwoIntsAction{},
					Execute: func(ctx context.Context, g any, _ func(any)) (any, error) {
						return nil, nil
					},
				})
				require.NoError(t, err)
			}
			c := connect(t, uri, "client")
			client, err := NewActionClient(ActionClientConf{Conn: c, Name: "/adder", Action: actionlib.TwoIntsAction{}})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			assert.Empty(t, c.AwaitActionServers(ctx))
			assert.NoError(t, ctx.Err(), "it waited for a server that is not there")
			assert.Equal(t, tc.server, client.Ready())
		})
	}
}
