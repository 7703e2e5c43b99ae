package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// The default limits: 1 m/s² and 3 rad/s², 50 Hz physics.
const (
	accel    = 1.0
	angAccel = 3.0
)

func TestStraightLineWithAccelerationMatchesClosedForm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v       float64 // commanded speed, reached after v/accel seconds
		yaw     float64
		seconds float64
	}{
		{"forward along x", 0.4, 0, 3},
		{"forward at 30 degrees", 0.4, math.Pi / 6, 3},
		{"reverse", -0.2, 0, 2},
		{"full speed", 0.5, -math.Pi / 2, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			start := sim.Pose{X: 10, Y: 10, Yaw: tc.yaw}
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: start})
			hold(w, r, sim.Twist{Linear: tc.v}, time.Duration(tc.seconds*float64(time.Second)))
			// s(T) = |v| T - v²/(2a): constant acceleration, then cruise.
			s := math.Abs(tc.v)*tc.seconds - tc.v*tc.v/(2*accel)
			s = math.Copysign(s, tc.v)
			want := sim.Pose{X: start.X + s*math.Cos(tc.yaw), Y: start.Y + s*math.Sin(tc.yaw), Yaw: tc.yaw}
			got := r.Pose()
			assert.InDelta(t, want.X, got.X, 1e-9, "pose after %vs = %+v, want %+v", tc.seconds, got, want)
			assert.InDelta(t, want.Y, got.Y, 1e-9, "pose after %vs = %+v, want %+v", tc.seconds, got, want)
			assert.InDelta(t, want.Yaw, got.Yaw, 1e-12, "pose after %vs = %+v, want %+v", tc.seconds, got, want)
			tw := r.Twist()
			assert.InDelta(t, tc.v, tw.Linear, 1e-12, "twist = %+v, want linear %v", tw, tc.v)
			assert.Equal(t, 0.0, tw.Angular, "twist = %+v, want linear %v", tw, tc.v)
		})
	}
}

func TestConstantCurvatureArcMatchesClosedForm(t *testing.T) {
	for _, tc := range []struct{ v, w float64 }{
		{0.3, 0.5},   // radius 0.6 m, left
		{0.4, -0.25}, // radius 1.6 m, right
		{-0.2, 0.4},  // reversing on an arc
	} {
		w := roomWorld(t, sim.WorldConf{})
		r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10, Yaw: 0.3}})
		cmd := sim.Twist{Linear: tc.v, Angular: tc.w}
		hold(w, r, cmd, time.Second) // past both ramps
		p0 := r.Pose()
		const T = 4.0
		hold(w, r, cmd, T*time.Second)
		R := tc.v / tc.w
		cx, cy := p0.X-R*math.Sin(p0.Yaw), p0.Y+R*math.Cos(p0.Yaw)
		yaw := p0.Yaw + tc.w*T
		want := sim.Pose{X: cx + R*math.Sin(yaw), Y: cy - R*math.Cos(yaw), Yaw: sim.NormalizeAngle(yaw)}
		got := r.Pose()
		assert.InDelta(t, want.X, got.X, 1e-9, "v=%v w=%v: pose = %+v, want %+v", tc.v, tc.w, got, want)
		assert.InDelta(t, want.Y, got.Y, 1e-9, "v=%v w=%v: pose = %+v, want %+v", tc.v, tc.w, got, want)
		assert.InDelta(t, 0, sim.NormalizeAngle(got.Yaw-want.Yaw), 1e-9, "v=%v w=%v: pose = %+v, want %+v", tc.v, tc.w, got, want)
	}
}

func TestSpinInPlaceKeepsPosition(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	start := sim.Pose{X: 10, Y: 10, Yaw: 1}
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: start})
	cmd := sim.Twist{Angular: 1.2}
	hold(w, r, cmd, time.Second)
	y0 := r.Pose().Yaw
	hold(w, r, cmd, 3*time.Second)
	got := r.Pose()
	assert.Equal(t, start.X, got.X, "position moved while spinning: %+v", got)
	assert.Equal(t, start.Y, got.Y, "position moved while spinning: %+v", got)
	d := sim.NormalizeAngle(got.Yaw - y0 - 1.2*3)
	assert.InDelta(t, 0, d, 1e-9, "yaw advanced by %v too much in 3 s at 1.2 rad/s", d)
}

