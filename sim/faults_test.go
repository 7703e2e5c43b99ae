package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

func TestSetBatteryLevel(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	require.NoError(t, r.SetBatteryLevel(0.15))
	got := r.Battery().Percentage
	assert.Equal(t, 0.15, got, "battery %v after dropping it to 0.15", got)
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		err := r.SetBatteryLevel(bad)
		want := "battery level " + fmtFloat(bad) + " for robot r: want a fraction in [0, 1]"
		assert.EqualError(t, err, want, "SetBatteryLevel(%v) = %v, want %s", bad, err, want)
	}
	got = r.Battery().Percentage
	assert.Equal(t, 0.15, got, "a rejected level changed the battery to %v", got)
}

func fmtFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v == -0.1:
		return "-0.1"
	}
	return "1.5"
}

func TestStalledWheelMakesTheRobotPivot(t *testing.T) {
	for _, tc := range []struct {
		wheel sim.Wheel
		turn  float64 // sign of the resulting turn when driving forward
	}{
		{sim.LeftWheel, 1}, // the right wheel drives on: a left turn about the left wheel
		{sim.RightWheel, -1},
	} {
		t.Run(tc.wheel.String(), func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			start := sim.Pose{X: 10, Y: 10, Yaw: 0.4}
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: start})
			require.NoError(t, r.StallWheel(tc.wheel, true))
			require.True(t, r.WheelStalled(tc.wheel), "WheelStalled = false after StallWheel")
			// The stalled wheel's contact point, half the wheel separation to
			// the robot's side, stays put while the other wheel drives.
			side := 0.15
			if tc.wheel == sim.RightWheel {
				side = -0.15
			}
			hub := start.Compose(sim.Pose{Y: side})
			for range 30 {
				hold(w, r, sim.Twist{Linear: 0.3}, 100*time.Millisecond)
				h := r.Pose().Compose(sim.Pose{Y: side})
				require.InDelta(t, hub.X, h.X, 1e-9, "stalled wheel moved from %v to %v", hub, h)
				require.InDelta(t, hub.Y, h.Y, 1e-9, "stalled wheel moved from %v to %v", hub, h)
			}
			turned := sim.NormalizeAngle(r.Pose().Yaw - start.Yaw)
			assert.Equal(t, tc.turn, math.Copysign(1, turned), "turned %v rad in 3 s, want a turn of sign %v", turned, tc.turn)
			assert.GreaterOrEqual(t, math.Abs(turned), 1.0, "turned %v rad in 3 s, want a turn of sign %v", turned, tc.turn)
			// The encoders see the stall: odometry still agrees with the truth.
			est := r.OdomOrigin().Compose(r.Odometry().Pose)
			assert.LessOrEqual(t, est.DistanceTo(r.Pose()), 1e-9, "odometry %v, truth %v", est, r.Pose())
			// Freed, the robot drives straight again.
			require.NoError(t, r.StallWheel(tc.wheel, false))
			hold(w, r, sim.Twist{Linear: 0.3}, time.Second)
			y0 := r.Pose().Yaw
			hold(w, r, sim.Twist{Linear: 0.3}, time.Second)
			assert.Equal(t, y0, r.Pose().Yaw, "freed robot still turning: yaw %v -> %v", y0, r.Pose().Yaw)
		})
	}
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	err := r.StallWheel(sim.Wheel(7), true)
	assert.EqualError(t, err, "stall wheel Wheel(7) on robot r: want LeftWheel or RightWheel", "StallWheel(7) = %v", err)
}

// corridorBlock spans the office corridor (y from -1 to 1) at x = -2.
var corridorBlock = sim.Rect{MinX: -2.3, MinY: -1.1, MaxX: -1.7, MaxY: 1.1}

func TestObstacleBlocksACorridor(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -6, Y: 0}})
	goal := sim.Pose{X: 2.5, Y: 3.5} // the kitchen, east of the block
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
	require.NoError(t, err)
	require.NoError(t, nav.SetGoal(goal))
	// Start driving, then block the corridor ahead of the robot.
	for range 20 {
		cmd, _ := nav.Update(w.Now(), r.Pose())
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	_, rev := w.Occupancy()
	require.Equal(t, uint64(0), rev, "revision %d before any obstacle", rev)
	require.NoError(t, w.PlaceObstacle("pallet", corridorBlock))
	_, rev = w.Occupancy()
	assert.Equal(t, uint64(1), rev, "revision %d after placing an obstacle, want 1", rev)
	cmd, st := nav.Update(w.Now(), r.Pose())
	require.Equal(t, sim.NavAborted, st.State, "after blocking the corridor: %v %v, cmd %+v; want aborted with no path", st.State, st.Err, cmd)
	require.ErrorIs(t, st.Err, sim.ErrNoPath, "after blocking the corridor: %v %v, cmd %+v; want aborted with no path", st.State, st.Err, cmd)
	require.Equal(t, (sim.Twist{}), cmd, "after blocking the corridor: %v %v, cmd %+v; want aborted with no path", st.State, st.Err, cmd)
	// The robot itself cannot pass either: it stops at the pallet.
	hold(w, r, sim.Twist{Linear: 0.5}, 20*time.Second)
	x := r.Pose().X
	if assert.LessOrEqual(t, x, corridorBlock.MinX-0.18, "robot at x=%v with %d collisions; want stopped before %v with 1", x, r.Collisions(), corridorBlock.MinX-0.18) {
		assert.Equal(t, 1, r.Collisions(), "robot at x=%v with %d collisions; want stopped before %v with 1", x, r.Collisions(), corridorBlock.MinX-0.18)
	}
	// Cleared, the way is open again.
	require.NoError(t, w.RemoveObstacle("pallet"))
	require.NoError(t, nav.SetGoal(goal))
	_, st = nav.Update(w.Now(), r.Pose())
	assert.Equal(t, sim.NavActive, st.State, "after removing the pallet: %v %v", st.State, st.Err)
}

