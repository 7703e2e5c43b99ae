package simnode

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// dockGoal names the dock in target_pose.header.frame_id ("" for the
// nearest).
func dockGoal(name string) *ros.MoveBaseActionGoal {
	g := &ros.MoveBaseActionGoal{}
	g.TargetPose.Header.FrameId = name
	return g
}

// TestDockingOverROS: the dock and undock action servers, step by step
// from the corridor: dock, dock again, undock, undock again, and the goals
// they refuse.
func TestDockingOverROS(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{})
	c := connect(t, uri, "client")
	dock := actionClient(t, c, "/robot1/dock")
	undock := actionClient(t, c, "/robot1/undock")
	docked, err := ros.Subscribe[std_msgs.Bool](c, "/robot1/docked", nil)
	require.NoError(t, err)
	// Every status the battery reports, not only the newest: charging can
	// last less than a poll of a loaded machine.
	var sawCharging atomic.Bool
	battery, err := ros.Subscribe(c, "/robot1/battery_state", func(m *sensor_msgs.BatteryState) {
		if m.PowerSupplyStatus == uint8(sim.StatusCharging) {
			sawCharging.Store(true)
		}
	})
	require.NoError(t, err)
	// Half full, so that docking shows as charging rather than full.
	n.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		return r.SetBatteryLevel(0.5)
	})
	isDocked := func(want bool) {
		t.Helper()
		require.Eventually(t, func() bool {
			m, _, _ := docked.Newest()
			return m != nil && m.(*std_msgs.Bool).Data == want
		}, 10*time.Second, 5*time.Millisecond, "docked topic")
	}
	for _, tc := range []struct {
		name   string
		client *ros.ActionClient
		goal   string
		want   ros.GoalState
		event  string
		docked bool
		// the goals that succeeded so far, counted by the simulator
		docks, undocks int
	}{
		{"dock at a named dock", dock, "dock_west", ros.GoalSucceeded, "robot1: dock goal succeeded", true, 1, 0},
		{"dock where docked", dock, "dock_west", ros.GoalSucceeded, "robot1: dock goal succeeded", true, 2, 0},
		{"dock elsewhere while docked", dock, "dock_lab", ros.GoalAborted,
			`robot1: dock goal aborted: dock "dock_lab": robot robot1 is docked at "dock_west"; undock first`, true, 2, 0},
		{"undock", undock, "", ros.GoalSucceeded, "robot1: undock goal succeeded", false, 2, 1},
		{"undock when undocked", undock, "", ros.GoalAborted, "robot1: undock goal aborted: undock: robot robot1 is not docked (it is undocked)", false, 2, 1},
		{"no such dock", dock, "dock_nowhere", ros.GoalAborted,
			`robot1: dock goal aborted: dock "dock_nowhere": no such dock (target_pose.header.frame_id names the dock; the world has dock_west, dock_lab)`, false, 2, 1},
		{"dock at the nearest dock", dock, "", ros.GoalSucceeded, "robot1: dock goal succeeded", true, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.client.Run(ctxTimeout(t, 60*time.Second), dockGoal(tc.goal), ros.GoalConf{})
			require.NoError(t, err)
			require.Equal(t, tc.want, out.State, "goal ended %v, want %v", out.State, tc.want)
			log.wait(t, tc.event, 5*time.Second)
			log.clear()
			isDocked(tc.docked)
			state := robotState(n, "robot1", func(r *sim.Robot) sim.DockState { s, _ := r.DockState(); return s })
			assert.Equal(t, tc.docked, state == sim.Docked, "dock state %v", state)
			succeeded := n.Stats().Succeeded
			assert.Equal(t, tc.docks, succeeded[GoalKey{"robot1", "dock"}], "dock goals succeeded")
			assert.Equal(t, tc.undocks, succeeded[GoalKey{"robot1", "undock"}], "undock goals succeeded")
		})
	}
	// Half full again: the simulator runs ahead of the wall clock, and on a
	// loaded machine the steps above left the robot on a dock long enough
	// to charge it full (50 % at 0.5 %/s is 100 s simulated), so that this
	// dock showed full at once and never charging.
	sawCharging.Store(false)
	n.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		return r.SetBatteryLevel(0.5)
	})
	require.Eventually(t, sawCharging.Load, 10*time.Second, 5*time.Millisecond, "charging on the dock")
	require.Eventually(t, func() bool {
		m, _, _ := battery.Newest()
		return m != nil && m.(*sensor_msgs.BatteryState).PowerSupplyStatus == uint8(sim.StatusFull)
	}, 20*time.Second, 5*time.Millisecond, "charged on the dock")
	p := robotState(n, "robot1", (*sim.Robot).Collisions)
	assert.Equal(t, 0, p, "%d collisions while docking", p)
}

// TestDockingPreempted: cancelling a dock goal stops the robot; a
// move_base goal takes the base from a running dock goal, which aborts.
func TestDockingPreempted(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Speed: 4}})
	c := connect(t, uri, "client")
	dock := actionClient(t, c, "/robot1/dock")
	moveBase := actionClient(t, c, "/robot1/move_base")
	result := make(chan ros.GoalOutcome, 1)
	go func() {
		out, err := dock.Run(ctxTimeout(t, 60*time.Second), dockGoal("dock_lab"), ros.GoalConf{})
		assert.NoError(t, err)
		result <- out
	}()
	require.Eventually(t, func() bool { return robotState(n, "robot1", (*sim.Robot).Twist).Linear > 0.3 }, 20*time.Second, 5*time.Millisecond, "robot on its way")
	out, err := moveBase.Run(ctxTimeout(t, 60*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{})
	require.NoError(t, err, "move_base goal: %v %v", out.State, err)
	require.Equal(t, ros.GoalSucceeded, out.State, "move_base goal: %v %v", out.State, err)
	out = <-result
	assert.Equal(t, ros.GoalAborted, out.State, "dock goal ended %v, want ABORTED", out.State)
	log.wait(t, "robot1: dock goal aborted: preempted by a move_base goal", 5*time.Second)
}
