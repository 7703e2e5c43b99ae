package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// TestClearance: the gap between a robot's footprint and the nearest wall,
// placed obstacle or robot, capped at the limit.
func TestClearance(t *testing.T) {
	cases := []struct {
		name  string
		at    sim.Pose
		box   *sim.Rect
		other *sim.Pose
		limit float64
		want  float64
	}{
		// The west wall's face is at 0.05 m; the robot's radius is 0.18 m.
		{"a wall", sim.Pose{X: 1, Y: 10}, nil, nil, 2, 0.77},
		{"beyond the limit", sim.Pose{X: 1, Y: 10}, nil, nil, 0.5, 0.5},
		{"nothing near", sim.Pose{X: 10, Y: 10}, nil, nil, 1, 1},
		{"a placed box", sim.Pose{X: 10, Y: 10}, &sim.Rect{MinX: 10.5, MinY: 9, MaxX: 11, MaxY: 11}, nil, 1, 0.32},
		{"another robot", sim.Pose{X: 10, Y: 10}, nil, &sim.Pose{X: 11, Y: 10}, 2, 0.64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := roomWorld(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: tc.at})
			if tc.box != nil {
				require.NoError(t, w.PlaceObstacle("box", *tc.box))
			}
			if tc.other != nil {
				addRobot(t, w, sim.RobotConf{Name: "o", Spawn: *tc.other})
			}
			assert.InDelta(t, tc.want, w.Clearance(r, tc.limit), 0.051, "within a cell of the grid")
		})
	}
}
