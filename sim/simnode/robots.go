package simnode

import (
	"fmt"

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
