package simnode

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// setBool calls a std_srvs/SetBool service and returns its answer.
func setBool(t testing.TB, c *ros.Conn, name string, on bool) *std_srvs.SetBoolRes {
	t.Helper()
	sc, err := ros.NewServiceClient(ros.ServiceClientConf{Conn: c, Name: name, Srv: std_srvs.SetBool{}})
	require.NoError(t, err)
	res, err := sc.Call(ctxTimeout(t, 10*time.Second), &std_srvs.SetBoolReq{Data: on})
	require.NoError(t, err)
	return res.(*std_srvs.SetBoolRes)
}

// publisher advertises topic and waits for the simulator to subscribe.
func publisher(t testing.TB, c *ros.Conn, topic string, msg any) *ros.Publisher {
	t.Helper()
	p, err := ros.NewPublisher(ros.PublisherConf{Conn: c, Topic: topic, Msg: msg})
	require.NoError(t, err)
	require.NoError(t, c.WaitSubscribers(ctxTimeout(t, 10*time.Second), topic, 1))
	return p
}

// counter counts the messages on a topic.
// counter counts the messages a subscriber got, and keeps their stamps
// (zero for a message without one).
type counter struct {
	mu     sync.Mutex
	n      int
	stamps []time.Time
}

func (k *counter) add(stamp time.Time) {
	k.mu.Lock()
	k.n++
	k.stamps = append(k.stamps, stamp)
	k.mu.Unlock()
}
func (k *counter) get() int { k.mu.Lock(); defer k.mu.Unlock(); return k.n }

// stampedAfter counts the messages stamped after t.
func (k *counter) stampedAfter(t time.Time) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, s := range k.stamps {
		if s.After(t) {
			n++
		}
	}
	return n
}

// TestStopMoveBaseOverROS: stopping move_base aborts its goal, stops the
// robot and takes the server off the graph; restarting brings it back.
func TestStopMoveBaseOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Speed: 4}})
	c := connect(t, uri, "client")
	ac := actionClient(t, c, "/robot1/move_base")
	accepted := make(chan struct{})
	result := make(chan ros.GoalOutcome, 1)
	go func() {
		out, err := ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", 6.5, -3.5, 0), ros.GoalConf{AckTimeout: 10 * time.Second, OnAccepted: func() { close(accepted) }})
		assert.NoError(t, err)
		result <- out
	}()
	<-accepted
	eventually(t, 10*time.Second, "robot moving", func() bool { return robotState(n, "robot1", (*sim.Robot).Twist).Linear > 0.2 })
	res := setBool(t, c, "/sim/robot1/stop_move_base", true)
	require.True(t, res.Success, "stop_move_base: %+v", res)
	require.Equal(t, "robot1: stopping move_base", res.Message, "stop_move_base: %+v", res)
	assert.Equal(t, ros.GoalAborted, (<-result).State, "how the running goal ended")
	log.wait(t, "robot1: move_base goal aborted: move_base stopped", 5*time.Second)
	log.wait(t, "robot1: move_base stopped", 5*time.Second)
	eventually(t, 5*time.Second, "robot stopped", func() bool { return robotState(n, "robot1", (*sim.Robot).Twist) == sim.Twist{} })

	// A newcomer finds no server.
	c2 := connect(t, uri, "newcomer")
	ac2, err := ros.NewActionClient(ros.ActionClientConf{Conn: c2, Name: "/robot1/move_base", Action: ros.MoveBaseAction{}})
	require.NoError(t, err)
	err = ac2.WaitForServer(ctxTimeout(t, 10*time.Second), runtime.WallClock{}, time.Second)
	require.ErrorIs(t, err, ros.ErrServerUnreachable, "WaitForServer with move_base stopped: %v", err)
	res = setBool(t, c, "/sim/robot1/stop_move_base", false)
	require.True(t, res.Success, "restart: %+v", res)
	log.wait(t, "robot1: move_base restarted", 5*time.Second)
	require.NoError(t, ac2.WaitForServer(ctxTimeout(t, 10*time.Second), runtime.WallClock{}, 5*time.Second), "WaitForServer after the restart")
	out, err := ac2.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{})
	require.NoError(t, err, "goal after the restart: %v", out.State)
	require.Equal(t, ros.GoalSucceeded, out.State, "goal after the restart: %v %v", out.State, err)
}

