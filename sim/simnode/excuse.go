package simnode

import "time"

// A harness that drives a controller in lockstep with the node (package
// hil's served scenarios) may need the world to go on while the
// controller holds a tick on purpose: a mission server's ~pause holds the
// tree in its tick, the robot stopped, and the world must go on meanwhile
// (a pause of 5 s is 5 s of the world), however fast the harness's own
// lockstep peer lets it. These methods are the contract both sides use:
// Joins counts a peer's joins as the node takes them in (no event text to
// match), Excuse lets the world go on without a held peer, and Driving
// tells whether the robot's servers still drive its base (the pause's
// cancels taken in).

// Joins returns how many times the lockstep peer named name (a node name,
// "/robot1/btrobot") has joined the lockstep, counted as the node takes
// each join in (its event "lockstep: peer NAME joined" says the same).
func (n *Node) Joins(name string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.joins[name]
}

// Excuse lets the world go on without waiting for the lockstep peer named
// name until simulated time until: the node steps from a time before it
// as the other peers allow, whatever that peer said last. From until on
// (or at once, for a time that has passed) the peer holds the world
// again. The peer sends nothing the world must wait for meanwhile (a held
// tick); what it sent before still counts. Unlike RealTime, the world
// keeps pace with the other peers, not with the wall clock, so a run that
// excuses a peer repeats exactly.
func (n *Node) Excuse(name string, until time.Duration) {
	n.mu.Lock()
	if n.excused == nil {
		n.excused = map[string]time.Duration{}
	}
	n.excused[name] = until
	n.mu.Unlock()
	n.signal()
}

// excusedAt reports whether the peer named name is excused at simulated
// time now (under n.mu).
func (n *Node) excusedAt(name string, now time.Duration) bool {
	return n.excused[name] > now
}

// Driving reports whether a goal of the robot's action servers (move_base,
// dock, undock) drives its base now; false for a robot the node does not
// simulate. A harness that paused the robot's tree waits until it does
// not: the pause's cancels have been taken in.
func (n *Node) Driving(robot string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, f := range n.faces {
		if f.r.Name() == robot {
			return f.drive != nil
		}
	}
	return false
}
