package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// roomGrid returns a w x h metre map at res metres per cell, origin at
// (0, 0), free inside a wall one cell thick along its border: the inner wall
// faces are at res and w-res (x), res and h-res (y).
func roomGrid(t testing.TB, w, h, res float64) *sim.Grid {
	t.Helper()
	nx, ny := int(math.Round(w/res)), int(math.Round(h/res))
	g, err := sim.NewGrid(nx, ny, res, sim.Pose{})
	require.NoError(t, err)
	for i := 0; i < nx; i++ {
		g.Set(i, 0, sim.Occupied)
		g.Set(i, ny-1, sim.Occupied)
	}
	for j := 0; j < ny; j++ {
		g.Set(0, j, sim.Occupied)
		g.Set(nx-1, j, sim.Occupied)
	}
	return g
}

// roomWorld returns a world on a 20 m x 20 m room at 5 cm per cell.
func roomWorld(t testing.TB, conf sim.WorldConf) *sim.World {
	t.Helper()
	if conf.Map == nil {
		conf.Map = roomGrid(t, 20, 20, 0.05)
	}
	w, err := sim.NewWorld(conf)
	require.NoError(t, err)
	return w
}

func addRobot(t testing.TB, w *sim.World, conf sim.RobotConf) *sim.Robot {
	t.Helper()
	r, err := w.AddRobot(conf)
	require.NoError(t, err)
	return r
}

// hold sends cmd to r every 100 ms (well inside the cmd_vel timeout), as a
// teleop node would, for d of simulated time.
func hold(w *sim.World, r *sim.Robot, cmd sim.Twist, d time.Duration) {
	end := w.Now() + d
	for w.Now() < end {
		r.SetCmdVel(cmd)
		w.Step(min(100*time.Millisecond, end-w.Now()))
	}
}

func loadOffice(t testing.TB, conf sim.WorldConf) *sim.World {
	t.Helper()
	w, err := sim.LoadWorld("../worlds/office", conf)
	require.NoError(t, err)
	return w
}