// TestStallWheelOverROS: with a wheel stalled, a straight command turns the
// robot about that wheel; freed, it drives straight again.
func TestStallWheelOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{conf: Conf{Speed: 4}})
	c := connect(t, uri, "client")
	cmd := publisher(t, c, "/robot1/cmd_vel", &geometry_msgs.Twist{})
	drive := func() sim.Twist {
		t.Helper()
		for range 15 {
			cmd.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.2}})
			time.Sleep(25 * time.Millisecond) // 0.1 s simulated
		}
		return robotState(n, "robot1", (*sim.Robot).Twist)
	}
	for _, tc := range []struct {
		service string
		on      bool
		turn    float64 // sign of the turn rate, 0 for none
		msg     string
	}{
		{"stall_left_wheel", true, 1, "robot1: left wheel stalled"},
		{"stall_left_wheel", false, 0, "robot1: left wheel free"},
		{"stall_right_wheel", true, -1, "robot1: right wheel stalled"},
		{"stall_right_wheel", false, 0, "robot1: right wheel free"},
	} {
		res := setBool(t, c, "/sim/robot1/"+tc.service, tc.on)
		require.True(t, res.Success, "%s %v: %+v", tc.service, tc.on, res)
		require.Equal(t, tc.msg, res.Message, "%s %v: %+v", tc.service, tc.on, res)
		tw := drive()
		switch {
		case tc.turn == 0 && (math.Abs(tw.Angular) > 1e-9 || tw.Linear < 0.19):
			assert.Fail(t, fmt.Sprintf("after %s: twist %+v, want straight at 0.2 m/s", tc.msg, tw))
		case tc.turn != 0 && !(tw.Angular*tc.turn > 0.3):
			assert.Fail(t, fmt.Sprintf("after %s: twist %+v, want a turn toward the stalled wheel", tc.msg, tw))
		}
	}
}

// TestFreezeTopicsOverROS: a frozen topic falls silent while the others
// flow, and flows again when thawed; frozen cmd_vel drops commands.
func TestFreezeTopicsOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	// At 20 times real time the messages in flight when a topic freezes
	// arrive within a few milliseconds.
	n, _ := startSim(t, uri, simSetup{conf: Conf{Speed: 20}})
	c := connect(t, uri, "client")
	counts := map[string]*counter{}
	watch := func(topic string, sub func(string, *counter) error) {
		k := &counter{}
		counts[topic] = k
		require.NoError(t, sub(topic, k))
	}
	watch("odom", func(topic string, k *counter) error {
		_, err := ros.Subscribe(c, "/robot1/odom", func(m *nav_msgs.Odometry) { k.add(m.Header.Stamp) })
		return err
	})
	watch("scan", func(topic string, k *counter) error {
		_, err := ros.Subscribe(c, "/robot1/scan", func(m *sensor_msgs.LaserScan) { k.add(m.Header.Stamp) })
		return err
	})
	watch("battery_state", func(topic string, k *counter) error {
		_, err := ros.Subscribe(c, "/robot1/battery_state", func(m *sensor_msgs.BatteryState) { k.add(m.Header.Stamp) })
		return err
	})
	watch("bumper", func(topic string, k *counter) error {
		_, err := ros.Subscribe(c, "/robot1/bumper", func(*std_msgs.Bool) { k.add(time.Time{}) })
		return err
	})
	watch("tf", func(topic string, k *counter) error {
		_, err := ros.Subscribe(c, "/tf", func(m *tf2_msgs.TFMessage) {
			var stamp time.Time
			for _, tr := range m.Transforms {
				if tr.Header.Stamp.After(stamp) {
					stamp = tr.Header.Stamp
				}
			}
			k.add(stamp)
		})
		return err
	})
	for topic, k := range counts {
		eventually(t, 10*time.Second, topic+" flowing", func() bool { return k.get() > 2 })
	}
	// settle lets at least 4 simulated seconds pass, which every topic
	// fills with messages unless frozen.
	settle := func() {
		start := n.Now()
		eventually(t, 20*time.Second, "time passing", func() bool { return n.Now() > start+4*time.Second })
	}
	global := map[string]string{"odom": "/robot1/odom", "scan": "/robot1/scan",
		"battery_state": "/robot1/battery_state", "bumper": "/robot1/bumper", "tf": "/tf"}
	for _, topic := range []string{"odom", "scan", "battery_state", "bumper", "tf"} {
		t.Run(topic, func(t *testing.T) {
			res := setBool(t, c, "/sim/robot1/freeze/"+topic, true)
			require.True(t, res.Success, "freeze: %+v", res)
			require.Equal(t, "robot1: "+topic+" frozen", res.Message, "freeze: %+v", res)
			// Messages sent before the freeze may still be on their way (a
			// loaded machine delivers them late): what counts is what the
			// simulator sent after it — none, on its own count, once the
			// step under way at the freeze was sent (the next one begun) —
			// and, on the stamped topics, no message stamped after it.
			frozenAt := n.Stamp(n.Now())
			steps := n.Stats().Steps
			eventually(t, 10*time.Second, "the step under way at the freeze sent", func() bool { return n.Stats().Steps >= steps+2 })
			sent := n.Stats().Sent[global[topic]]
			before := map[string]int{}
			for name, k := range counts {
				before[name] = k.get()
			}
			settle()
			assert.Equal(t, sent, n.Stats().Sent[global[topic]], "%s: the simulator sent messages while it was frozen", topic)
			assert.Zero(t, counts[topic].stampedAfter(frozenAt), "%s: messages stamped after the freeze", topic)
			for name, k := range counts {
				if name != topic {
					eventually(t, 10*time.Second, name+" flowing while only "+topic+" is frozen", func() bool { return k.get() > before[name] })
				}
			}
			res = setBool(t, c, "/sim/robot1/freeze/"+topic, false)
			require.True(t, res.Success, "thaw: %+v", res)
			require.Equal(t, "robot1: "+topic+" flowing", res.Message, "thaw: %+v", res)
			was := counts[topic].get()
			eventually(t, 10*time.Second, topic+" flowing again", func() bool { return counts[topic].get() > was })
		})
	}
	t.Run("cmd_vel", func(t *testing.T) {
		cmd := publisher(t, c, "/robot1/cmd_vel", &geometry_msgs.Twist{})
		res := setBool(t, c, "/sim/robot1/freeze/cmd_vel", true)
		require.True(t, res.Success, "freeze: %+v", res)
		for range 20 {
			cmd.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.3}})
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		tr := robotState(n, "robot1", (*sim.Robot).Travelled)
		assert.Equal(t, 0.0, tr, "the robot drove %v m on commands sent while cmd_vel was frozen", tr)
		setBool(t, c, "/sim/robot1/freeze/cmd_vel", false)
		eventually(t, 10*time.Second, "the robot driving once cmd_vel flows", func() bool {
			cmd.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.3}})
			return robotState(n, "robot1", (*sim.Robot).Travelled) > 0.1
		})
	})
}

