// Package mission runs missions: a mission is a behavior tree, a robot
// profile and the world's named places, loaded and checked together (Load)
// and run on a ROS connection (Run) until it succeeds, fails or is stopped,
// the robot stopped at the end whatever ended it. The Report says how it
// ended and why: the outcome, the loop's figures, how the robot was
// stopped, and the chain of nodes from the root to the leaf whose result
// decided the outcome.
//
// Palette is the one registry of node types that every command and test
// loads trees against: the built-in nodes, the generic ROS nodes and the
// robot skills (Nodes: wired to no robot); a program that embeds btrobot
// adds its own node types to a mission's (LoadConf.Nodes). Several missions may run in one
// process, one per robot namespace, each with its own connection, tree,
// blackboard and loop (RunFleet). With no robot attached, CheckFile
// validates trees and profiles, Tick ticks a tree offline (the JSON lines
// of btrobot tick and of the BehaviorTree.CPP differential suite) and
// Bench times its ticks.
//
// A run or an offline tick may be recorded (RunConf.Record,
// TickConf.Record: package record) and served to Groot2 (RunConf.Groot:
// package record/groot2; a breakpoint stops the robot through
// bridge.RunConf.Paused); Replay plays a recording through a Display, and
// ReplayAt gives the state at one instant as JSON.
//
// StartSim starts btrobot's simulator on a ROS master of its own (a
// world, its robots) and gives each robot's mission its RunConf, in
// lockstep with it: what btrobot demo, btrobot hil and the studio's Run
// start.
//
// The package prints nothing: what a run shows is the caller's Display,
// and how it ended is the Report's.
package mission
