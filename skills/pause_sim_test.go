package skills

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// A pause holds the robot on a real robot (issue 24): the simulator runs
// at real speed, not in lockstep (as `btrobot sim --speed 1`), so that
// nothing but the controller can stop the robot; the tree runs in bridge.Run
// as `btrobot run` runs it, held by the runtime's pause control
// (runtime.Breakpoints, which the studio and the Groot2 server use).

// startRealtimeWorld starts a master and the simulator on the office world
// at real speed, free-running (no lockstep peer), robot1 at its spawn.
func startRealtimeWorld(t *testing.T, before func(w *sim.World)) *world {
	t.Helper()
	uri := rostest.StartMaster(t)
	w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	sp, ok := w.Places().Spawn("robot1")
	require.True(t, ok)
	_, err = w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
	require.NoError(t, err)
	if before != nil {
		before(w)
	}
	wd := &world{t: t, uri: uri, places: w.Places()}
	n, err := simnode.Start(simnode.Conf{World: w, Conn: connectAs(t, uri, "/", "sim"), Speed: 1, OnEvent: wd.events.Add})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	wd.node = n
	return wd
}

// odomSample is one odometry message as a watcher received it.
type odomSample struct {
	stamp, recv time.Time
	x, y, speed float64
}

// odomTrail records the robot's odometry from a node of its own.
type odomTrail struct {
	mu      sync.Mutex
	samples []odomSample
}

func watchOdom(t *testing.T, uri, ns string) *odomTrail {
	t.Helper()
	o := &odomTrail{}
	conn := connectAs(t, uri, ns, "odom_watch")
	_, err := ros.Subscribe(conn, "odom", func(m *nav_msgs.Odometry) {
		s := odomSample{stamp: m.Header.Stamp, recv: time.Now(), x: m.Pose.Pose.Position.X, y: m.Pose.Pose.Position.Y,
			speed: math.Hypot(m.Twist.Twist.Linear.X, m.Twist.Twist.Linear.Y)}
		o.mu.Lock()
		o.samples = append(o.samples, s)
		o.mu.Unlock()
	})
	require.NoError(t, err)
	return o
}

// lastCmd records the newest command on cmd_vel.
type lastCmd struct {
	mu   sync.Mutex
	last *geometry_msgs.Twist
}

func watchCmdVel(t *testing.T, uri, ns string) *lastCmd {
	t.Helper()
	c := &lastCmd{}
	_, err := ros.Subscribe(connectAs(t, uri, ns, "cmd_watch"), "cmd_vel", func(m *geometry_msgs.Twist) {
		c.mu.Lock()
		c.last = m
		c.mu.Unlock()
	})
	require.NoError(t, err)
	return c
}

func (c *lastCmd) get() *geometry_msgs.Twist {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// find returns the first sample that ok accepts.
func (o *odomTrail) find(ok func(odomSample) bool) (odomSample, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.samples {
		if ok(s) {
			return s, true
		}
	}
	return odomSample{}, false
}

// farthest returns how far the robot got from p between two stamps.
func (o *odomTrail) farthest(p odomSample, from, to time.Time) float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := 0.0
	for _, s := range o.samples {
		if !s.stamp.Before(from) && !s.stamp.After(to) {
			d = max(d, math.Hypot(s.x-p.x, s.y-p.y))
		}
	}
	return d
}

// pauseHold is the longest distance (m) the robot may move during a pause
// once the cancel was acknowledged: braking from its speed, not driving on.
const pauseHold = 0.15

