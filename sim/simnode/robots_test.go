package simnode

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

func TestAddRobots(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string // error; "" for none
	}{
		{4, ""},
		{1, ""},
		{0, "add robots: 0 robots; want at least 1"},
		{5, "add robots: the world has no spawn pose named robot5 (it has 4); add one to its places.yaml"},
	} {
		w, err := sim.LoadWorld(officeWorld, sim.WorldConf{})
		require.NoError(t, err)
		robots, err := AddRobots(w, tc.n, sim.RobotConf{Name: "ignored", OdomNoise: 0.01})
		if tc.want != "" {
			assert.ErrorContains(t, err, tc.want, "%d robots: error %v, want %q", tc.n, err, tc.want)
			continue
		}
		require.NoError(t, err, "%d robots: %v, %d added", tc.n, err, len(robots))
		require.Len(t, robots, tc.n, "%d robots: %v, %d added", tc.n, err, len(robots))
		for k, r := range robots {
			sp := w.Places().Spawns[k]
			if assert.Equal(t, sp.Name, r.Name(), "robot %s at %v (noise %v), want %s at %v", r.Name(), r.Pose(), r.Conf().OdomNoise, sp.Name, sp.Pose) {
				assert.Equal(t, sp.Pose, r.Pose(), "robot %s at %v (noise %v), want %s at %v", r.Name(), r.Pose(), r.Conf().OdomNoise, sp.Name, sp.Pose)
				assert.Equal(t, 0.01, r.Conf().OdomNoise, "robot %s at %v (noise %v), want %s at %v", r.Name(), r.Pose(), r.Conf().OdomNoise, sp.Name, sp.Pose)
			}
		}
	}
}
