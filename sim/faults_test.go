package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/btrobot/btrobot/sim"
)

func TestSetBatteryLevel(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	if err := r.SetBatteryLevel(0.15); err != nil {
		t.Fatal(err)
	}
	if got := r.Battery().Percentage; got != 0.15 {
		t.Errorf("battery %v after dropping it to 0.15", got)
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		err := r.SetBatteryLevel(bad)
		want := "battery level " + fmtFloat(bad) + " for robot r: want a fraction in [0, 1]"
		if err == nil || err.Error() != want {
			t.Errorf("SetBatteryLevel(%v) = %v, want %s", bad, err, want)
		}
	}
	if got := r.Battery().Percentage; got != 0.15 {
		t.Errorf("a rejected level changed the battery to %v", got)
	}
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
			if err := r.StallWheel(tc.wheel, true); err != nil {
				t.Fatal(err)
			}
			if !r.WheelStalled(tc.wheel) {
				t.Fatal("WheelStalled = false after StallWheel")
			}
			// The stalled wheel's contact point, half the wheel separation to
			// the robot's side, stays put while the other wheel drives.
			side := 0.15
			if tc.wheel == sim.RightWheel {
				side = -0.15
			}
			hub := start.Compose(sim.Pose{Y: side})
			for range 30 {
				hold(w, r, sim.Twist{Linear: 0.3}, 100*time.Millisecond)
				if h := r.Pose().Compose(sim.Pose{Y: side}); !near(h.X, hub.X, 1e-9) || !near(h.Y, hub.Y, 1e-9) {
					t.Fatalf("stalled wheel moved from %v to %v", hub, h)
				}
			}
			if turned := sim.NormalizeAngle(r.Pose().Yaw - start.Yaw); math.Copysign(1, turned) != tc.turn || math.Abs(turned) < 1 {
				t.Errorf("turned %v rad in 3 s, want a turn of sign %v", turned, tc.turn)
			}
			// The encoders see the stall: odometry still agrees with the truth.
			if est := r.OdomOrigin().Compose(r.Odometry().Pose); est.DistanceTo(r.Pose()) > 1e-9 {
				t.Errorf("odometry %v, truth %v", est, r.Pose())
			}
			// Freed, the robot drives straight again.
			if err := r.StallWheel(tc.wheel, false); err != nil {
				t.Fatal(err)
			}
			hold(w, r, sim.Twist{Linear: 0.3}, time.Second)
			y0 := r.Pose().Yaw
			hold(w, r, sim.Twist{Linear: 0.3}, time.Second)
			if r.Pose().Yaw != y0 {
				t.Errorf("freed robot still turning: yaw %v -> %v", y0, r.Pose().Yaw)
			}
		})
	}
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	if err := r.StallWheel(sim.Wheel(7), true); err == nil || err.Error() != "stall wheel Wheel(7) on robot r: want LeftWheel or RightWheel" {
		t.Errorf("StallWheel(7) = %v", err)
	}
}

// corridorBlock spans the office corridor (y from -1 to 1) at x = -2.
var corridorBlock = sim.Rect{MinX: -2.3, MinY: -1.1, MaxX: -1.7, MaxY: 1.1}

func TestObstacleBlocksACorridor(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -6, Y: 0}})
	goal := sim.Pose{X: 2.5, Y: 3.5} // the kitchen, east of the block
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
	if err != nil {
		t.Fatal(err)
	}
	if err := nav.SetGoal(goal); err != nil {
		t.Fatal(err)
	}
	// Start driving, then block the corridor ahead of the robot.
	for range 20 {
		cmd, _ := nav.Update(w.Now(), r.Pose())
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	if _, rev := w.Occupancy(); rev != 0 {
		t.Fatalf("revision %d before any obstacle", rev)
	}
	if err := w.PlaceObstacle("pallet", corridorBlock); err != nil {
		t.Fatal(err)
	}
	if _, rev := w.Occupancy(); rev != 1 {
		t.Errorf("revision %d after placing an obstacle, want 1", rev)
	}
	cmd, st := nav.Update(w.Now(), r.Pose())
	if st.State != sim.NavAborted || !errors.Is(st.Err, sim.ErrNoPath) || cmd != (sim.Twist{}) {
		t.Fatalf("after blocking the corridor: %v %v, cmd %+v; want aborted with no path", st.State, st.Err, cmd)
	}
	// The robot itself cannot pass either: it stops at the pallet.
	hold(w, r, sim.Twist{Linear: 0.5}, 20*time.Second)
	if x := r.Pose().X; x > corridorBlock.MinX-0.18 || r.Collisions() != 1 {
		t.Errorf("robot at x=%v with %d collisions; want stopped before %v with 1", x, r.Collisions(), corridorBlock.MinX-0.18)
	}
	// Cleared, the way is open again.
	if err := w.RemoveObstacle("pallet"); err != nil {
		t.Fatal(err)
	}
	if err := nav.SetGoal(goal); err != nil {
		t.Fatal(err)
	}
	if _, st := nav.Update(w.Now(), r.Pose()); st.State != sim.NavActive {
		t.Errorf("after removing the pallet: %v %v", st.State, st.Err)
	}
}

