package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
			assert.InDelta(t, tc.stopX, p.X, 1e-4, "stopped at %v, want (%.2f, %.2f)", p, tc.stopX, tc.stopY)
			assert.InDelta(t, tc.stopY, p.Y, 1e-4, "stopped at %v, want (%.2f, %.2f)", p, tc.stopX, tc.stopY)
			assert.LessOrEqual(t, math.Abs(p.X-10)+0.18, 9.95+1e-12, "robot at %v overlaps the wall", p)
			assert.LessOrEqual(t, math.Abs(p.Y-10)+0.18, 9.95+1e-12, "robot at %v overlaps the wall", p)
			n := r.Collisions()
			assert.Equal(t, 1, n, "collisions after pushing for seconds = %d, want 1", n)
			b := r.Bumper()
			assert.True(t, b.Pressed, "bumper = %+v, want pressed at bearing %v", b, tc.bearing)
			assert.LessOrEqual(t, math.Abs(sim.NormalizeAngle(b.Bearing-tc.bearing)), 0.2, "bumper = %+v, want pressed at bearing %v", b, tc.bearing)
			tw := r.Twist()
			assert.Equal(t, 0.0, tw.Linear, "twist at the wall = %+v, want stopped", tw)
			// Back off: the bumper releases and the count stays.
			hold(w, r, sim.Twist{Linear: -tc.cmd.Linear}, time.Second)
			if assert.False(t, r.Bumper().Pressed, "after backing off: bumper %+v, collisions %d; want released, 1", r.Bumper(), r.Collisions()) {
				assert.Equal(t, 1, r.Collisions(), "after backing off: bumper %+v, collisions %d; want released, 1", r.Bumper(), r.Collisions())
			}
			// Drive in again: a second collision.
			hold(w, r, tc.cmd, 3*time.Second)
			if assert.Equal(t, 2, r.Collisions(), "after driving in again: collisions %d, bumper %+v; want 2, pressed", r.Collisions(), r.Bumper()) {
				assert.True(t, r.Bumper().Pressed, "after driving in again: collisions %d, bumper %+v; want 2, pressed", r.Collisions(), r.Bumper())
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
	d := a.Pose().DistanceTo(b.Pose())
	assert.InDelta(t, 0.43, d, 1e-4, "centres %v apart, want 0.43 (touching, not overlapping)", d)
	assert.GreaterOrEqual(t, d, 0.43, "centres %v apart, want 0.43 (touching, not overlapping)", d)
	assert.Equal(t, (sim.Pose{X: 6, Y: 10, Yaw: math.Pi}), b.Pose(), "b was pushed to %v", b.Pose())
	for _, r := range []*sim.Robot{a, b} {
		if assert.Equal(t, 1, r.Collisions(), "%s: collisions %d, bumper %+v; want 1, pressed dead ahead", r.Name(), r.Collisions(), r.Bumper()) {
			assert.True(t, r.Bumper().Pressed, "%s: collisions %d, bumper %+v; want 1, pressed dead ahead", r.Name(), r.Collisions(), r.Bumper())
			assert.LessOrEqual(t, math.Abs(r.Bumper().Bearing), 1e-9, "%s: collisions %d, bumper %+v; want 1, pressed dead ahead", r.Name(), r.Collisions(), r.Bumper())
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
		assert.EqualError(t, err, tc.want, "AddRobot(%+v) error = %v\nwant %s", tc.conf, err, tc.want)
	}
	n := len(w.Robots())
	assert.Equal(t, 1, n, "%d robots after failed adds, want 1", n)
}
