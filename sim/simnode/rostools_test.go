package simnode

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// TestMoveBaseWithRospyClient: move_base's semantics as actionlib's
// SimpleActionClient in Python sees them, against both masters: a goal that
// succeeds, one that aborts because no path leads there, and one cancelled
// on the way, after which the robot stops.
func TestMoveBaseWithRospyClient(t *testing.T) {
	rostest.Require(t, "rospy", "actionlib", "move_base_msgs")
	for _, m := range rostest.Masters() {
		t.Run(m.Name, func(t *testing.T) {
			uri := m.Start(t)
			n, _ := startSim(t, uri, simSetup{conf: Conf{Speed: 10}})
			cases := []struct {
				name, mode string
				x, y, yaw  float64
				state      string
			}{
				{"reaches the goal", "wait", -5, 0, 0, "SUCCEEDED"},
				{"no path into a wall", "wait", 0, 1.2, 0, "ABORTED"},
				{"cancelled on the way", "cancel", 6.5, -3.5, 0, "PREEMPTED"},
			}
			// One client for the cases (a rospy and actionlib start costs
			// ~0.4 core-s), each sending its goal once the parameter says
			// so, after the previous case's checks.
			args := []string{"/robot1/move_base"}
			for _, tc := range cases {
				args = append(args, fmt.Sprintf("%s:%v:%v:%v", tc.mode, tc.x, tc.y, tc.yaw))
			}
			client := rostest.Python(t, uri, "testdata/move_base_client.py", args...)
			client.WaitLine(t, "ready", 30*time.Second)
			params := connect(t, uri, "move_base_test")
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					require.NoError(t, params.SetParam("/move_base_client/go", i))
					if tc.state != "ABORTED" {
						client.WaitLine(t, fmt.Sprintf("goal %d feedback map", i), 30*time.Second)
					}
					client.WaitLine(t, fmt.Sprintf("goal %d state %s", i, tc.state), 60*time.Second)
					switch tc.state {
					case "SUCCEEDED":
						p := robotState(n, "robot1", (*sim.Robot).Pose)
						assert.LessOrEqual(t, p.DistanceTo(sim.Pose{X: tc.x, Y: tc.y}), 0.1, "robot at %v after success, want within 0.1 m of (%v, %v)", p, tc.x, tc.y)
					case "PREEMPTED":
						// Measured on the simulator's odometer, not by when a
						// wall-clock poll sees the robot still (at ten times
						// real time, a poll delayed by a loaded machine
						// would read as seconds of driving).
						from := robotState(n, "robot1", (*sim.Robot).Travelled)
						require.Eventually(t, func() bool {
							return robotState(n, "robot1", (*sim.Robot).Twist) == sim.Twist{}
						}, 5*time.Second, 5*time.Millisecond, "robot stopped")
						// Braking from 0.5 m/s at 1 m/s² takes 0.125 m.
						d := robotState(n, "robot1", (*sim.Robot).Travelled) - from
						assert.LessOrEqual(t, d, 0.2, "the robot drove %.2f m after the client saw PREEMPTED; braking takes at most 0.125 m", d)
					}
				})
			}
		})
	}
}

