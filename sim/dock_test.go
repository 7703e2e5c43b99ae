package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/btrobot/btrobot/sim"
)

func TestDockSucceedsOnlyWithinTolerance(t *testing.T) {
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	for _, tc := range []struct {
		name   string
		offset sim.Pose // from the dock pose, in the map frame
		conf   sim.DockConf
		want   string // error, "" for docked
	}{
		{"on the dock", sim.Pose{}, sim.DockConf{}, ""},
		{"4 cm short", sim.Pose{X: -0.04}, sim.DockConf{}, ""},
		{"3 cm to the side, 0.09 rad off", sim.Pose{Y: 0.03, Yaw: 0.09}, sim.DockConf{}, ""},
		{"6 cm short", sim.Pose{X: -0.06}, sim.DockConf{}, `dock "d": robot r is 0.060 m from the dock pose (tolerance 0.050 m)`},
		{"0.12 rad off", sim.Pose{Yaw: -0.12}, sim.DockConf{}, `dock "d": robot r heading is 0.120 rad off the dock's (tolerance 0.100 rad)`},
		{"6 cm short with a looser tolerance", sim.Pose{X: -0.06}, sim.DockConf{Tolerance: 0.08}, ""},
		{"0.05 rad off with a tighter tolerance", sim.Pose{Yaw: 0.05}, sim.DockConf{YawTolerance: 0.02}, `dock "d": robot r heading is 0.050 rad off the dock's (tolerance 0.020 rad)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			if err := w.AddDock(dock); err != nil {
				t.Fatal(err)
			}
			spawn := sim.Pose{X: dock.Pose.X + tc.offset.X, Y: dock.Pose.Y + tc.offset.Y, Yaw: tc.offset.Yaw}
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: spawn, Dock: tc.conf})
			err := r.Dock("d")
			state, at := r.DockState()
			if tc.want == "" {
				if err != nil || state != sim.Docked || at.Name != "d" {
					t.Errorf("Dock: %v, state %v at %q; want docked at d", err, state, at.Name)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("Dock error = %v\nwant %s", err, tc.want)
			}
			if state != sim.Undocked {
				t.Errorf("state %v after a failed dock", state)
			}
		})
	}
}

func TestDockingErrors(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	for _, d := range []sim.Dock{
		{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}},
		{Name: "e", Pose: sim.Pose{X: 19.7, Y: 12}, Approach: sim.Pose{X: 18.9, Y: 12}},
	} {
		if err := w.AddDock(d); err != nil {
			t.Fatal(err)
		}
	}
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 19.7, Y: 10}})
	check := func(err error, want string) {
		t.Helper()
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant %s", err, want)
		}
	}
	check(w.AddDock(sim.Dock{Name: "d"}), `add dock "d": a dock with that name exists`)
	check(r.Undock(), `undock: robot r is not docked (it is undocked)`)
	check(r.Dock("nope"), `dock "nope": no such dock (the world has "d", "e")`)
	if err := r.Dock("d"); err != nil {
		t.Fatal(err)
	}
	check(r.Dock("e"), `dock "e": robot r is already docked at "d"`)
	if err := r.Undock(); err != nil {
		t.Fatal(err)
	}
	check(r.Dock("d"), `dock "d": robot r is still undocking from "d"`)
	check(r.Undock(), `undock: robot r is not docked (it is undocking)`)
}

func TestDockedRobotIgnoresCommandsAndUndockBacksOut(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	if err := w.AddDock(dock); err != nil {
		t.Fatal(err)
	}
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: dock.Pose})
	if err := r.Dock("d"); err != nil {
		t.Fatal(err)
	}
	hold(w, r, sim.Twist{Linear: -0.3, Angular: 1}, 2*time.Second)
	if r.Pose() != dock.Pose {
		t.Errorf("docked robot moved to %v on cmd_vel", r.Pose())
	}
	if err := r.Undock(); err != nil {
		t.Fatal(err)
	}
	var states []sim.DockState
	for range 150 { // 15 s
		hold(w, r, sim.Twist{Linear: 0.5}, 100*time.Millisecond) // ignored while undocking
		if s, _ := r.DockState(); len(states) == 0 || states[len(states)-1] != s {
			states = append(states, s)
		}
	}
	if len(states) != 2 || states[0] != sim.Undocking || states[1] != sim.Undocked {
		t.Errorf("dock states while undocking: %v, want [undocking undocked]", states)
	}
	// Backed out 0.8 m (to the approach pose), then drove on the held
	// command toward the dock again, which proves commands work once out.
	if r.Collisions() != 1 {
		t.Errorf("collisions %d: the robot should have driven back into the wall once after undocking", r.Collisions())
	}
}

func TestUndockStopsAtTheApproachPose(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	if err := w.AddDock(dock); err != nil {
		t.Fatal(err)
	}
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: dock.Pose})
	if err := r.Dock("d"); err != nil {
		t.Fatal(err)
	}
	if err := r.Undock(); err != nil {
		t.Fatal(err)
	}
	w.Step(15 * time.Second)
	s, _ := r.DockState()
	// Braking from 0.1 m/s at 1 m/s² adds up to half a centimetre.
	if p := r.Pose(); s != sim.Undocked || !near(p.X, dock.Approach.X, 0.01) || p.Y != 10 || p.Yaw != 0 {
		t.Errorf("after undocking: %v at %v, want undocked at %v", s, p, dock.Approach)
	}
}

// TestDockingWithANavigator is the recipe the dock action uses: navigate to
// the approach pose, drive the straight last stretch with SetPath, connect.
func TestDockingWithANavigator(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	for _, d := range w.Docks() {
		t.Run(d.Name, func(t *testing.T) {
			w := loadOffice(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{Y: 0}}) // the corridor's centre
			nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
			if err != nil {
				t.Fatal(err)
			}
			drive := func(what string) {
				t.Helper()
				for range 3000 {
					cmd, st := nav.Update(w.Now(), r.Pose())
					if st.State == sim.NavSucceeded {
						return
					}
					if st.State != sim.NavActive {
						t.Fatalf("%s: %v: %v", what, st.State, st.Err)
					}
					r.SetCmdVel(cmd)
					w.Step(100 * time.Millisecond)
				}
				t.Fatalf("%s: no result in 300 s", what)
			}
			if err := nav.SetGoal(d.Approach); err != nil {
				t.Fatal(err)
			}
			drive("to the approach pose")
			if err := r.Dock(d.Name); err == nil {
				t.Fatal("docked from the approach pose, 0.8 m away")
			}
			final, err := sim.NewNavigator(sim.NavigatorConf{GoalTolerance: 0.02, YawTolerance: 0.05, MaxLinear: 0.15})
			if err != nil {
				t.Fatal(err)
			}
			nav = final
			if err := nav.SetPath([]sim.Pose{r.Pose(), d.Pose}); err != nil {
				t.Fatal(err)
			}
			drive("onto the dock")
			if err := r.Dock(d.Name); err != nil {
				t.Fatalf("dock after the final approach at %v: %v", r.Pose(), err)
			}
			if r.Collisions() != 0 {
				t.Errorf("%d collisions while docking", r.Collisions())
			}
			if math.Abs(sim.NormalizeAngle(r.Pose().Yaw-d.Pose.Yaw)) > 0.05 {
				t.Errorf("docked heading %v, dock %v", r.Pose().Yaw, d.Pose.Yaw)
			}
		})
	}
}
