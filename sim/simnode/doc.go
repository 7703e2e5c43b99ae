// Package simnode runs a sim.World as a ROS node, so that a tree (or any
// ROS program) cannot tell the simulator from a robot except by its
// behaviour. The core in package sim stays free of ROS, goroutines and
// clocks; this package adds the node around it:
//
//	conn, err := ros.Connect(ros.Conf{MasterURI: uri, Name: "sim"})
//	w, err := sim.LoadWorld("worlds/office", sim.WorldConf{Seed: 1})
//	sp, _ := w.Places().Spawn("robot1")
//	_, err = w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
//	node, err := simnode.Start(simnode.Conf{World: w, Conn: conn, Speed: 10})
//	defer node.Close()
//
// Each robot is served under its name (robot1/cmd_vel, robot1/odom, frames
// robot1/odom and robot1/base_link), or at the root with RootNamespace:
//
//	cmd_vel        geometry_msgs/Twist        subscribed
//	odom           nav_msgs/Odometry          OdomRate (20 Hz)
//	scan           sensor_msgs/LaserScan      the laser's rate (10 Hz)
//	battery_state  sensor_msgs/BatteryState   BatteryRate (1 Hz)
//	bumper         std_msgs/Bool              BumperRate (10 Hz) and on change
//	docked         std_msgs/Bool              with battery_state and on change
//	move_base      move_base_msgs/MoveBaseAction
//	dock, undock   move_base_msgs/MoveBaseAction (frame_id names the dock)
//
// and the node publishes /tf (map -> odom -> base_link per robot),
// /tf_static (base_link -> base_scan), /map (latched) and, when it owns
// time, /clock after every physics step, having set /use_sim_time. Under
// its private namespace (/sim/ for a node named sim) are the fault
// services and topics (faults.go), ~render and ~events, and ~lockstep,
// where lockstep peers hold time back (bridge.LockstepPeer).
//
// Everything that changes the world happens between two physics steps, on
// the node's loop, in an order that depends only on what arrived before
// each step: with peers that acknowledge what they send (lockstep), a run
// repeats bit for bit whatever the machine's load. From Go, Do runs code
// between steps and At at an exact simulated time; both use the core's API.
//
// docs/simulator.md describes the interface for users.
package simnode
