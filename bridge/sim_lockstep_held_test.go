package bridge

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// TestLockstepSafetyWhileHeld: in lockstep the wall-clock safety checks
// do not act while the simulator waits for the tree, since the simulated
// world stands still meanwhile; they act as before once the simulator goes
// on without the tree (a controller's fault: simnode's RealTime,
// StopClock). Before, under load, a tick that ran 150 ms of wall time
// stopped the robot and cancelled its goals, and a simulator step of 2 s
// ended the run ("/clock stopped"): blocked_corridor parted so.
func TestLockstepSafetyWhileHeld(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	until := time.Unix(10, 0)
	const step = 10 * time.Millisecond // margin: two steps
	cases := []struct {
		name  string
		clock time.Time // where the simulated clock stands at the stall
		// moveOn is where it goes while the tick still runs (zero: stays).
		moveOn time.Time
		// stamped is the stamp of the newest sensor message (zero: none).
		stamped   time.Time
		readyAgo  time.Duration // how long ago the tree let the simulator go
		wantStop  bool          // the watchdog stops the robot
		wantQuiet bool          // a silent /clock counts from the Ready
	}{
		{name: "held: a long tick moves nothing", clock: until, readyAgo: 3 * time.Second},
		{name: "held one step past the stamp", clock: until.Add(step), readyAgo: 3 * time.Second},
		{name: "the simulator goes on while the tick runs", clock: until, moveOn: until.Add(3 * step), readyAgo: 3 * time.Second, wantStop: true},
		{name: "the simulator runs without the tree", clock: until.Add(time.Second), readyAgo: 3 * time.Second, wantStop: true},
		{name: "on its way to the stamp, sensors not past it", clock: until.Add(-step), readyAgo: 3 * time.Second, wantStop: true},
		{name: "on its way, its sensors past the stamp (/clock stopped)", clock: until.Add(-step), stamped: until.Add(time.Second), readyAgo: 3 * time.Second, wantStop: true, wantQuiet: true},
		{name: "on its way for longer than the liveness bound", clock: until.Add(-step), readyAgo: lockstepLiveness + time.Second, wantStop: true, wantQuiet: true},
	}
	uri := rostest.StartMaster(t)
	simConn := connect(t, uri, "sim")
	c := connect(t, uri, "btrobot")
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := runtime.NewManualClock(tc.clock)
			peer := &LockstepPeer{}
			peer.until.Store(until.UnixNano())
			readyAt := time.Now().Add(-tc.readyAgo)
			peer.readyAt.Store(readyAt.UnixNano())
			topic := fmt.Sprintf("/robot1/sensor%d", i)
			sub, err := ros.NewSubscriber(ros.SubscriberConf{Conn: c, Topic: topic, Msg: &geometry_msgs.TwistStamped{}})
			require.NoError(t, err)
			ls := &lockstep{conn: c, clock: clock, peer: peer, quit: make(chan struct{}), hold: true,
				sensors: &sensorWait{subs: []*ros.Subscription{sub}, step: step}}
			defer ls.close()
			if !tc.stamped.IsZero() {
				pub, err := ros.NewPublisher(ros.PublisherConf{Conn: simConn, Topic: topic, Msg: &geometry_msgs.TwistStamped{}, Latch: true})
				require.NoError(t, err)
				defer pub.Close()
				pub.Publish(&geometry_msgs.TwistStamped{Header: std_msgs.Header{Stamp: tc.stamped}})
				require.Eventually(t, func() bool { _, _, n := sub.Newest(); return n > 0 }, 10*time.Second, 5*time.Millisecond, "the sensor message comes")
			}

			// The /clock check.
			q := ls.quietSince()
			if tc.wantQuiet {
				assert.Equal(t, readyAt.UnixNano(), q.UnixNano(), "a silent /clock counts from the Ready")
			} else if !tc.wantStop {
				assert.WithinDuration(t, time.Now(), q, time.Second, "a silent /clock does not count while held")
			}

			// The watchdog, during a tick.
			require.NoError(t, ls.latchStart())
			var stopped atomic.Int32
			ls.unlessHeld(func() { stopped.Add(1) })()
			if !tc.moveOn.IsZero() {
				assert.Zero(t, stopped.Load(), "no stop while held")
				clock.Set(tc.moveOn)
			}
			if tc.wantStop {
				require.Eventually(t, func() bool { return stopped.Load() == 1 }, 10*time.Second, time.Millisecond, "the robot is stopped")
			}
			ls.tickEnded()
			ls.stalls.Wait() // the deferred stop is gone once the tick ended
			want := map[bool]int32{true: 1, false: 0}[tc.wantStop]
			assert.Equal(t, want, stopped.Load(), "stops")
		})
	}
}
