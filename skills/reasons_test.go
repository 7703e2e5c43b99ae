package skills

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestSkillReasons: each skill that fails (or, for ObstacleWithin, finds
// something) says why, in the robot's terms, while the tree is explaining.
func TestSkillReasons(t *testing.T) {
	ahead := 180 // the beam at angle 0
	cases := []struct {
		name     string
		xml      string
		setup    func(b *bench)
		each     func(b *bench, tick int)
		maxTicks int
		want     runtime.Status
		reason   string // the root's reason at the end, exactly
	}{
		{name: "battery below the threshold", xml: `<BatteryAbove percent="30"/>`,
			setup: func(b *bench) { b.battery = batteryAt(0.12, discharging) },
			want:  runtime.Failure, reason: "battery at 12.0%, not above 30%"},
		{name: "battery charge unknown", xml: `<BatteryAbove percent="30"/>`,
			setup: func(b *bench) { b.battery = batteryAt(float32(math.NaN()), discharging) },
			want:  runtime.Failure, reason: "the battery's charge is unknown (NaN)"},
		{name: "battery state stale", xml: `<BatteryAbove percent="30"/>`,
			setup: func(b *bench) { b.set("battery", *batteryAt(0.9, discharging), true) },
			want:  runtime.Failure, reason: `the battery state ("battery") is stale`},
		{name: "battery never received", xml: `<BatteryAbove percent="30"/>`,
			setup: func(b *bench) { b.bb().Declare("battery", nil) },
			want:  runtime.Failure, reason: `no battery state yet: entry "battery" was never written`},
		{name: "topic older than max_age", xml: `<TopicFresh key="odom" max_age="500ms"/>`,
			setup: func(b *bench) {
				b.latch()
				b.quiet = true
				b.clock.Advance(2300 * time.Millisecond)
			},
			want: runtime.Failure, reason: "entry odom is 2.3s old, max 500ms"},
		{name: "topic marked stale", xml: `<TopicFresh key="odom" max_age="10s"/>`,
			setup: func(b *bench) { b.latch(); b.frozen = true },
			want:  runtime.Failure, reason: "entry odom is marked stale by the bridge"},
		{name: "topic never received", xml: `<TopicFresh key="imu"/>`,
			want: runtime.Failure, reason: "entry imu: no such entry"},
		{name: "not at the place", xml: `<AtPose goal="kitchen" tolerance="0.1"/>`,
			setup: func(b *bench) { b.pose = Pose{X: 2.4, Y: 3.6} },
			want:  runtime.Failure, reason: "0.14 m from the goal, tolerance 0.1 m"},
		{name: "heading off", xml: `<AtPose goal="1;2;1.57" yaw_tolerance="0.1"/>`,
			setup: func(b *bench) { b.pose = Pose{X: 1, Y: 2} },
			want:  runtime.Failure, reason: "heading 1.57 rad off the goal's, tolerance 0.1 rad"},
		{name: "not docked", xml: `<IsDocked/>`,
			setup: func(b *bench) { b.battery = batteryAt(0.5, discharging) },
			want:  runtime.Failure, reason: "not on a dock"},
		{name: "an obstacle found", xml: `<ObstacleWithin distance="0.5"/>`,
			setup: func(b *bench) { b.scan = scanOf(5, map[int]float32{ahead + 10: 0.4}) },
			want:  runtime.Success, reason: "an obstacle 0.40 m away, at 0.17 rad"},
		{name: "no obstacle", xml: `<ObstacleWithin distance="0.5" width="1"/>`,
			setup: func(b *bench) { b.scan = scanOf(5, nil) },
			want:  runtime.Failure, reason: "nothing within 0.5 m in the 1 rad wide sector at 0 rad"},
		{name: "a stale scan counts as an obstacle", xml: `<ObstacleWithin/>`,
			setup: func(b *bench) { b.set("scan", *scanOf(5, nil), true) },
			want:  runtime.Success, reason: `the laser scan ("scan") is stale: assuming an obstacle`},
		{name: "an empty queue", xml: `<PopPlace queue="{route}" place="{target}"/>`,
			setup: func(b *bench) { require.NoError(t, b.bb().Set("route", []string{})) },
			want:  runtime.Failure, reason: "the queue is empty"},
		{name: "a spin that runs out of time", xml: `<Spin angle="3" time_allowance="2s"/>`,
			setup: func(b *bench) { b.stalled = true }, maxTicks: 100,
			want: runtime.Failure, reason: "out of time after 2.05s, 3.00 rad short"},
		{name: "the bumper stops a drive", xml: `<DriveDistance distance="2"/>`,
			setup: func(b *bench) { b.bumper = new(bool) },
			each:  func(b *bench, _ int) { *b.bumper = b.pose.X >= 0.7 }, maxTicks: 200,
			want: runtime.Failure, reason: "the bumper is pressed, 1.29 m short"},
		{name: "odometry gone stale during a drive", xml: `<DriveDistance distance="2"/>`,
			each: func(b *bench, tick int) { b.frozen = tick >= 11 }, maxTicks: 100,
			want: runtime.Failure, reason: `odometry ("odom") is stale`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(t, tc.xml, Deps{Places: testPlaces})
			b.tree.SetExplaining(true)
			if tc.setup != nil {
				tc.setup(b)
			}
			st := runtime.Running
			for i := 0; i < max(tc.maxTicks, 1) && st == runtime.Running; i++ {
				if tc.each != nil {
					tc.each(b, i)
				}
				st = b.tick()
			}
			require.Equal(t, tc.want, st)
			chain := b.tree.Explain()
			require.Len(t, chain, 1)
			assert.Equal(t, tc.reason, chain[0].Reason)
		})
	}
}
