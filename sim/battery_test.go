package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

func TestBatteryDrainsWithTimeAndMotion(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  sim.Twist
	}{
		{"at rest", sim.Twist{}},
		{"driving", sim.Twist{Linear: 0.4}},
		{"turning", sim.Twist{Angular: 1.0}},
		{"driving an arc", sim.Twist{Linear: 0.3, Angular: 0.3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
			start := r.Pose()
			hold(w, r, tc.cmd, 10*time.Second)
			turned := 0.0
			if tc.cmd.Angular != 0 { // past the ramp of 1/3 s, w*t exactly
				a := tc.cmd.Angular
				turned = a*10 - a*a/(2*3.0)
			}
			// Defaults: 0.0002/s, 0.0005/m, 0.0001/rad.
			want := 1 - 0.0002*10 - 0.0005*r.Travelled() - 0.0001*turned
			b := r.Battery()
			assert.InDelta(t, want, b.Percentage, 2e-6, "battery %v after 10 s (travelled %.3f m from %v), want %v", b.Percentage, r.Travelled(), start, want)
			assert.Less(t, b.Percentage, 1.0, "battery %v after 10 s (travelled %.3f m from %v), want %v", b.Percentage, r.Travelled(), start, want)
			assert.Equal(t, sim.StatusDischarging, b.Status, "state %+v: want discharging with negative current", b)
			assert.Less(t, b.Current, 0.0, "state %+v: want discharging with negative current", b)
			assert.True(t, b.Present, "state %+v: want discharging with negative current", b)
			assert.Equal(t, b.Percentage*4, b.Charge, "charge %v Ah of %v Ah at %v", b.Charge, b.Capacity, b.Percentage)
			assert.Equal(t, 4.0, b.Capacity, "charge %v Ah of %v Ah at %v", b.Charge, b.Capacity, b.Percentage)
			ocv := 12.8 + 4*b.Percentage
			assert.InDelta(t, ocv+b.Current*0.05, b.Voltage, 1e-9, "voltage %v: want the open-circuit %v less the sag of %v A", b.Voltage, ocv, b.Current)
			assert.Less(t, b.Voltage, ocv, "voltage %v: want the open-circuit %v less the sag of %v A", b.Voltage, ocv, b.Current)
		})
	}
}

func TestBatteryRestCurrentAndVoltage(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	w.Step(100 * time.Second)
	b := r.Battery()
	// 0.0002/s of 4 Ah is 2.88 A; 16.8 V full, 12.8 V empty, 0.05 ohm.
	assert.InDelta(t, 0.98, b.Percentage, 1e-9, "after 100 s at rest: %+v", b)
	assert.InDelta(t, -2.88, b.Current, 1e-6, "after 100 s at rest: %+v", b)
	assert.InDelta(t, 12.8+4*0.98-2.88*0.05, b.Voltage, 1e-6, "after 100 s at rest: %+v", b)
}

func TestBatteryChargesOnlyWhenDocked(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	require.NoError(t, w.AddDock(dock))
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: dock.Pose})
	require.NoError(t, r.SetBatteryLevel(0.5))
	w.Step(10 * time.Second)
	assert.InDelta(t, 0.498, r.Battery().Percentage, 1e-9, "undocked at the dock pose: want drained to 0.498")
	require.NoError(t, r.Dock("d"))
	w.Step(20 * time.Second)
	b := r.Battery()
	assert.InDelta(t, 0.598, b.Percentage, 1e-9, "after 20 s docked at 0.005/s: %+v, want 0.598 charging", b)
	assert.Equal(t, sim.StatusCharging, b.Status, "after 20 s docked at 0.005/s: %+v, want 0.598 charging", b)
	assert.Greater(t, b.Current, 0.0, "after 20 s docked at 0.005/s: %+v, want 0.598 charging", b)
	w.Step(100 * time.Second)
	b = r.Battery()
	assert.Equal(t, 1.0, b.Percentage, "after 120 s docked: %+v, want full", b)
	assert.Equal(t, sim.StatusFull, b.Status, "after 120 s docked: %+v, want full", b)
}

func TestEmptyBatteryStopsTheRobot(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	hold(w, r, sim.Twist{Linear: 0.4}, time.Second)
	require.NoError(t, r.SetBatteryLevel(0))
	hold(w, r, sim.Twist{Linear: 0.4}, time.Second) // brakes at 1 m/s² within 0.4 s
	x := r.Pose().X
	hold(w, r, sim.Twist{Linear: 0.4}, 5*time.Second)
	if assert.Equal(t, x, r.Pose().X, "robot with an empty battery moved from x=%v to %v", x, r.Pose().X) {
		assert.Equal(t, 0.0, r.Twist().Linear, "robot with an empty battery moved from x=%v to %v", x, r.Pose().X)
	}
	b := r.Battery()
	assert.Equal(t, 0.0, b.Percentage, "battery went to %v, want to stay at 0", b.Percentage)
}
