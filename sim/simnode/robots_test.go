package simnode

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestWriteSummary: the time line, then one line per robot; a wall time
// of zero gives no division by zero.
func TestWriteSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   Stats
		want string
	}{
		{name: "five times real time", st: Stats{SimTime: 10 * time.Second, Wall: 2*time.Second + 400*time.Microsecond},
			want: "btrobot sim: 10s simulated in 2s (5.0 times real time)\n"},
		{name: "no wall time", st: Stats{},
			want: "btrobot sim: 0s simulated in 0s (0.0 times real time)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := sim.LoadWorld(officeWorld, sim.WorldConf{})
			require.NoError(t, err)
			robots, err := AddRobots(w, 2, sim.RobotConf{})
			require.NoError(t, err)
			var b strings.Builder
			WriteSummary(&b, tc.st, w)
			lines := strings.SplitAfter(b.String(), "\n")
			require.Len(t, lines, 4, b.String()) // two robots, and the empty rest
			assert.Equal(t, tc.want, lines[0])
			for k, r := range robots {
				assert.Equal(t, fmt.Sprintf("  %s: 0.00 m travelled, 0 collisions, battery 100%%, %s, at %v\n", r.Name(), sim.Undocked, r.Pose()), lines[k+1])
			}
		})
	}
}
