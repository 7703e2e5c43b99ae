package sim_test

import (
	"testing"
	"time"

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
			if !near(b.Percentage, want, 2e-6) || b.Percentage >= 1 {
				t.Errorf("battery %v after 10 s (travelled %.3f m from %v), want %v", b.Percentage, r.Travelled(), start, want)
			}
			if b.Status != sim.StatusDischarging || b.Current >= 0 || !b.Present {
				t.Errorf("state %+v: want discharging with negative current", b)
			}
			if b.Charge != b.Percentage*4 || b.Capacity != 4 {
				t.Errorf("charge %v Ah of %v Ah at %v", b.Charge, b.Capacity, b.Percentage)
			}
			ocv := 12.8 + 4*b.Percentage
			if !near(b.Voltage, ocv+b.Current*0.05, 1e-9) || b.Voltage >= ocv {
				t.Errorf("voltage %v: want the open-circuit %v less the sag of %v A", b.Voltage, ocv, b.Current)
			}
		})
	}
}

func TestBatteryRestCurrentAndVoltage(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	w.Step(100 * time.Second)
	b := r.Battery()
	// 0.0002/s of 4 Ah is 2.88 A; 16.8 V full, 12.8 V empty, 0.05 ohm.
	if !near(b.Percentage, 0.98, 1e-9) || !near(b.Current, -2.88, 1e-6) || !near(b.Voltage, 12.8+4*0.98-2.88*0.05, 1e-6) {
		t.Errorf("after 100 s at rest: %+v", b)
	}
}

func TestBatteryChargesOnlyWhenDocked(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	if err := w.AddDock(dock); err != nil {
		t.Fatal(err)
	}
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: dock.Pose})
	if err := r.SetBatteryLevel(0.5); err != nil {
		t.Fatal(err)
	}
	w.Step(10 * time.Second)
	if b := r.Battery(); !near(b.Percentage, 0.498, 1e-9) {
		t.Errorf("undocked at the dock pose: %v, want drained to 0.498", b.Percentage)
	}
	if err := r.Dock("d"); err != nil {
		t.Fatal(err)
	}
	w.Step(20 * time.Second)
	b := r.Battery()
	if !near(b.Percentage, 0.598, 1e-9) || b.Status != sim.StatusCharging || b.Current <= 0 {
		t.Errorf("after 20 s docked at 0.005/s: %+v, want 0.598 charging", b)
	}
	w.Step(100 * time.Second)
	if b := r.Battery(); b.Percentage != 1 || b.Status != sim.StatusFull {
		t.Errorf("after 120 s docked: %+v, want full", b)
	}
}

func TestEmptyBatteryStopsTheRobot(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10}})
	hold(w, r, sim.Twist{Linear: 0.4}, time.Second)
	if err := r.SetBatteryLevel(0); err != nil {
		t.Fatal(err)
	}
	hold(w, r, sim.Twist{Linear: 0.4}, time.Second) // brakes at 1 m/s² within 0.4 s
	x := r.Pose().X
	hold(w, r, sim.Twist{Linear: 0.4}, 5*time.Second)
	if r.Pose().X != x || r.Twist().Linear != 0 {
		t.Errorf("robot with an empty battery moved from x=%v to %v", x, r.Pose().X)
	}
	if b := r.Battery(); b.Percentage != 0 {
		t.Errorf("battery went to %v, want to stay at 0", b.Percentage)
	}
}
