package sim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			require.NoError(t, w.AddDock(dock))
			spawn := sim.Pose{X: dock.Pose.X + tc.offset.X, Y: dock.Pose.Y + tc.offset.Y, Yaw: tc.offset.Yaw}
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: spawn, Dock: tc.conf})
			err := r.Dock("d")
			state, at := r.DockState()
			if tc.want == "" {
				assert.NoError(t, err, "Dock: %v, state %v at %q; want docked at d", err, state, at.Name)
				assert.Equal(t, sim.Docked, state, "Dock: %v, state %v at %q; want docked at d", err, state, at.Name)
				assert.Equal(t, "d", at.Name, "Dock: %v, state %v at %q; want docked at d", err, state, at.Name)
				return
			}
			assert.EqualError(t, err, tc.want, "Dock error = %v\nwant %s", err, tc.want)
			assert.Equal(t, sim.Undocked, state, "state %v after a failed dock", state)
		})
	}
}

func TestDockingErrors(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	for _, d := range []sim.Dock{
		{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}},
		{Name: "e", Pose: sim.Pose{X: 19.7, Y: 12}, Approach: sim.Pose{X: 18.9, Y: 12}},
	} {
		require.NoError(t, w.AddDock(d))
	}
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 19.7, Y: 10}})
	check := func(err error, want string) {
		t.Helper()
		assert.EqualError(t, err, want, "error = %v\nwant %s", err, want)
	}
	check(w.AddDock(sim.Dock{Name: "d"}), `add dock "d": a dock with that name exists`)
	check(r.Undock(), `undock: robot r is not docked (it is undocked)`)
	check(r.Dock("nope"), `dock "nope": no such dock (the world has "d", "e")`)
	require.NoError(t, r.Dock("d"))
	check(r.Dock("e"), `dock "e": robot r is already docked at "d"`)
	require.NoError(t, r.Undock())
	check(r.Dock("d"), `dock "d": robot r is still undocking from "d"`)
	check(r.Undock(), `undock: robot r is not docked (it is undocking)`)
}

func TestDockedRobotIgnoresCommandsAndUndockBacksOut(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	require.NoError(t, w.AddDock(dock))
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: dock.Pose})
	require.NoError(t, r.Dock("d"))
	hold(w, r, sim.Twist{Linear: -0.3, Angular: 1}, 2*time.Second)
	assert.Equal(t, dock.Pose, r.Pose(), "docked robot moved to %v on cmd_vel", r.Pose())
	require.NoError(t, r.Undock())
	var states []sim.DockState
	for range 150 { // 15 s
		hold(w, r, sim.Twist{Linear: 0.5}, 100*time.Millisecond) // ignored while undocking
		if s, _ := r.DockState(); len(states) == 0 || states[len(states)-1] != s {
			states = append(states, s)
		}
	}
	if assert.Len(t, states, 2, "dock states while undocking: %v, want [undocking undocked]", states) {
		assert.Equal(t, sim.Undocking, states[0], "dock states while undocking: %v, want [undocking undocked]", states)
		assert.Equal(t, sim.Undocked, states[1], "dock states while undocking: %v, want [undocking undocked]", states)
	}
	// Backed out 0.8 m (to the approach pose), then drove on the held
	// command toward the dock again, which proves commands work once out.
	assert.Equal(t, 1, r.Collisions(), "collisions %d: the robot should have driven back into the wall once after undocking", r.Collisions())
}

func TestUndockStopsAtTheApproachPose(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	dock := sim.Dock{Name: "d", Pose: sim.Pose{X: 19.7, Y: 10}, Approach: sim.Pose{X: 18.9, Y: 10}}
	require.NoError(t, w.AddDock(dock))
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: dock.Pose})
	require.NoError(t, r.Dock("d"))
	require.NoError(t, r.Undock())
	w.Step(15 * time.Second)
	s, _ := r.DockState()
	// Braking from 0.1 m/s at 1 m/s² adds up to half a centimetre.
	p := r.Pose()
	assert.Equal(t, sim.Undocked, s, "after undocking: %v at %v, want undocked at %v", s, p, dock.Approach)
	assert.InDelta(t, dock.Approach.X, p.X, 0.01, "after undocking: %v at %v, want undocked at %v", s, p, dock.Approach)
	assert.Equal(t, 10.0, p.Y, "after undocking: %v at %v, want undocked at %v", s, p, dock.Approach)
	assert.Equal(t, 0.0, p.Yaw, "after undocking: %v at %v, want undocked at %v", s, p, dock.Approach)
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
			require.NoError(t, err)
			drive := func(what string) {
				t.Helper()
				for range 3000 {
					cmd, st := nav.Update(w.Now(), r.Pose())
					if st.State == sim.NavSucceeded {
						return
					}
					require.Equal(t, sim.NavActive, st.State, "%s: %v: %v", what, st.State, st.Err)
					r.SetCmdVel(cmd)
					w.Step(100 * time.Millisecond)
				}
				require.Fail(t, fmt.Sprintf("%s: no result in 300 s", what))
			}
			require.NoError(t, nav.SetGoal(d.Approach))
			drive("to the approach pose")
			err = r.Dock(d.Name)
			require.Error(t, err, "docked from the approach pose, 0.8 m away")
			final, err := sim.NewNavigator(sim.NavigatorConf{GoalTolerance: 0.02, YawTolerance: 0.05, MaxLinear: 0.15})
			require.NoError(t, err)
			nav = final
			require.NoError(t, nav.SetPath([]sim.Pose{r.Pose(), d.Pose}))
			drive("onto the dock")
			require.NoError(t, r.Dock(d.Name), "dock after the final approach at %v", r.Pose())
			assert.Equal(t, 0, r.Collisions(), "%d collisions while docking", r.Collisions())
			assert.LessOrEqual(t, math.Abs(sim.NormalizeAngle(r.Pose().Yaw-d.Pose.Yaw)), 0.05, "docked heading %v, dock %v", r.Pose().Yaw, d.Pose.Yaw)
		})
	}
}