func TestNavigatorReplansAroundAnObstacle(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -6, Y: 0}})
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
	require.NoError(t, err)
	goal := sim.Pose{X: 2, Y: 0}
	require.NoError(t, nav.SetGoal(goal))
	nav.Update(w.Now(), r.Pose())
	// Half the corridor blocked: the path must swerve to the north half.
	require.NoError(t, w.PlaceObstacle("cart", sim.Rect{MinX: -2.5, MinY: -1, MaxX: -1.5, MaxY: 0.1}))
	for range 600 {
		cmd, st := nav.Update(w.Now(), r.Pose())
		if st.State == sim.NavSucceeded {
			if assert.Equal(t, 1, st.Replans, "succeeded with %d replans and %d collisions; want 1 and 0", st.Replans, r.Collisions()) {
				assert.Equal(t, 0, r.Collisions(), "succeeded with %d replans and %d collisions; want 1 and 0", st.Replans, r.Collisions())
			}
			return
		}
		require.Equal(t, sim.NavActive, st.State, "%v: %v", st.State, st.Err)
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	require.Fail(t, "no result in 60 s")
}

func TestObstacleErrors(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	require.NoError(t, w.PlaceObstacle("box", sim.Rect{MinX: 2, MinY: 2, MaxX: 3, MaxY: 3}))
	for _, tc := range []struct {
		err  error
		want string
	}{
		{w.PlaceObstacle("box", sim.Rect{MinX: 5, MinY: 5, MaxX: 6, MaxY: 6}), `place obstacle "box": already placed at [2.00, 2.00]-[3.00, 3.00]`},
		{w.PlaceObstacle("", sim.Rect{MinX: 5, MinY: 5, MaxX: 6, MaxY: 6}), `place obstacle: missing name`},
		{w.PlaceObstacle("flat", sim.Rect{MinX: 5, MinY: 5, MaxX: 5, MaxY: 6}), `place obstacle "flat": [5.00, 5.00]-[5.00, 6.00] is empty; want MinX < MaxX and MinY < MaxY`},
		{w.PlaceObstacle("inf", sim.Rect{MinX: 5, MinY: 5, MaxX: math.Inf(1), MaxY: 6}), `place obstacle "inf": [5.00, 5.00]-[+Inf, 6.00] is not finite`},
		{w.PlaceObstacle("on", sim.Rect{MinX: 10.1, MinY: 9, MaxX: 11, MaxY: 11}), `place obstacle "on": [10.10, 9.00]-[11.00, 11.00] would overlap robot r at (10.00, 10.00, 0.00)`},
		{w.RemoveObstacle("nope"), `remove obstacle "nope": no such obstacle (placed: box)`},
	} {
		assert.EqualError(t, tc.err, tc.want, "error = %v\nwant %s", tc.err, tc.want)
	}
	require.NoError(t, w.RemoveObstacle("box"))
	err := w.RemoveObstacle("box")
	assert.EqualError(t, err, `remove obstacle "box": no obstacles are placed`, "second remove: %v", err)
	n := len(w.Obstacles())
	assert.Equal(t, 0, n, "%d obstacles left", n)
	g, _ := w.Occupancy()
	assert.Equal(t, sim.Free, g.At(50, 50), "removed obstacle still in the grid")
}

func TestTopicFaultsAreRecordedForTheROSFace(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	for _, topic := range sim.FaultTopics {
		f := sim.TopicFault{Frozen: true, Delay: 300 * time.Millisecond}
		require.NoError(t, r.SetTopicFault(topic, f))
		got := r.TopicFault(topic)
		assert.Equal(t, f, got, "%s: fault %+v, want %+v", topic, got, f)
		require.NoError(t, r.SetTopicFault(topic, sim.TopicFault{}))
		got = r.TopicFault(topic)
		assert.Equal(t, (sim.TopicFault{}), got, "%s: cleared fault reads %+v", topic, got)
	}
	err := r.SetTopicFault("odometry", sim.TopicFault{Frozen: true})
	want := `topic fault on "odometry" for robot r: no such topic; want one of cmd_vel, odom, scan, battery_state, bumper, docked, tf`
	assert.EqualError(t, err, want, "unknown topic: %v", err)
	err = r.SetTopicFault("scan", sim.TopicFault{Delay: -time.Second})
	want = `topic fault on "scan" for robot r: delay -1s is negative`
	assert.EqualError(t, err, want, "negative delay: %v", err)
	assert.False(t, r.NavigationDown(), "navigation down before any fault")
	r.SetNavigationDown(true)
	assert.True(t, r.NavigationDown(), "navigation not down after SetNavigationDown(true)")
	r.SetNavigationDown(false)
	assert.False(t, r.NavigationDown(), "navigation still down after restart")
}
