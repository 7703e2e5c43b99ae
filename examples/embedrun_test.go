package examples

import (
	"context"
	"fmt"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// Example_embedRun runs a mission from your own Go program: a tree file,
// a robot profile, the world's places, and a node type of your own beside
// btrobot's palette (NavigateTo, BatteryAbove...). mission.Run ticks it on
// a ROS connection until it ends, then stops the robot, and its Report
// says how it ended and why.
//
// Here the robot is btrobot's simulator, on a ROS master of its own on
// loopback, in lockstep with the mission: simulated time waits for every
// tick, so the run takes the same course on any machine, and faster than
// real time. On a real robot, leave the simulator out and give
// RunConf.ROS your master's URI.
func Example_embedRun() {
	// Your own node: Photograph, a synchronous action. It keeps the
	// photos in a Go slice, read after the run (Run's ticks are over then).
	var photos []string
	photograph := runtime.ActionType("Photograph", []runtime.PortSpec{
		runtime.InputPort[string]("place", "the place in the picture"),
	}, func(n *runtime.Leaf) (runtime.Status, error) {
		place, err := runtime.GetInput[string](n, "place")
		photos = append(photos, place)
		return runtime.Success, err
	})

	// The mission: checked against the palette and Photograph together.
	m, err := mission.Load(mission.LoadConf{
		Tree:    "testdata/photo_round.xml",
		Profile: "../robots/sim.yaml", // the robot's topics and actions
		Places:  "../worlds/office",   // where "reception" and "kitchen" are
		Nodes:   []runtime.NodeType{photograph},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The simulated office with one robot at its spawn.
	simulator, err := mission.StartSim(mission.SimConf{
		WorldDir: "../worlds/office", Seed: 1, Robots: []mission.SimRobot{{Name: "robot1"}}, // at its spawn place
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer simulator.Close()

	// The run: robot1's namespace on the simulator's master, in lockstep.
	conf, err := simulator.RunConf(m, "robot1")
	if err != nil {
		fmt.Println(err)
		return
	}
	conf.Seed = 1
	report, err := mission.Run(context.Background(), conf)
	if err != nil {
		fmt.Println(err) // could not start: no master, a tree that does not build
		return
	}
	fmt.Println("outcome:", report.Outcome)
	fmt.Println("photos:", photos)
	fmt.Println("at the end:", report.Stop)
	// Output:
	// outcome: succeeded
	// photos: [reception kitchen]
	// at the end: zero velocity sent on /robot1/cmd_vel and delivered to 1 subscriber
}
