package bridge

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestLockstepLatchWaitsForEvents: a tick in lockstep latches only once
// what the simulator said before it holds has arrived, however late it
// comes on the wall clock: a change of a sensor that also goes out on
// change (docked, between its periods), and the return of the work of a
// goal that ended, a sensor's message the simulator says it sent. Each
// case delays that event on purpose; before the latch waited for the
// events, the tick went on without them and saw the dock (and the goal's
// end, and the robot's pose) a tick later under load (battery_drop_docks
// parted so). The delays are well within the latch's liveness bound
// (heldPatience). A topic a fault froze is not waited for: its stamp
// stands still in what the simulator says.
func TestLockstepLatchWaitsForEvents(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	const delay = 150 * time.Millisecond
	cases := []struct {
		name string
		// said is goals_ended's frame_id: the simulator said docked went
		// true; that message is the delayed event.
		said string
		hold bool // a goal's work that has not returned holds the lockstep
		// odom: the delayed event is odometry stamped now (the simulator
		// said it sent it).
		odom bool
	}{
		{name: "a change of docked still on its way", said: "/robot1/docked=true"},
		{name: "an ended goal's work still returning", hold: true},
		{name: "both", said: "/robot1/bumper=false /robot1/docked=true", hold: true},
		{name: "a sensor message still on its way", said: "/robot1/odom@5000000000", odom: true},
		{name: "all three", said: "/robot1/bumper=false /robot1/docked=true /robot1/odom@5000000000", hold: true, odom: true},
		// Frozen since 4.9 s: the newest odometry the tree has is the one
		// the simulator sent last; nothing comes late.
		{name: "a frozen sensor topic", said: "/robot1/docked=false /robot1/odom@4900000000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			simConn := connect(t, uri, "sim")
			docked, err := ros.NewPublisher(ros.PublisherConf{Conn: simConn, Topic: "/robot1/docked", Msg: &std_msgs.Bool{}})
			require.NoError(t, err)
			odom, err := ros.NewPublisher(ros.PublisherConf{Conn: simConn, Topic: "/robot1/odom", Msg: &nav_msgs.Odometry{}})
			require.NoError(t, err)
			ended, err := ros.NewPublisher(ros.PublisherConf{Conn: simConn, Topic: "/sim/robot1/" + GoalsEndedTopic, Msg: &std_msgs.Header{}, Latch: true})
			require.NoError(t, err)

			c := connect(t, uri, "btrobot")
			_, err = NewLockstepPeer(c, "/sim/lockstep")
			require.NoError(t, err)
			sub, err := ros.NewSubscriber(ros.SubscriberConf{Conn: c, Topic: "/robot1/docked", Msg: &std_msgs.Bool{}})
			require.NoError(t, err)
			odomSub, err := ros.NewSubscriber(ros.SubscriberConf{Conn: c, Topic: "/robot1/odom", Msg: &nav_msgs.Odometry{}})
			require.NoError(t, err)
			goals, err := ros.NewSubscriber(ros.SubscriberConf{Conn: c, Topic: "/sim/robot1/" + GoalsEndedTopic, Msg: &std_msgs.Header{}})
			require.NoError(t, err)
			var warned atomic.Bool
			ls := &lockstep{conn: c, goals: goals, ticked: true, sensors: &sensorWait{
				subs: []*ros.Subscription{sub, odomSub}, topics: []string{"/robot1/docked", "/robot1/odom"},
				periods: []time.Duration{time.Second, 50 * time.Millisecond},
				byTopic: map[string]*ros.Subscription{"/robot1/docked": sub, "/robot1/odom": odomSub},
				warn:    func(time.Time) { warned.Store(true) },
			}}
			defer ls.sensors.close()
			defer goals.Close()

			// The robot is not docked, and the tree has heard so.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, simConn.WaitSubscribers(ctx, "/robot1/docked", 1))
			require.Eventually(t, func() bool {
				docked.Publish(&std_msgs.Bool{Data: false})
				msg, _, n := sub.Newest()
				return n > 0 && !msg.(*std_msgs.Bool).Data
			}, 10*time.Second, 20*time.Millisecond, "the tree hears docked")
			odomStamp := func() time.Time {
				msg, _, n := odomSub.Newest()
				if n == 0 {
					return time.Time{}
				}
				return msg.(*nav_msgs.Odometry).Header.Stamp
			}
			require.NoError(t, simConn.WaitSubscribers(ctx, "/robot1/odom", 1))
			require.Eventually(t, func() bool {
				odom.Publish(&nav_msgs.Odometry{Header: std_msgs.Header{Stamp: time.Unix(4, 900_000_000)}})
				return odomStamp().Equal(time.Unix(4, 900_000_000))
			}, 10*time.Second, 20*time.Millisecond, "the tree hears odom of 4.9 s")
			// The simulator holds at now, having said what it said.
			now := time.Unix(5, 0)
			ended.Publish(&std_msgs.Header{Stamp: now, FrameId: tc.said})
			require.Eventually(t, func() bool {
				msg, _, n := goals.Newest()
				return n > 0 && msg.(*std_msgs.Header).Stamp.Equal(now)
			}, 10*time.Second, 5*time.Millisecond, "the tree hears goals_ended")

			var returned atomic.Bool
			var release func()
			if tc.hold {
				release = lockstepOf(c).hold() // as a terminal state does (ActionLeaf)
			}
			// The events come late, on purpose.
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(delay)
				if tc.odom {
					odom.Publish(&nav_msgs.Odometry{Header: std_msgs.Header{Stamp: now}})
				}
				if strings.Contains(tc.said, "docked=true") {
					docked.Publish(&std_msgs.Bool{Data: true})
				}
				if release != nil {
					returned.Store(true)
					release()
				}
			}()
			ls.waitGoals(now)
			if strings.Contains(tc.said, "docked=true") {
				msg, _, _ := sub.Newest()
				assert.True(t, msg.(*std_msgs.Bool).Data, "the tick latched before the docked change came")
			}
			if tc.odom {
				assert.True(t, now.Equal(odomStamp()), "the tick latched before the odometry the simulator sent came (newest %v)", odomStamp())
			}
			if tc.hold {
				assert.True(t, returned.Load(), "the tick latched before the ended goal's work returned")
			}
			<-done
			assert.False(t, warned.Load(), "the latch gave up")
		})
	}
}

// TestSettled: the sensor topics whose messages a tick in lockstep takes
// from what the simulator says rather than from their schedule — those it
// gives a stamp for, and those a fault freezes or delays.
func TestSettled(t *testing.T) {
	for _, tc := range []struct {
		said string
		want []string
	}{
		{said: "", want: nil},
		{said: "/robot1/bumper=false /robot1/docked=true", want: nil},
		{said: "/robot1/odom@12340000000 /robot1/scan@0", want: []string{"/robot1/odom", "/robot1/scan"}},
		{said: "/robot1/bumper=delayed /robot1/bumper=true /robot1/docked=frozen", want: []string{"/robot1/bumper", "/robot1/docked"}},
		{said: "/robot1/odom=maybe odd", want: nil},
	} {
		t.Run(tc.said, func(t *testing.T) {
			got := settled(tc.said)
			var topics []string
			for topic := range got {
				topics = append(topics, topic)
			}
			slices.Sort(topics)
			assert.Equal(t, tc.want, topics)
		})
	}
}
