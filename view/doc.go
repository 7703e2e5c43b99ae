// Package view holds the displays of a running tree: the live view, which
// redraws the tree in place in a terminal (the running path highlighted,
// finished subtrees collapsed when the tree does not fit) or writes one
// plain line per change of what a node did; and the explanation of how a
// run ended, one line a node from the root to the leaf that decided it.
//
// A display is a runtime.Observer of the tree's transitions plus a sink for
// the loop's tick reports (Live.OnTick): it never knows where the tree runs
// (on a robot, offline, or replayed from a recording) and never makes the
// tick wait for the output.
package view