// TestPauseHoldsARobotThatMoveBaseDrives: pausing a tree whose NavigateTo
// runs cancels the move_base goal; once move_base has acknowledged the
// cancel the robot stands still for the 5 s of the pause (on its
// odometry's clock) while the leaf stays RUNNING; when the tree goes on,
// the same goal is sent again and the robot reaches the place.
func TestPauseHoldsARobotThatMoveBaseDrives(t *testing.T) {
	rostest.Require(t, "python3", "rospy", "actionlib", "move_base_msgs")
	cases := []struct {
		name string
		// rospy: the simulator's move_base is down and a rospy one, of
		// its own process, drives the base through cmd_vel.
		rospy bool
		xml   string
		// target is where the robot must end, in the map.
		target sim.Pose
	}{
		{name: "the simulator's move_base", xml: `<NavigateTo goal="-5.6;0;0"/>`, target: sim.Pose{X: -5.6}},
		{name: "a rospy move_base publishing cmd_vel", rospy: true,
			xml: `<NavigateTo goal="3;0;0" frame="odom"/>`, target: sim.Pose{X: -5.6}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := startRealtimeWorld(t, func(sw *sim.World) {
				if tc.rospy {
					r, _ := sw.Robot("robot1")
					r.SetNavigationDown(true)
				}
			})
			var server *rostest.Process
			if tc.rospy {
				server = rostest.Python(t, w.uri, "testdata/move_base_drives.py", "__ns:=/robot1")
				server.WaitLine(t, "ready", 30*time.Second)
			}
			odom := watchOdom(t, w.uri, "/robot1")
			cmds := watchCmdVel(t, w.uri, "/robot1")

			conn := w.connect(t, "/robot1", "btrobot")
			profile := simProfile(t)
			if tc.rospy {
				// No watchdog to send a zero velocity during the pause:
				// the one after the acknowledged cancel must do.
				profile.Safety.Watchdog = 0
			}
			deps := Deps{Conn: conn, Profile: profile, Places: w.places}
			w.node.Do(func(sw *sim.World) error {
				rb, _ := sw.Robot("robot1")
				deps.OdomOrigin = Pose(rb.OdomOrigin())
				return nil
			})
			tree := buildTree(t, palette(t, deps), tc.xml, runtime.BuildConf{Clock: conn.Clock()})
			nav := runtime.NodeOf(tree.Root())
			bp := runtime.NewBreakpoints(runtime.BreakpointsConf{})
			defer tree.Hook(bp)()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			type ended struct {
				rep bridge.RunReport
				err error
			}
			done := make(chan ended, 1)
			go func() {
				rep, err := bridge.Run(ctx, bridge.RunConf{Conn: conn, Tree: tree, Profile: profile, UntilDone: true, Paused: bp.Paused})
				done <- ended{rep, err}
			}()
			defer func() { bp.Close(); cancel(); <-done }()

			require.Eventually(t, func() bool {
				_, ok := odom.find(func(s odomSample) bool { return s.speed > 0.15 })
				return ok
			}, 60*time.Second, 5*time.Millisecond, "the robot drives")

			bp.Pause()
			require.Eventually(t, bp.Paused, 10*time.Second, 5*time.Millisecond, "the tree is held")
			require.Eventually(t, func() bool {
				on, n, settled := tree.Suspended()
				return on && n == 1 && settled
			}, 10*time.Second, 5*time.Millisecond, "move_base acknowledged the cancel")
			// Where the simulator stands once the cancel is acknowledged: an
			// odometry message received after that may have been sent
			// before it, late on a loaded machine (seen: 0.2 m of driving
			// before the cancel counted as motion during the pause).
			var settled time.Duration
			require.NoError(t, w.node.Do(func(sw *sim.World) error { settled = sw.Now(); return nil }))
			settledStamp := w.node.Stamp(settled)
			var p0, p1 odomSample // written by the conditions, read once Eventually has seen them true
			require.Eventually(t, func() bool {
				var ok bool
				p0, ok = odom.find(func(s odomSample) bool { return !s.stamp.Before(settledStamp) })
				return ok
			}, 10*time.Second, 5*time.Millisecond, "odometry after the cancel")
			// The pause lasts 5 s of the odometry's own clock.
			require.Eventually(t, func() bool {
				var ok bool
				p1, ok = odom.find(func(s odomSample) bool { return s.stamp.Sub(p0.stamp) >= 5*time.Second })
				return ok
			}, 60*time.Second, 5*time.Millisecond, "5 s of odometry into the pause")
			moved := odom.farthest(p0, p0.stamp, p1.stamp)
			t.Logf("paused: moved %.3f m in %v of odometry after the cancel was acknowledged (speed %.2f -> %.2f m/s)",
				moved, p1.stamp.Sub(p0.stamp), p0.speed, p1.speed)
			assert.Less(t, moved, pauseHold, "the robot moved during the pause")
			assert.Less(t, p1.speed, 0.02, "the robot still drives at the end of the pause")
			assert.Equal(t, runtime.Running, nav.Status(), "NavigateTo stays RUNNING while paused")
			if last := cmds.get(); assert.NotNil(t, last) {
				assert.Equal(t, geometry_msgs.Twist{}, *last, "the last command of the pause is not a stop")
			}
			if tc.rospy {
				server.WaitLine(t, "goal 3.00 0.00 odom", 5*time.Second)
				server.WaitLine(t, "cancel", 5*time.Second)
				server.WaitLine(t, "done PREEMPTED", 5*time.Second)
				assert.Equal(t, 1, strings.Count(server.Stdout(), "goal "), "a goal left while paused:\n%s", server.Stdout())
			} else {
				assert.True(t, w.hasEvent("goal cancelled"), "the simulator's move_base was not cancelled: %v", w.eventList())
			}

			bp.Continue(false)
			if tc.rospy {
				server.WaitLine(t, "goal 3.00 0.00 odom", 10*time.Second) // the same goal, again
			}
			var e ended
			select {
			case e = <-done:
			case <-time.After(90 * time.Second):
				require.Fail(t, "the run did not end after the pause")
			}
			done <- e // for the deferred wait
			require.NoError(t, e.err)
			assert.Equal(t, runtime.Success, e.rep.Status, "the run ended so; the simulator said: %v; the leaf: %s", w.eventList(), runtime.NodeOf(tree.Root()).Reason())
			pose, _, _, _ := w.robot("robot1")
			assert.Less(t, math.Hypot(pose.X-tc.target.X, pose.Y-tc.target.Y), 0.4, "the robot is not at the place: %+v", pose)
			if tc.rospy {
				server.WaitLine(t, "done SUCCEEDED", 5*time.Second)
			}
		})
	}
}
