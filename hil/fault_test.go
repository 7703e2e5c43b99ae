package hil

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// TestFaultsChangeTheWorld: each kind of fault, applied as a run applies
// it, does to the simulated world what its line says, in turn.
func TestFaultsChangeTheWorld(t *testing.T) {
	s, err := Parse(file, []byte(base+`faults:
  - {at: 1s, battery: 0.12}
  - {at: 1s, obstacle: {name: box, rect: [4.8, -1.1, 5.2, 1.1]}}
  - {at: 1s, obstacle: {name: k, place: kitchen, size: 0.5}}
  - {at: 1s, clear_obstacle: box}
  - {at: 1s, move_base: stop}
  - {at: 1s, move_base: restart}
  - {at: 1s, freeze: odom}
  - {at: 1s, unfreeze: odom}
  - {at: 1s, delay: {topic: scan, by: 2s}}
  - {at: 1s, stall_wheel: right}
  - {at: 1s, free_wheel: right}
  - {at: 1s, clear_obstacle: nothing}
`))
	require.NoError(t, err)
	w, err := sim.LoadWorld(s.World, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	r, err := w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: s.Robots[0].Spawn})
	require.NoError(t, err)
	obstacles := func() []string {
		var names []string
		for _, o := range w.Obstacles() {
			names = append(names, o.Name)
		}
		return names
	}
	for i, check := range []func(err error){
		func(err error) { require.NoError(t, err); assert.InDelta(t, 0.12, r.Battery().Percentage, 1e-9) },
		func(err error) { require.NoError(t, err); assert.Equal(t, []string{"box"}, obstacles()) },
		func(err error) {
			require.NoError(t, err)
			require.Equal(t, []string{"box", "k"}, obstacles())
			box := w.Obstacles()[1].Rect
			assert.Equal(t, sim.Rect{MinX: 2.25, MinY: 3.25, MaxX: 2.75, MaxY: 3.75}, box, "centred on the kitchen")
		},
		func(err error) { require.NoError(t, err); assert.Equal(t, []string{"k"}, obstacles()) },
		func(err error) { require.NoError(t, err); assert.True(t, r.NavigationDown()) },
		func(err error) { require.NoError(t, err); assert.False(t, r.NavigationDown()) },
		func(err error) { require.NoError(t, err); assert.True(t, r.TopicFault("odom").Frozen) },
		func(err error) { require.NoError(t, err); assert.False(t, r.TopicFault("odom").Frozen) },
		func(err error) { require.NoError(t, err); assert.Equal(t, "2s", r.TopicFault("scan").Delay.String()) },
		func(err error) { require.NoError(t, err); assert.True(t, r.WheelStalled(sim.RightWheel)) },
		func(err error) { require.NoError(t, err); assert.False(t, r.WheelStalled(sim.RightWheel)) },
		func(err error) {
			assert.Error(t, err, "no obstacle of that name: the run reports it at the fault's line")
		},
	} {
		require.Less(t, i, len(s.Faults))
		check(s.Faults[i].apply(w))
	}
}

// TestTheWorldWaitsAgainOnceTheControllersLeft: the real-time run a
// shutdown or a stopped clock began ends when every controller struck has
// left the lockstep (or is gone), not when one joins or another leaves.
func TestTheWorldWaitsAgainOnceTheControllersLeft(t *testing.T) {
	rec := &recorder{leaving: map[string]bool{}}
	rec.awaitLeave("/robot1/btrobot")
	rec.awaitLeave("/robot2/btrobot")
	cases := []struct {
		line    string
		waiting []string
	}{
		{"lockstep: peer /robot1/btrobot joined at 0s", []string{"/robot1/btrobot", "/robot2/btrobot"}},
		{"lockstep: peer /robot3/btrobot left at 5s", []string{"/robot1/btrobot", "/robot2/btrobot"}},
		{"lockstep: peer /robot1/btrobot left at 5.18s", []string{"/robot2/btrobot"}},
		{"lockstep: still waiting for peer /robot2/btrobot (it let the simulation run to 5s)", []string{"/robot2/btrobot"}},
		{"lockstep: peer /robot2/btrobot is gone; no longer waiting for it", nil},
	}
	for _, tc := range cases {
		rec.onEvent(tc.line)
		var waiting []string
		for name := range rec.leaving {
			waiting = append(waiting, name)
		}
		slices.Sort(waiting)
		assert.Equal(t, tc.waiting, waiting, tc.line)
	}
}
