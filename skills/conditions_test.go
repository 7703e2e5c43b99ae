package skills

import (
	"math"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/stretchr/testify/assert"

	"github.com/btrobot/btrobot/runtime"
)

func batteryAt(fraction float32, status uint8) *sensor_msgs.BatteryState {
	return &sensor_msgs.BatteryState{Percentage: fraction, PowerSupplyStatus: status}
}

const (
	discharging = 2
	charging    = supplyCharging
	full        = supplyFull
)

// scanOf returns a 360-beam scan from -π in 1° steps with every range r,
// except the beams listed.
func scanOf(r float32, beams map[int]float32) *sensor_msgs.LaserScan {
	s := &sensor_msgs.LaserScan{AngleMin: -math.Pi, AngleIncrement: 2 * math.Pi / 360, RangeMin: 0.1, RangeMax: 8}
	s.Ranges = make([]float32, 360)
	for i := range s.Ranges {
		s.Ranges[i] = r
	}
	for i, v := range beams {
		s.Ranges[i] = v
	}
	return s
}

// TestConditions: each condition against the inputs of one tick.
func TestConditions(t *testing.T) {
	ahead := 180 // the beam at angle 0
	inf := float32(math.Inf(1))
	cases := []struct {
		name  string
		xml   string
		setup func(b *bench)
		want  runtime.Status
	}{
		{"battery above", `<BatteryAbove percent="30"/>`, func(b *bench) { b.battery = batteryAt(0.31, discharging) }, runtime.Success},
		{"battery at the threshold is not above", `<BatteryAbove percent="30"/>`, func(b *bench) { b.battery = batteryAt(0.3, discharging) }, runtime.Failure},
		{"battery below", `<BatteryAbove percent="30"/>`, func(b *bench) { b.battery = batteryAt(0.1, discharging) }, runtime.Failure},
		{"battery unknown (NaN)", `<BatteryAbove percent="30"/>`, func(b *bench) { b.battery = batteryAt(float32(math.NaN()), discharging) }, runtime.Failure},
		{"battery stale fails safe", `<BatteryAbove percent="30"/>`, func(b *bench) {
			b.battery = nil
			b.set("battery", *batteryAt(0.9, discharging), true)
		}, runtime.Failure},
		{"battery never received", `<BatteryAbove percent="30"/>`, func(b *bench) { b.bb().Declare("battery", nil) }, runtime.Failure},
		{"docked: charging", `<IsDocked/>`, func(b *bench) { b.battery = batteryAt(0.5, charging) }, runtime.Success},
		{"docked: full on the charger", `<IsDocked/>`, func(b *bench) { b.battery = batteryAt(1, full) }, runtime.Success},
		{"not docked: discharging", `<IsDocked/>`, func(b *bench) { b.battery = batteryAt(0.5, discharging) }, runtime.Failure},
		{"obstacle ahead", `<ObstacleWithin distance="0.5"/>`, func(b *bench) { b.scan = scanOf(5, map[int]float32{ahead + 10: 0.4}) }, runtime.Success},
		{"obstacle ahead but farther", `<ObstacleWithin distance="0.5"/>`, func(b *bench) { b.scan = scanOf(5, map[int]float32{ahead: 0.6}) }, runtime.Failure},
		{"obstacle beside, out of the sector", `<ObstacleWithin distance="0.5" width="1.0"/>`, func(b *bench) { b.scan = scanOf(5, map[int]float32{ahead + 40: 0.2}) }, runtime.Failure},
		{"obstacle on the left, sector to the left", `<ObstacleWithin distance="0.5" direction="1.5708" width="0.5"/>`, func(b *bench) { b.scan = scanOf(5, map[int]float32{ahead + 90: 0.2}) }, runtime.Success},
		{"sector behind, across ±π", `<ObstacleWithin distance="0.5" direction="3.1416" width="0.5"/>`, func(b *bench) { b.scan = scanOf(5, map[int]float32{2: 0.3}) }, runtime.Success},
		{"invalid ranges are not obstacles", `<ObstacleWithin distance="0.5"/>`, func(b *bench) {
			b.scan = scanOf(inf, map[int]float32{ahead: 0.05, ahead + 1: float32(math.NaN())})
		}, runtime.Failure},
		{"stale scan fails safe: an obstacle", `<ObstacleWithin/>`, func(b *bench) { b.set("scan", *scanOf(5, nil), true) }, runtime.Success},
		{"at the kitchen", `<AtPose goal="kitchen"/>`, func(b *bench) { b.pose = Pose{X: 2.4, Y: 3.6} }, runtime.Success},
		{"not at the kitchen", `<AtPose goal="kitchen" tolerance="0.1"/>`, func(b *bench) { b.pose = Pose{X: 2.4, Y: 3.6} }, runtime.Failure},
		{"at a pose, heading checked", `<AtPose goal="1;2;1.57" yaw_tolerance="0.1"/>`, func(b *bench) { b.pose = Pose{X: 1, Y: 2, Yaw: 1.6} }, runtime.Success},
		{"at a pose, heading off", `<AtPose goal="1;2;1.57" yaw_tolerance="0.1"/>`, func(b *bench) { b.pose = Pose{X: 1, Y: 2, Yaw: 0} }, runtime.Failure},
		{"odom origin places odometry in the map", `<AtPose goal="lab"/>`, func(b *bench) { b.pose = Pose{X: 1, Y: -2} }, runtime.Success},
		{"fresh topic", `<TopicFresh key="odom" max_age="100ms"/>`, nil, runtime.Success},
		{"topic older than max_age", `<TopicFresh key="odom" max_age="1s"/>`, func(b *bench) {
			b.latch()
			b.quiet = true
			b.clock.Advance(1500 * time.Millisecond)
		}, runtime.Failure},
		{"topic within max_age", `<TopicFresh key="odom" max_age="2s"/>`, func(b *bench) {
			b.latch()
			b.quiet = true
			b.clock.Advance(1500 * time.Millisecond)
		}, runtime.Success},
		{"topic the bridge marks stale", `<TopicFresh key="odom" max_age="10s"/>`, func(b *bench) {
			b.latch()
			b.frozen = true
		}, runtime.Failure},
		{"missing topic entry", `<TopicFresh key="imu"/>`, nil, runtime.Failure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			deps := Deps{Places: testPlaces}
			if tc.name == "odom origin places odometry in the map" {
				deps.OdomOrigin = Pose{X: 5.5, Y: -1.5}
			}
			b := newBench(t, tc.xml, deps)
			if tc.setup != nil {
				tc.setup(b)
			}
			got := b.tick()
			assert.Equal(t, tc.want, got, "%v, want %v", got, tc.want)
		})
	}
}
