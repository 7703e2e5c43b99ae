package skills

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestMotionSkills: Spin, DriveDistance and BackUp close the loop on
// odometry, end where asked with a zero velocity, and fail safe.
func TestMotionSkills(t *testing.T) {
	cases := []struct {
		name     string
		xml      string
		start    Pose
		setup    func(b *bench)
		each     func(b *bench, tick int) // before each tick
		maxTicks int
		want     runtime.Status
		check    func(t *testing.T, b *bench)
	}{
		{name: "spin a quarter turn left", xml: `<Spin angle="1.5708" angle_remaining="{left}" elapsed="{t}"/>`,
			want: runtime.Success, maxTicks: 100,
			check: func(t *testing.T, b *bench) {
				d := math.Abs(b.pose.Yaw - math.Pi/2)
				assert.LessOrEqual(t, d, 0.04, "yaw %.3f, want π/2 within 0.04", b.pose.Yaw)
				l := b.get("left").(float64)
				assert.LessOrEqual(t, math.Abs(l), 0.03, "angle_remaining %v at the end", l)
				assert.Greater(t, b.get("t").(float64), 1.0, "elapsed %v s: a quarter turn at 1 rad/s takes over 1.5 s", b.get("t"))
			}},
		{name: "spin more than a full turn right, across ±π", xml: `<Spin angle="-7" speed="1.5"/>`,
			start: Pose{Yaw: 3}, want: runtime.Success, maxTicks: 200,
			check: func(t *testing.T, b *bench) {
				d := math.Abs(normalizeAngle(b.pose.Yaw - (3 - 7)))
				assert.LessOrEqual(t, d, 0.04, "yaw %.3f, want %.3f", b.pose.Yaw, normalizeAngle(3-7))
			}},
		{name: "spin of nothing succeeds at once", xml: `<Spin angle="0.01"/>`, want: runtime.Success, maxTicks: 1},
		{name: "spin with a stalled base times out", xml: `<Spin angle="3" time_allowance="2s"/>`,
			setup: func(b *bench) { b.stalled = true }, want: runtime.Failure, maxTicks: 100,
			check: func(t *testing.T, b *bench) {
				got := b.tree.Ticks()
				assert.GreaterOrEqual(t, got, uint64(40), "failed after %d ticks of 50 ms; want 2 s", got)
				assert.LessOrEqual(t, got, uint64(42), "failed after %d ticks of 50 ms; want 2 s", got)
			}},
		{name: "drive 1.2 m ahead", xml: `<DriveDistance distance="1.2" speed="0.3" distance_remaining="{left}"/>`,
			start: Pose{X: 1, Y: 1, Yaw: math.Pi / 4}, want: runtime.Success, maxTicks: 200,
			check: func(t *testing.T, b *bench) {
				want := Pose{X: 1 + 1.2*math.Cos(math.Pi/4), Y: 1 + 1.2*math.Sin(math.Pi/4)}
				d := b.pose.DistanceTo(want)
				assert.LessOrEqual(t, d, 0.025, "ended at %v, %.3f m from %v", b.pose, d, want)
				l := b.get("left").(float64)
				assert.LessOrEqual(t, l, 0.02, "distance_remaining %v at the end", l)
			}},
		{name: "a negative distance drives backwards", xml: `<DriveDistance distance="-0.5"/>`,
			want: runtime.Success, maxTicks: 100,
			check: func(t *testing.T, b *bench) {
				assert.LessOrEqual(t, math.Abs(b.pose.X+0.5), 0.025, "x = %.3f, want -0.5", b.pose.X)
			}},
		{name: "back up 0.3 m", xml: `<BackUp distance="0.3"/>`, start: Pose{Yaw: math.Pi}, want: runtime.Success, maxTicks: 100,
			check: func(t *testing.T, b *bench) {
				assert.LessOrEqual(t, math.Abs(b.pose.X-0.3), 0.025, "ended at %v, want (0.3, 0)", b.pose)
				assert.LessOrEqual(t, math.Abs(b.pose.Y), 0.01, "ended at %v, want (0.3, 0)", b.pose)
			}},
		{name: "the bumper stops a forward drive", xml: `<DriveDistance distance="2"/>`,
			setup: func(b *bench) { b.bumper = new(bool) },
			each:  func(b *bench, _ int) { *b.bumper = b.pose.X >= 0.7 },
			want:  runtime.Failure, maxTicks: 200,
			check: func(t *testing.T, b *bench) {
				assert.LessOrEqual(t, b.pose.X, 0.8, "x = %.2f; the bumper was pressed at 0.7 m", b.pose.X)
				assert.GreaterOrEqual(t, b.pose.X, 0.6, "x = %.2f; the bumper was pressed at 0.7 m", b.pose.X)
			}},
		{name: "the bumper does not stop a back-up", xml: `<BackUp distance="0.2"/>`,
			setup: func(b *bench) { pressed := true; b.bumper = &pressed }, want: runtime.Success, maxTicks: 100},
		{name: "odometry going stale fails the drive", xml: `<DriveDistance distance="2"/>`,
			each: func(b *bench, tick int) { b.frozen = tick >= 11 },
			want: runtime.Failure, maxTicks: 100,
			check: func(t *testing.T, b *bench) {
				assert.Equal(t, uint64(11), b.tree.Ticks(), "failed at tick %d, want 11 (the first with stale odometry)", b.tree.Ticks())
			}},
		{name: "no odometry yet: FAILURE without moving", xml: `<Spin angle="1"/>`,
			setup: func(b *bench) {
				b.frozen = true
				b.bb().Declare("odom", nil) // as the bridge does before the first message
			},
			want: runtime.Failure, maxTicks: 1,
			check: func(t *testing.T, b *bench) {
				assert.Equal(t, 0, b.cmds, "%d velocity commands sent", b.cmds)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(t, tc.xml, Deps{})
			b.pose = tc.start
			if tc.setup != nil {
				tc.setup(b)
			}
			st := runtime.Running
			for i := 1; i <= tc.maxTicks && st == runtime.Running; i++ {
				if tc.each != nil {
					tc.each(b, i)
				}
				st = b.tick()
			}
			require.Equal(t, tc.want, st, "after %d ticks: %v, want %v (pose %v)", b.tree.Ticks(), st, tc.want, b.pose)
			if b.cmds > 0 {
				assert.True(t, b.stopped(), "last velocity command %+v; a finished motion leaves a zero velocity", b.lastCmd)
			}
			if tc.check != nil {
				tc.check(t, b)
			}
		})
	}
}

