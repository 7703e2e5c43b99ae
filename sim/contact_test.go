package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/btrobot/btrobot/sim"
)

func TestRobotStopsAtAWallAndCountsOneCollisionPerContact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start sim.Pose
		cmd   sim.Twist
		// The wall's inner face is at 0.05 m and 19.95 m; the robot's radius
		// is 0.18 m, so its centre stops 0.18 m short of the face.
		stopX, stopY float64
		bearing      float64 // of the contact, in the robot's frame
	}{
		{"east wall ahead", sim.Pose{X: 18, Y: 10}, sim.Twist{Linear: 0.5}, 19.77, 10, 0},
		{"west wall behind", sim.Pose{X: 1, Y: 10}, sim.Twist{Linear: -0.3}, 0.23, 10, math.Pi},
		{"north wall to the left", sim.Pose{X: 10, Y: 18, Yaw: math.Pi / 2}, sim.Twist{Linear: 0.5}, 10, 19.77, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: tc.start})
			hold(w, r, tc.cmd, 8*time.Second) // reach the wall, then keep pushing
			p := r.Pose()
			if !near(p.X, tc.stopX, 1e-4) || !near(p.Y, tc.stopY, 1e-4) {
				t.Errorf("stopped at %v, want (%.2f, %.2f)", p, tc.stopX, tc.stopY)
			}
			if math.Abs(p.X-10)+0.18 > 9.95+1e-12 || math.Abs(p.Y-10)+0.18 > 9.95+1e-12 {
				t.Errorf("robot at %v overlaps the wall", p)
			}
			if n := r.Collisions(); n != 1 {
				t.Errorf("collisions after pushing for seconds = %d, want 1", n)
			}
			b := r.Bumper()
			if !b.Pressed || math.Abs(sim.NormalizeAngle(b.Bearing-tc.bearing)) > 0.2 {
				t.Errorf("bumper = %+v, want pressed at bearing %v", b, tc.bearing)
			}
			if tw := r.Twist(); tw.Linear != 0 {
				t.Errorf("twist at the wall = %+v, want stopped", tw)
			}
			// Back off: the bumper releases and the count stays.
			hold(w, r, sim.Twist{Linear: -tc.cmd.Linear}, time.Second)
			if r.Bumper().Pressed || r.Collisions() != 1 {
				t.Errorf("after backing off: bumper %+v, collisions %d; want released, 1", r.Bumper(), r.Collisions())
			}
			// Drive in again: a second collision.
			hold(w, r, tc.cmd, 3*time.Second)
			if r.Collisions() != 2 || !r.Bumper().Pressed {
				t.Errorf("after driving in again: collisions %d, bumper %+v; want 2, pressed", r.Collisions(), r.Bumper())
			}
		})
	}
}

func TestRobotsCollideAsCircles(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	a := addRobot(t, w, sim.RobotConf{Name: "a", Spawn: sim.Pose{X: 3, Y: 10}})
	b := addRobot(t, w, sim.RobotConf{Name: "b", Spawn: sim.Pose{X: 6, Y: 10, Yaw: math.Pi}, Radius: 0.25})
	hold(w, a, sim.Twist{Linear: 0.5}, 10*time.Second)
	// a stops with the circles touching: 0.18 + 0.25 between centres.
	if d := a.Pose().DistanceTo(b.Pose()); !near(d, 0.43, 1e-4) || d < 0.43 {
		t.Errorf("centres %v apart, want 0.43 (touching, not overlapping)", d)
	}
	if b.Pose() != (sim.Pose{X: 6, Y: 10, Yaw: math.Pi}) {
		t.Errorf("b was pushed to %v", b.Pose())
	}
	for _, r := range []*sim.Robot{a, b} {
		if r.Collisions() != 1 || !r.Bumper().Pressed || math.Abs(r.Bumper().Bearing) > 1e-9 {
			t.Errorf("%s: collisions %d, bumper %+v; want 1, pressed dead ahead", r.Name(), r.Collisions(), r.Bumper())
		}
	}
}

func TestAddRobotRejectsBadSpawns(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	addRobot(t, w, sim.RobotConf{Name: "first", Spawn: sim.Pose{X: 10, Y: 10}})
	for _, tc := range []struct {
		conf sim.RobotConf
		want string
	}{
		{sim.RobotConf{Name: "first", Spawn: sim.Pose{X: 5, Y: 5}}, `add robot "first": a robot with that name exists`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 10.3, Y: 10}}, `add robot "x": spawn pose (10.30, 10.00, 0.00) overlaps robot first at (10.00, 10.00, 0.00)`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 0.1, Y: 10}}, `add robot "x": spawn pose (0.10, 10.00, 0.00) is off the map or within 0.18 m (its radius) of a wall or obstacle`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 30, Y: 10}}, `add robot "x": spawn pose (30.00, 10.00, 0.00) is off the map or within 0.18 m (its radius) of a wall or obstacle`},
		{sim.RobotConf{Spawn: sim.Pose{X: 5, Y: 5}}, `robot Name: missing`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 5, Y: 5}, Radius: -1}, `robot "x" Radius: must be >= 0, got -1`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 5, Y: 5}, WheelSlip: 2}, `robot "x" WheelSlip: must be a fraction in [0, 1], got 2`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: math.NaN(), Y: 5}}, `robot "x" Spawn (NaN, 5.00, 0.00): not a finite pose`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 5, Y: 5}, Laser: sim.LaserConf{RangeMin: 5, RangeMax: 4}}, `robot "x" laser RangeMin 5: must be below RangeMax 4`},
		{sim.RobotConf{Name: "x", Spawn: sim.Pose{X: 5, Y: 5}, Battery: sim.BatteryConf{Initial: 1.5}}, `robot "x" battery Initial: must be a fraction in (0, 1], got 1.5`},
	} {
		_, err := w.AddRobot(tc.conf)
		if err == nil || err.Error() != tc.want {
			t.Errorf("AddRobot(%+v) error = %v\nwant %s", tc.conf, err, tc.want)
		}
	}
	if n := len(w.Robots()); n != 1 {
		t.Errorf("%d robots after failed adds, want 1", n)
	}
}