// TestRostopicPubMovesTheRobot: a single robot served without namespace,
// driven by "rostopic pub /cmd_vel" and watched with "rostopic echo
// /odom", as a user would try it first: every message echoed shows the
// commanded twist, and the robot moving.
//
// The robot drives a circle 0.4 m across, clear of the office's walls
// for as long as the test may take: an arc of 3 m radius ran it into a
// wall after 7.6 s of simulated time (3.8 s of wall at speed 2), where its
// bumper stopped it, and a loaded machine that started rostopic echo
// later than that echoed a robot standing (runs 215, 216, 251, 271, 272).
func TestRostopicPubMovesTheRobot(t *testing.T) {
	rostest.Require(t, "rostopic")
	uri := rostest.StartMaster(t)
	// The robot keeps a command for a minute: rostopic pub, a python
	// process, may be held up on a loaded machine for longer than the
	// default half second.
	n, _ := startSim(t, uri, simSetup{robots: []sim.RobotConf{{Name: "robot1", CmdTimeout: time.Minute}},
		conf: Conf{Speed: 2, RootNamespace: true}})
	const v, w = 0.1, 0.5 // m/s, rad/s: a circle of 0.2 m radius
	rostest.Start(t, uri, "rostopic", "pub", "-r", "10", "/cmd_vel", "geometry_msgs/Twist",
		fmt.Sprintf("{linear: {x: %v}, angular: {z: %v}}", v, w))
	require.Eventually(t, func() bool {
		tw := robotState(n, "robot1", (*sim.Robot).Twist)
		return tw.Linear > v-0.005 && tw.Angular > w-0.005
	}, 20*time.Second, 5*time.Millisecond, "robot driving at %v m/s and %v rad/s", v, w)
	out := rostest.Run(t, uri, 20*time.Second, "rostopic", "echo", "-n", "20", "/odom")
	msgs := strings.Split(out, "\n---")
	num := func(msg, re string) float64 {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(msg)
		require.NotNil(t, m, "no %s in:\n%s", re, msg)
		f, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return f
	}
	require.GreaterOrEqual(t, len(msgs), 20, "rostopic echo -n 20 printed:\n%s", out)
	var x, y []float64
	for i, msg := range msgs[:20] {
		assert.Contains(t, msg, `frame_id: "odom"`, "odom not in frame odom:\n%s", msg)
		x = append(x, num(msg, `(?s)pose:\s+pose:\s+position:\s+x: (\S+)`))
		y = append(y, num(msg, `(?s)pose:\s+pose:\s+position:\s+x: \S+\s+y: (\S+)`))
		gotV := num(msg, `(?s)twist:\s+twist:\s+linear:\s+x: (\S+)`)
		gotW := num(msg, `(?s)angular:\s+x: \S+\s+y: \S+\s+z: (\S+)\s+covariance`)
		assert.InDelta(t, v, gotV, 0.01, "message %d: linear x, of the commanded (%v, %v):\n%s", i+1, v, w, msg)
		assert.InDelta(t, w, gotW, 0.01, "message %d: angular z, of the commanded (%v, %v):\n%s", i+1, v, w, msg)
	}
	// Twenty messages at 20 Hz span at least 0.95 s of simulated time:
	// 0.095 m of the circle, a chord of 0.094 m.
	moved := math.Hypot(x[19]-x[0], y[19]-y[0])
	assert.GreaterOrEqual(t, moved, 0.05, "the robot moved %.3f m from the first message echoed to the twentieth:\n%s", moved, out)
}

// TestFaultsWithRosTools: the fault interface as docs/simulator.md shows
// it, driven by rosservice and rostopic.
func TestFaultsWithRosTools(t *testing.T) {
	rostest.Require(t, "rosservice", "rostopic", "std_srvs")
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Speed: 5}})
	out := rostest.Run(t, uri, 20*time.Second, "rosservice", "call", "/sim/robot1/stall_left_wheel", "data: true")
	assert.Contains(t, out, "success: True", "rosservice call stall_left_wheel:\n%s", out)
	assert.Contains(t, out, `message: "robot1: left wheel stalled"`, "rosservice call stall_left_wheel:\n%s", out)
	assert.True(t, robotState(n, "robot1", func(r *sim.Robot) bool { return r.WheelStalled(sim.LeftWheel) }), "the left wheel is not stalled")
	rostest.Run(t, uri, 20*time.Second, "rostopic", "pub", "-1", "/sim/robot1/battery_level", "std_msgs/Float32", "data: 0.15")
	log.wait(t, "robot1: battery at 15%", 5*time.Second)
	rostest.Run(t, uri, 20*time.Second, "rostopic", "pub", "-1", "/sim/place_obstacle", "geometry_msgs/PolygonStamped",
		"{header: {frame_id: pallet}, polygon: {points: [{x: -4.5, y: -1.2}, {x: -4.0, y: 1.2}]}}")
	log.wait(t, "obstacle pallet placed at [-4.50, -1.20]-[-4.00, 1.20]", 5*time.Second)
	out = rostest.Run(t, uri, 20*time.Second, "rosservice", "call", "/sim/render")
	assert.Contains(t, out, "success: False", "rosservice call /sim/render without files:\n%s", out)
	assert.Contains(t, out, "render: no file to write", "rosservice call /sim/render without files:\n%s", out)
}
