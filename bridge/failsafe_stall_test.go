package bridge

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// TestAStuckTickCancelsTheGoalsInFlight: when the watchdog sees a stuck
// tick it cancels the action goals in flight besides sending the zero
// velocity — an action server such as move_base would drive on after the
// zero velocity — and when the tick comes back the action leaf finds its
// goal CANCELLED. A tick that is not stuck cancels nothing.
func TestAStuckTickCancelsTheGoalsInFlight(t *testing.T) {
	// At 5 Hz the watchdog (three periods) bites after 600 ms. The stuck
	// tick is held until the server saw its goal cancelled, so that the
	// cancel provably came while the tick was stuck however slow the
	// machine; the slow one takes a tenth of the watchdog's time.
	cases := []struct {
		name      string
		stall     time.Duration // of the tenth tick; 0: until the server saw the cancel
		cancelled bool
	}{
		{"a stuck tick", 0, true},
		{"a slow tick within the watchdog", 60 * time.Millisecond, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			var received, cancelled atomic.Int64
			release := make(chan struct{})
			_, err := ros.NewActionServer(ros.ActionServerConf{
				Conn: connect(t, uri, "holder"), Name: "hold", Action: actionlib.TwoIntsAction{},
				Execute: func(ctx context.Context, _ any, _ func(any)) (any, error) {
					received.Add(1)
					select {
					case <-ctx.Done():
						cancelled.Add(1)
						return nil, ctx.Err()
					case <-release:
						return nil, nil
					}
				},
			})
			require.NoError(t, err)
			defer close(release)

			unstick := make(chan struct{})
			var unstickOnce sync.Once
			unstickNow := func() { unstickOnce.Do(func() { close(unstick) }) }
			defer unstickNow()

			c := connect(t, uri, "btrobot")
			p := profile(t, `
rate: 5
outputs: [{topic: /cmd_vel, type: geometry_msgs/Twist, fields: {speed: linear.x}, publish: every_tick}]
safety: {velocity_topic: /cmd_vel, watchdog: 3}
`)
			var ticks atomic.Int64
			slow := runtime.StatefulActionType("Slow", nil, func(*runtime.Config) (runtime.StatefulAction, error) {
				return statefulFunc(func(*runtime.Leaf) (runtime.Status, error) {
					if ticks.Add(1) == 10 {
						if tc.stall == 0 {
							<-unstick
						} else {
							time.Sleep(tc.stall) // the work of a slow tick
						}
					}
					return runtime.Running, nil
				}), nil
			})
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `
<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Parallel success_count="-1" failure_count="1">
    <RunAction server_name="hold" action_type="actionlib/TwoIntsAction" goal_fields="a=1; b=2" error_code="{code}"/>
    <Slow/>
  </Parallel>
</BehaviorTree></root>`, slow)
			var stalls atomic.Int64
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p, UntilDone: true, OnStall: func() { stalls.Add(1) }})
			require.Eventually(t, func() bool { return received.Load() == 1 }, 10*time.Second, 5*time.Millisecond, "the goal at the server")
			if !tc.cancelled {
				// Two ticks (400 ms) after the slow one: a stall of it
				// would have been called by now.
				require.Eventually(t, func() bool { return ticks.Load() > 12 }, 10*time.Second, 5*time.Millisecond, "the slow tick")
				assert.Zero(t, stalls.Load())
				assert.Zero(t, cancelled.Load(), "a goal cancelled without a stall")
				_, err := stop()
				require.Error(t, err)
				return
			}
			// The tenth tick is held until the server saw the cancel: a
			// cancel sent only after the tick would never come.
			require.Eventually(t, func() bool { return cancelled.Load() == 1 }, 10*time.Second, 5*time.Millisecond, "the goal cancelled during the stall")
			assert.Equal(t, int64(10), ticks.Load(), "cancelled while the tick was stuck, not after it")
			// OnStall is called once the robot is stopped and the goals
			// cancelled: possibly after the server saw the cancel.
			require.Eventually(t, func() bool { return stalls.Load() == 1 }, 10*time.Second, 5*time.Millisecond, "the stall reported")
			unstickNow()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the run did not end: the action leaf did not fail its cancelled goal")
			}
			rep, err := stop()
			require.NoError(t, err)
			assert.Equal(t, runtime.Failure, rep.Status)
			code, ok := tree.Blackboard().Get("code")
			require.True(t, ok)
			assert.Equal(t, ros.CodeCancelled, code)
		})
	}
}