// TestDelayTopicsOverROS: a delayed topic's messages arrive that much later
// in simulated time, stamped when they were taken; a delayed cmd_vel acts
// that much later. The delay is set on a std_msgs/Float32 topic.
func TestDelayTopicsOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Peers: 1}})
	c := connect(t, uri, "client")
	peer, err := bridge.NewLockstepPeer(c, "")
	require.NoError(t, err)
	defer peer.Leave(ctxTimeout(t, 5*time.Second))
	// runTo lets the simulation run to t and waits until it is there.
	runTo := func(at time.Duration) {
		t.Helper()
		require.NoError(t, peer.Ready(n.Stamp(at)))
		eventually(t, 10*time.Second, "time at "+at.String(), func() bool { return n.Now() == at })
	}
	// newest is the stamp of the newest scan received, in simulated time.
	var mu sync.Mutex
	var newest time.Duration
	_, err = ros.Subscribe(c, "/robot1/scan", func(m *sensor_msgs.LaserScan) {
		mu.Lock()
		newest = max(newest, m.Header.Stamp.Sub(time.Unix(0, 0)))
		mu.Unlock()
	})
	require.NoError(t, err)
	// Scans are taken every 100 ms from the first step (20 ms): held back
	// by 0.5 s, the newest out at 3 s is the one taken at 2.42 s.
	newestIs := func(want time.Duration) {
		t.Helper()
		eventually(t, 5*time.Second, "scan of "+want.String(), func() bool { mu.Lock(); defer mu.Unlock(); return newest >= want })
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, want, newest, "newest scan taken at %v, want %v", newest, want)
	}
	delay := publisher(t, c, "/sim/robot1/delay/scan", &std_msgs.Float32{})
	delay.Publish(&std_msgs.Float32{Data: 0.5})
	log.wait(t, "robot1: scan delayed by 500ms", 5*time.Second)
	runTo(3 * time.Second)
	newestIs(2420 * time.Millisecond)
	delay.Publish(&std_msgs.Float32{Data: -1})
	log.wait(t, "error: robot1: delay of scan: -1 s; want seconds in [0, 3600]", 5*time.Second)
	delay.Publish(&std_msgs.Float32{Data: 0})
	log.wait(t, "robot1: scan delayed by 0s", 5*time.Second)
	runTo(3500 * time.Millisecond)
	newestIs(3420 * time.Millisecond)

	// cmd_vel held back by 1 s: a command sent at 3.5 s acts at 4.5 s.
	cmdDelay := publisher(t, c, "/sim/robot1/delay/cmd_vel", &std_msgs.Float32{})
	cmdDelay.Publish(&std_msgs.Float32{Data: 1})
	log.wait(t, "robot1: cmd_vel delayed by 1s", 5*time.Second)
	cmd := publisher(t, c, "/robot1/cmd_vel", &geometry_msgs.Twist{})
	cmd.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.3}})
	peer.CountSent(1)
	runTo(4500 * time.Millisecond)
	tr := robotState(n, "robot1", (*sim.Robot).Travelled)
	assert.Equal(t, 0.0, tr, "the robot moved %v m before its delayed command was due", tr)
	runTo(4700 * time.Millisecond)
	tr = robotState(n, "robot1", (*sim.Robot).Travelled)
	assert.NotEqual(t, 0.0, tr, "the robot has not moved 200 ms after its delayed command was due")
}

