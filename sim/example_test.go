package sim_test

import (
	"fmt"
	"time"

	"github.com/btrobot/btrobot/sim"
)

// Example shows the loop a ROS node runs around the core: velocity commands
// in, the world stepped at a fixed rate, a Navigator standing in for
// move_base.
func Example() {
	w, err := sim.LoadWorld("../worlds/office", sim.WorldConf{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	spawn, _ := w.Places().Spawn("robot1")
	robot, err := w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: spawn.Pose})
	if err != nil {
		fmt.Println(err)
		return
	}
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w, RobotRadius: robot.Conf().Radius})
	if err != nil {
		fmt.Println(err)
		return
	}
	kitchen, _ := w.Places().Waypoint("kitchen")
	if err := nav.SetGoal(kitchen.Pose); err != nil {
		fmt.Println(err)
		return
	}
	for {
		// 10 Hz: what move_base's controller loop would do.
		cmd, status := nav.Update(w.Now(), robot.Pose())
		if status.State != sim.NavActive {
			fmt.Println(status.State, "after", w.Now().Round(time.Second))
			break
		}
		robot.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	scan, _ := robot.Scan()
	fmt.Printf("%d beams, battery %.0f%%, %d collisions\n", len(scan.Ranges), 100*robot.Battery().Percentage, robot.Collisions())
	// Output:
	// succeeded after 38s
	// 360 beams, battery 99%, 0 collisions
}
