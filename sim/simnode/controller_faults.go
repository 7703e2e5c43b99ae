package simnode

import (
	"math"
	"time"
)

// Faults of the controllers' world, for a harness that runs the
// controllers in lockstep with the node (package hil): while a controller
// cannot take part in the lockstep — its clock stopped, it was shut down,
// it stalls — the simulated world must not wait for it, or the robot could
// not move meanwhile and a missing fail-safe would go unseen. These
// methods take no lock: they may be called from anywhere, also inside a
// function given to At or Do.

// RealTime lets the world go on at real time (one simulated second per
// wall-clock second) without waiting for the lockstep peers, until
// simulated time until (math.MaxInt64: for good); the lockstep holds again
// from then on. A later call replaces the time; a time that has passed
// ends the real-time run.
func (n *Node) RealTime(until time.Duration) {
	n.realUntil.Store(int64(until))
	n.signal()
}

// RealTimeUntil returns the time RealTime last set (0: never).
func (n *Node) RealTimeUntil() time.Duration { return time.Duration(n.realUntil.Load()) }

// StopClock stops (true) or resumes (false) the node's /clock messages,
// heartbeats included; the physics goes on as the lockstep and RealTime
// allow. Controllers under /use_sim_time then see their clock stop.
func (n *Node) StopClock(stopped bool) { n.clockStopped.Store(stopped) }

// ClockStopped reports whether StopClock stopped /clock.
func (n *Node) ClockStopped() bool { return n.clockStopped.Load() }

// realTime reports whether simulated time now is in a RealTime run.
func (n *Node) realTime(now time.Duration) bool {
	u := n.realUntil.Load()
	return u > 0 && int64(now) < u
}

// Forever is RealTime's until for good.
const Forever time.Duration = math.MaxInt64