// TestBatteryLevelOverROS: a std_msgs/Float32 sets the charge, which
// battery_state then reports; a level out of range is refused.
func TestBatteryLevelOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	_, log := startSim(t, uri, simSetup{conf: Conf{Speed: 10}})
	c := connect(t, uri, "client")
	battery, err := ros.Subscribe[sensor_msgs.BatteryState](c, "/robot1/battery_state", nil)
	require.NoError(t, err)
	level := publisher(t, c, "/sim/robot1/battery_level", &std_msgs.Float32{})
	for _, tc := range []struct {
		level float32
		event string
	}{
		{0.2, "robot1: battery at 20%"},
		{1.5, "error: battery level 1.5 for robot robot1: want a fraction in [0, 1]"},
		{0.05, "robot1: battery at 5%"},
	} {
		level.Publish(&std_msgs.Float32{Data: tc.level})
		log.wait(t, tc.event, 5*time.Second)
	}
	eventually(t, 10*time.Second, "battery_state at 5%", func() bool {
		m, _, _ := battery.Newest()
		return m != nil && math.Abs(float64(m.(*sensor_msgs.BatteryState).Percentage)-0.05) < 0.005
	})
}

// TestObstaclesOverROS: a box placed across the corridor leaves move_base
// no path; removed, the goal is reached. Bad boxes are refused.
func TestObstaclesOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{})
	c := connect(t, uri, "client")
	ac := actionClient(t, c, "/robot1/move_base")
	place := publisher(t, c, "/sim/place_obstacle", &geometry_msgs.PolygonStamped{})
	remove := publisher(t, c, "/sim/remove_obstacle", &std_msgs.String{})
	box := func(name string, x0, y0, x1, y1 float32) *geometry_msgs.PolygonStamped {
		return &geometry_msgs.PolygonStamped{
			Header:  std_msgs.Header{FrameId: name},
			Polygon: geometry_msgs.Polygon{Points: []geometry_msgs.Point32{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}},
		}
	}
	place.Publish(box("pallet", -4.5, -1.2, -4, 1.2))
	log.wait(t, "obstacle pallet placed at [-4.50, -1.20]-[-4.00, 1.20]", 5*time.Second)
	kitchen := moveBaseGoal("map", 2.5, 3.5, 0)
	out, err := ac.Run(ctxTimeout(t, 60*time.Second), kitchen, ros.GoalConf{})
	require.NoError(t, err, "goal past the blocked corridor: %v %v, want ABORTED", out.State, err)
	require.Equal(t, ros.GoalAborted, out.State, "goal past the blocked corridor: %v %v, want ABORTED", out.State, err)
	log.wait(t, "robot1: move_base goal aborted: no path", 5*time.Second)
	for _, tc := range []struct {
		msg   any
		event string
	}{
		{&geometry_msgs.PolygonStamped{Header: std_msgs.Header{FrameId: "nothing"}}, `error: place obstacle "nothing": the polygon has no points`},
		{box("pallet", 0, 0, 1, 1), `error: place obstacle "pallet": already placed at [-4.50, -1.20]-[-4.00, 1.20]`},
		{box("on_robot", -9, -0.5, -8, 0.5), `error: place obstacle "on_robot": [-9.00, -0.50]-[-8.00, 0.50] would overlap robot robot1`},
		{&std_msgs.String{Data: "crate"}, `error: remove obstacle "crate": no such obstacle (placed: pallet)`},
	} {
		if _, ok := tc.msg.(*std_msgs.String); ok {
			remove.Publish(tc.msg)
		} else {
			place.Publish(tc.msg)
		}
		log.wait(t, tc.event, 5*time.Second)
	}
	remove.Publish(&std_msgs.String{Data: "pallet"})
	log.wait(t, "obstacle pallet removed", 5*time.Second)
	n.Do(func(w *sim.World) error {
		obs := w.Obstacles()
		assert.Empty(t, obs, "obstacles left: %v", obs)
		return nil
	})
	out, err = ac.Run(ctxTimeout(t, 60*time.Second), kitchen, ros.GoalConf{})
	require.NoError(t, err, "goal with the corridor clear: %v %v, want SUCCEEDED", out.State, err)
	require.Equal(t, ros.GoalSucceeded, out.State, "goal with the corridor clear: %v %v, want SUCCEEDED", out.State, err)
}
