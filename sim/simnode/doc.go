// Package simnode runs a sim.World as a ROS node: the simulator's ROS face.
package simnode