func TestNavigatorReplansAroundAnObstacle(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -6, Y: 0}})
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
	if err != nil {
		t.Fatal(err)
	}
	goal := sim.Pose{X: 2, Y: 0}
	if err := nav.SetGoal(goal); err != nil {
		t.Fatal(err)
	}
	nav.Update(w.Now(), r.Pose())
	// Half the corridor blocked: the path must swerve to the north half.
	if err := w.PlaceObstacle("cart", sim.Rect{MinX: -2.5, MinY: -1, MaxX: -1.5, MaxY: 0.1}); err != nil {
		t.Fatal(err)
	}
	for range 600 {
		cmd, st := nav.Update(w.Now(), r.Pose())
		if st.State == sim.NavSucceeded {
			if st.Replans != 1 || r.Collisions() != 0 {
				t.Errorf("succeeded with %d replans and %d collisions; want 1 and 0", st.Replans, r.Collisions())
			}
			return
		}
		if st.State != sim.NavActive {
			t.Fatalf("%v: %v", st.State, st.Err)
		}
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	t.Fatal("no result in 60 s")
}

func TestObstacleErrors(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	if err := w.PlaceObstacle("box", sim.Rect{MinX: 2, MinY: 2, MaxX: 3, MaxY: 3}); err != nil {
		t.Fatal(err)
	}
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
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("error = %v\nwant %s", tc.err, tc.want)
		}
	}
	if err := w.RemoveObstacle("box"); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveObstacle("box"); err == nil || err.Error() != `remove obstacle "box": no obstacles are placed` {
		t.Errorf("second remove: %v", err)
	}
	if n := len(w.Obstacles()); n != 0 {
		t.Errorf("%d obstacles left", n)
	}
	if g, _ := w.Occupancy(); g.At(50, 50) != sim.Free {
		t.Error("removed obstacle still in the grid")
	}
}

func TestTopicFaultsAreRecordedForTheROSFace(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	for _, topic := range sim.FaultTopics {
		f := sim.TopicFault{Frozen: true, Delay: 300 * time.Millisecond}
		if err := r.SetTopicFault(topic, f); err != nil {
			t.Fatal(err)
		}
		if got := r.TopicFault(topic); got != f {
			t.Errorf("%s: fault %+v, want %+v", topic, got, f)
		}
		if err := r.SetTopicFault(topic, sim.TopicFault{}); err != nil {
			t.Fatal(err)
		}
		if got := r.TopicFault(topic); got != (sim.TopicFault{}) {
			t.Errorf("%s: cleared fault reads %+v", topic, got)
		}
	}
	err := r.SetTopicFault("odometry", sim.TopicFault{Frozen: true})
	if want := `topic fault on "odometry" for robot r: no such topic; want one of cmd_vel, odom, scan, battery_state, bumper, docked, tf`; err == nil || err.Error() != want {
		t.Errorf("unknown topic: %v", err)
	}
	err = r.SetTopicFault("scan", sim.TopicFault{Delay: -time.Second})
	if want := `topic fault on "scan" for robot r: delay -1s is negative`; err == nil || err.Error() != want {
		t.Errorf("negative delay: %v", err)
	}
	if r.NavigationDown() {
		t.Error("navigation down before any fault")
	}
	r.SetNavigationDown(true)
	if !r.NavigationDown() {
		t.Error("navigation not down after SetNavigationDown(true)")
	}
	r.SetNavigationDown(false)
	if r.NavigationDown() {
		t.Error("navigation still down after restart")
	}
}