func TestAccelerationAndVelocityLimits(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cmd       sim.Twist
		limit     float64 // velocity the robot settles at
		rate      float64 // acceleration limit
		angular   bool
		rampSteps int
	}{
		{"linear ramps at 1 m/s²", sim.Twist{Linear: 0.4}, 0.4, accel, false, 20},
		{"linear command clamped to 0.5 m/s", sim.Twist{Linear: 5}, 0.5, accel, false, 25},
		{"angular ramps at 3 rad/s²", sim.Twist{Angular: 1.2}, 1.2, angAccel, true, 20},
		{"angular command clamped to 1.8 rad/s", sim.Twist{Angular: -9}, -1.8, angAccel, true, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}, CmdTimeout: -1})
			r.SetCmdVel(tc.cmd)
			const dt = 0.02
			speed := func() float64 {
				if tc.angular {
					return r.Twist().Angular
				}
				return r.Twist().Linear
			}
			prev := 0.0
			for k := 1; k <= tc.rampSteps+10; k++ {
				w.Step(20 * time.Millisecond)
				got := speed()
				// Twist is the average over the step: a*dt*(k-1/2) while ramping.
				want := math.Copysign(math.Min(tc.rate*dt*(float64(k)-0.5), math.Abs(tc.limit)), tc.limit)
				if k > tc.rampSteps {
					want = tc.limit
				}
				require.InDelta(t, want, got, 1e-9, "step %d: speed %v, want %v", k, got, want)
				require.LessOrEqual(t, math.Abs(got-prev), tc.rate*dt+1e-12, "step %d: speed jumped %v -> %v", k, prev, got)
				prev = got
			}
			// Braking obeys the same limit.
			r.SetCmdVel(sim.Twist{})
			w.Step(20 * time.Millisecond)
			d := math.Abs(speed() - tc.limit)
			assert.InDelta(t, tc.rate*dt/2, d, 1e-9, "first braking step changed speed by %v, want %v", d, tc.rate*dt/2)
		})
	}
}

func TestCmdVelTimeoutStopsTheRobot(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		wantDist float64
		moving   bool
	}{
		// 0.3 s ramp (0.045 m), cruise until the timeout at 0.5 s (0.06 m),
		// 0.3 s braking (0.045 m).
		{"default 0.5 s timeout", 0, 0.15, false},
		// Cruise until 1 s, then brake.
		{"1 s timeout", time.Second, 0.30, false},
		{"disabled", -1, 0.045 + 0.3*1.7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 5, Y: 10}, CmdTimeout: tc.timeout})
			r.SetCmdVel(sim.Twist{Linear: 0.3})
			w.Step(2 * time.Second)
			d := r.Pose().X - 5
			assert.InDelta(t, tc.wantDist, d, 1e-9, "drove %v m, want %v", d, tc.wantDist)
			moving := r.Twist().Linear != 0
			assert.Equal(t, tc.moving, moving, "still moving = %v, want %v", moving, tc.moving)
		})
	}
}

func TestStepSizeDoesNotChangeTheTrajectory(t *testing.T) {
	run := func(chunks []time.Duration) sim.Pose {
		w := roomWorld(t, sim.WorldConf{})
		r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}, CmdTimeout: -1})
		r.SetCmdVel(sim.Twist{Linear: 0.3, Angular: 0.4})
		for _, c := range chunks {
			w.Step(c)
		}
		require.Equal(t, 3*time.Second, w.Now(), "Now() = %v, want 3s", w.Now())
		return r.Pose()
	}
	one := run([]time.Duration{3 * time.Second})
	ms := make([]time.Duration, 0, 3000)
	for range 3000 {
		ms = append(ms, time.Millisecond)
	}
	got := run(ms)
	assert.Equal(t, one, got, "3000 steps of 1 ms: %+v; one step of 3 s: %+v", got, one)
	got = run([]time.Duration{7 * time.Millisecond, 2993 * time.Millisecond})
	assert.Equal(t, one, got, "7 ms + 2993 ms: %+v; 3 s: %+v", got, one)
}

func TestOdometryIsExactWithoutNoise(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 4, Y: 6, Yaw: 0.7}})
	for k, cmd := range []sim.Twist{{Linear: 0.4}, {Linear: 0.3, Angular: 0.8}, {Angular: -1.5}, {Linear: -0.2, Angular: 0.3}} {
		hold(w, r, cmd, time.Duration(k+2)*time.Second)
	}
	odom := r.Odometry()
	est := r.OdomOrigin().Compose(odom.Pose)
	truth := r.Pose()
	assert.InDelta(t, truth.X, est.X, 1e-9, "odometry in map = %+v, truth %+v", est, truth)
	assert.InDelta(t, truth.Y, est.Y, 1e-9, "odometry in map = %+v, truth %+v", est, truth)
	assert.InDelta(t, 0, sim.NormalizeAngle(est.Yaw-truth.Yaw), 1e-9, "odometry in map = %+v, truth %+v", est, truth)
	assert.Equal(t, w.Now(), odom.Stamp, "odometry stamp %v, want %v", odom.Stamp, w.Now())
	assert.Equal(t, r.Twist(), odom.Twist, "odometry twist %+v, truth %+v", odom.Twist, r.Twist())
}
