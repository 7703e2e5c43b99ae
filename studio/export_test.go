package studio

import "github.com/btrobot/btrobot/mission"

// PumpAsleep reports whether no page reads a live run's events (a
// Debugger the server made): its hub found none, and none has connected
// since. The pump then waits for a page, and the tree notes nothing for
// pages.
func PumpAsleep(d mission.Debugger) bool { return d.(*live).run.hub.unread.Load() }

// NodesNoted reports whether the tree notes for a live run the nodes its
// last tick changed (a page reads); call it on the tick's goroutine.
func NodesNoted(d mission.Debugger) bool { return d.(*live).noting }

// Pages reports how many pages read the events of a live run.
func Pages(d mission.Debugger) int { return d.(*live).run.hub.count() }

// SetPacked says whether a live run's busy events may be packed (more
// than a quarter of the nodes changed) or list each changed node.
func SetPacked(d mission.Debugger, on bool) {
	l := d.(*live)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unpacked = !on
}
