package simnode

import (
	"fmt"
	"io"
	"time"

	"github.com/btrobot/btrobot/sim"
)

// AddRobots adds n robots named robot1 ... robotN to the world, each at the
// spawn pose of its name in the world's places, configured as template
// (whose Name and Spawn are ignored). The robots are named as btrobot sim
// names them, so that /robot1 is the same robot everywhere.
func AddRobots(w *sim.World, n int, template sim.RobotConf) ([]*sim.Robot, error) {
	if n < 1 {
		return nil, fmt.Errorf("add robots: %d robots; want at least 1", n)
	}
	var robots []*sim.Robot
	for k := 1; k <= n; k++ {
		conf := template
		conf.Name = fmt.Sprintf("robot%d", k)
		spawn, ok := w.Places().Spawn(conf.Name)
		if !ok {
			return nil, fmt.Errorf("add robots: the world has no spawn pose named %s (it has %d); add one to its places.yaml", conf.Name, len(w.Places().Spawns))
		}
		conf.Spawn = spawn.Pose
		r, err := w.AddRobot(conf)
		if err != nil {
			return nil, err
		}
		robots = append(robots, r)
	}
	return robots, nil
}

// WriteSummary writes what a run came to, as btrobot sim ends with it:
// the simulated and wall time, then a line per robot of world (distance
// travelled, collisions, battery, dock state, pose).
func WriteSummary(w io.Writer, st Stats, world *sim.World) {
	fmt.Fprintf(w, "btrobot sim: %v simulated in %v (%.1f times real time)\n",
		st.SimTime, st.Wall.Round(time.Millisecond), st.SimTime.Seconds()/max(st.Wall.Seconds(), 1e-9))
	for _, r := range world.Robots() {
		state, at := r.DockState()
		where := ""
		if state == sim.Docked {
			where = " at " + at.Name
		}
		fmt.Fprintf(w, "  %s: %.2f m travelled, %d collisions, battery %.0f%%, %s%s, at %v\n",
			r.Name(), r.Travelled(), r.Collisions(), 100*r.Battery().Percentage, state, where, r.Pose())
	}
}