// TestMotionHaltStopsWithinOneTick: halting a running motion writes a zero
// velocity in the halting tick, so the bridge publishes it in that tick's
// flush; the next start begins afresh.
func TestMotionHaltStopsWithinOneTick(t *testing.T) {
	for _, xml := range []string{
		`<Spin angle="3"/>`,
		`<DriveDistance distance="2"/>`,
		`<BackUp distance="1"/>`,
	} {
		t.Run(xml, func(t *testing.T) {
			b := newBench(t, xml, Deps{})
			for i := 0; i < 10; i++ {
				st := b.tick()
				require.Equal(t, runtime.Running, st, "tick %d: %v", i+1, st)
			}
			require.False(t, b.stopped(), "not moving after 10 ticks")
			b.tree.Halt()
			b.flush()
			require.True(t, b.stopped(), "after the halt the command is %+v, want zero", b.lastCmd)
			moved := b.pose
			st := b.tick()
			require.Equal(t, runtime.Running, st, "restart: %v", st)
			assert.NotEqual(t, moved, b.pose, "the restarted motion does not move")
		})
	}
}

// TestMotionPortErrors: impossible literal ports are rejected when the tree
// is built, with the port named.
func TestMotionPortErrors(t *testing.T) {
	reg := registry(t, Deps{})
	for xml, want := range map[string]string{
		`<Spin angle="1" speed="0"/>`:              `port "speed": 0; want a positive turn rate`,
		`<DriveDistance distance="1" speed="-1"/>`: `port "speed": -1; want a positive speed`,
		`<BackUp distance="-0.3"/>`:                `BackUp takes a positive distance`,
		`<Spin/>`:                                  `missing required input port "angle"`,
	} {
		err := buildErr(t, reg, xml)
		assert.ErrorContains(t, err, want, "%s: error %v, want one containing %q", xml, err, want)
	}
}

// TestMotionWithoutOdometryInput: a tree run with no odometry entry at all
// (a profile without it) gets an error naming the key, not a silent
// FAILURE.
func TestMotionWithoutOdometryInput(t *testing.T) {
	b := newBench(t, `<Spin angle="1"/>`, Deps{Keys: Keys{Odom: "wheel_odom"}})
	err := b.tickErr()
	require.ErrorContains(t, err, `no odometry: the blackboard has no entry "wheel_odom"`, "error %v", err)
}

// TestStop: Stop writes a zero velocity and succeeds in the same tick.
func TestStop(t *testing.T) {
	b := newBench(t, `<Sequence><DriveDistance distance="0.2"/><Stop/></Sequence>`, Deps{})
	b.v = 0.3
	st, _ := b.run(100)
	require.Equal(t, runtime.Success, st, "%v", st)
	assert.True(t, b.stopped(), "last command %+v", b.lastCmd)
}
