package simnode

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// The node's speed at Speed 0: one robot driving circles in the office
// corridor with a 360-beam laser at 10 Hz and 50 Hz physics, publishing
// everything (odom and tf at 20 Hz, scans, battery, bumper, /clock at every
// step) to a subscriber of every topic in the same process. Each iteration
// is one simulated second; the benchmarks report simulated seconds per wall
// second (sim-s/s), per CPU second of the whole process, subscriber and
// goroslib included (sim-s/cpu-s), and the messages the subscriber received
// per simulated second (msgs/sim-s; 61 are published).

// BenchmarkNode: the node runs flat out; listeners that are not lockstep
// peers do not hold it back, so the subscriber sees what its queues keep.
func BenchmarkNode(b *testing.B) { benchNode(b, 0) }

// BenchmarkNodeLockstep10Hz: a lockstep peer acknowledges every 100 ms of
// simulated time, as a tree ticking at 10 Hz does.
func BenchmarkNodeLockstep10Hz(b *testing.B) { benchNode(b, 100*time.Millisecond) }

func benchNode(b *testing.B, period time.Duration) {
	uri := rostest.StartMaster(b)
	until := time.Duration(b.N+1) * time.Second
	n, _ := startSim(b, uri, simSetup{
		robots: []sim.RobotConf{{Name: "robot1", Spawn: sim.Pose{X: -3, Y: -0.6}, CmdTimeout: -1}},
		conf:   Conf{Peers: 1, Until: until},
	})
	n.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		r.SetCmdVel(sim.Twist{Linear: 0.3, Angular: 0.5})
		return nil
	})
	c := connect(b, uri, "subscriber")
	var received atomic.Int64
	count := func(any) { received.Add(1) }
	for _, s := range []struct {
		topic string
		msg   any
	}{
		{"/robot1/odom", nav_msgs.Odometry{}}, {"/robot1/scan", sensor_msgs.LaserScan{}},
		{"/robot1/battery_state", sensor_msgs.BatteryState{}}, {"/robot1/bumper", std_msgs.Bool{}},
		{"/tf", tf2_msgs.TFMessage{}},
	} {
		_, err := ros.NewSubscriber(ros.SubscriberConf{Conn: c, Topic: s.topic, Msg: s.msg, Callback: count})
		require.NoError(b, err)
	}
	peer, err := bridge.NewLockstepPeer(c, "")
	require.NoError(b, err)
	// One simulated second to connect everything, then the measurement.
	require.NoError(b, peer.Ready(n.Stamp(time.Second)))
	eventually(b, 10*time.Second, "first second", func() bool { return n.Now() == time.Second })
	time.Sleep(200 * time.Millisecond)
	received.Store(0)
	b.ResetTimer()
	cpu0 := cpuTime()
	if period == 0 {
		require.NoError(b, peer.Ready(n.Stamp(until)))
	} else {
		clock := c.SimClock()
		for at := n.Stamp(time.Second); at.Before(n.Stamp(until)); at = at.Add(period) {
			ch, stop := clock.Timer(at)
			<-ch
			stop()
			require.NoError(b, peer.Ready(at.Add(period)))
		}
	}
	<-n.Done()
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
	if cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "sim-s/cpu-s")
	}
	time.Sleep(100 * time.Millisecond) // the last messages on their way
	b.ReportMetric(float64(received.Load())/float64(b.N), "msgs/sim-s")
	r := robotState(n, "robot1", (*sim.Robot).Collisions)
	require.Equal(b, 0, r, "%d collisions: the benchmark should measure free driving", r)
}
