package simnode

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// The node's half of the lockstep protocol; bridge/sim_lockstep.go has the
// peer's half and describes the messages. The node may take the step from
// simulated time T when every peer has let it run past T and it has received
// every cmd_vel message the peers say they sent. Since everything the node
// does is a function of the seed and of what it receives at which step,
// peers that acknowledge every time they act make runs repeat exactly,
// however loaded the machine.

// onLockstep handles a peer's acknowledgement.
func (n *Node) onLockstep(h *std_msgs.Header) {
	name := h.FrameId
	n.mu.Lock()
	if name == "" {
		n.event("lockstep: ignored an acknowledgement without a peer name (frame_id)")
		n.mu.Unlock()
		n.flushEvents()
		return
	}
	p := n.peers[name]
	switch {
	case !h.Stamp.After(n.epoch):
		if p != nil {
			// The commands it sent before leaving still count.
			n.leftSent += max(p.sent, uint64(h.Seq))
			delete(n.peers, name)
			n.event("lockstep: peer %s left at %v", name, n.w.Now())
		}
	case p == nil:
		p = &peer{}
		n.peers[name] = p
		n.joins[name]++
		n.event("%s%v", PeerJoined(name), n.w.Now())
		if !n.started && len(n.peers) >= n.conf.Peers {
			n.started = true
		}
		fallthrough
	default:
		p.until = h.Stamp.Sub(n.epoch)
		p.sent = uint64(h.Seq)
		p.quiet, p.warned = time.Time{}, false
	}
	n.mu.Unlock()
	n.signal()
	n.flushEvents()
}

// holdReason says why the step from now may not be taken yet, "" if it may.
func (n *Node) holdReason(now time.Duration) string {
	if !n.started {
		if len(n.peers) < n.conf.Peers {
			return fmt.Sprintf("waiting for %d lockstep peers (%d joined)", n.conf.Peers, len(n.peers))
		}
		n.started = true
	}
	sent := n.leftSent
	reason := ""
	for name, p := range n.peers {
		sent += p.sent
		if p.until <= now && !n.excusedAt(name, now) {
			if p.quiet.IsZero() {
				p.quiet = time.Now()
			}
			if reason == "" {
				reason = "waiting for lockstep peer " + name
			}
		}
	}
	if reason != "" {
		return reason
	}
	if n.cmdsIn < sent {
		switch {
		case n.countWait.IsZero():
			n.countWait = time.Now()
		case time.Since(n.countWait) > countPatience:
			n.event("lockstep: %d of the messages the lockstep peers sent never came; going on", sent-n.cmdsIn)
			n.cmdsIn, n.countWait = sent, time.Time{}
			return ""
		}
		return fmt.Sprintf("waiting for %d messages (cmd_vel, goals, cancels) the lockstep peers sent", sent-n.cmdsIn)
	}
	n.countWait = time.Time{}
	return ""
}

// checkPeers asks the master about peers the node has waited on for
// PeerTimeout, and drops those that are gone: a peer that crashed must not
// stop the simulation for good.
func (n *Node) checkPeers() {
	n.mu.Lock()
	var ask []string
	for name, p := range n.peers {
		if !p.quiet.IsZero() && !p.asking && time.Since(p.quiet) > n.conf.PeerTimeout {
			p.asking = true
			ask = append(ask, name)
		}
	}
	n.mu.Unlock()
	for _, name := range ask {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			alive, err := n.conn.NodePublishes(name, n.lockstepTopic())
			n.mu.Lock()
			p := n.peers[name]
			if p != nil {
				p.asking = false
				switch {
				case err != nil:
					n.event("lockstep: waiting for peer %s, and cannot ask the master about it: %v", name, err)
					p.quiet = time.Now()
				case !alive:
					delete(n.peers, name)
					n.event("lockstep: peer %s is gone; no longer waiting for it", name)
				default:
					if !p.warned {
						p.warned = true
						n.event("lockstep: still waiting for peer %s (it let the simulation run to %v)", name, p.until)
					}
					p.quiet = time.Now()
				}
			}
			n.mu.Unlock()
			n.signal()
			n.flushEvents()
		}()
	}
}

func (n *Node) lockstepTopic() string { return n.conn.Resolve("~lockstep") }

// taken counts a goal or a cancel one of the robots' action servers has
// taken in, among the messages the peers sent (bridge/lockstep_actions.go).
func (n *Node) taken() {
	n.mu.Lock()
	n.cmdsIn++
	n.mu.Unlock()
	n.signal()
}

// countPatience bounds the wait for messages the peers say they sent: one
// that never comes (a goal to a server that closed as it was sent) must
// not stop the simulation.
const countPatience = time.Second

// unpublished reports whether a goal has ended in the world without its
// terminal state being out yet; under n.mu.
func (n *Node) unpublished() bool {
	for _, f := range n.faces {
		if f.unpublished > 0 {
			return true
		}
	}
	return false
}

// awaitPublished waits, up to countPatience, until the terminal states of
// the goals ended so far are out, so that a peer's tick after this step
// finds them (bridge/lockstep_actions.go).
func (n *Node) awaitPublished() {
	deadline := time.Now().Add(countPatience)
	for {
		n.mu.Lock()
		busy := n.unpublished()
		if busy && time.Now().After(deadline) {
			for _, f := range n.faces {
				f.unpublished = 0
			}
			n.event("lockstep: a goal's end was not published within %v", countPatience)
			busy = false
		}
		n.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// lockExecuting locks n.mu once every goal accepted and not ended has its
// Execute started (countPatience at most), so that a step drives a robot
// only towards goals whose feedback goes out: a client is told where the
// robot is from the first step it drives, as move_base's feedback does,
// even when a short goal ends within a few steps of a fast simulation
// (seen: a 1 m goal ended at speed 0 with no feedback, its Execute's
// goroutine not yet run). The wait is in wall time: simulated time does
// not pass. A closing node does not wait.
func (n *Node) lockExecuting() {
	deadline := time.Now().Add(countPatience)
	for {
		n.mu.Lock()
		if !n.unexecuted() || n.ctx.Err() != nil {
			return
		}
		if time.Now().After(deadline) {
			n.event("lockstep: a goal's Execute did not start within %v", countPatience)
			n.forgetUnexecuted()
			return
		}
		n.mu.Unlock()
		time.Sleep(20 * time.Microsecond)
	}
}

// unexecuted reports whether a goal was accepted and has not ended
// without its Execute having started; under n.mu.
func (n *Node) unexecuted() bool {
	for _, f := range n.faces {
		for _, m := range f.pending {
			if !m.ended && !m.executing && !m.unwaited {
				return true
			}
		}
	}
	return false
}

// forgetUnexecuted stops waiting for the Execute of the goals waited for
// so far; under n.mu.
func (n *Node) forgetUnexecuted() {
	for _, f := range n.faces {
		for _, m := range f.pending {
			m.unwaited = true
		}
	}
}

// publishGoalsEnded says, for each robot, how many of its goals have ended
// by now and the newest values said on its topics that go out on change
// (bridge.GoalsEndedTopic); the loop calls it where it waits for a peer.
func (n *Node) publishGoalsEnded() {
	n.mu.Lock()
	stamp := n.Stamp(n.w.Now())
	msgs := make([]*std_msgs.Header, len(n.faces))
	for i, f := range n.faces {
		msgs[i] = &std_msgs.Header{Seq: f.goalsEnded, Stamp: stamp, FrameId: saidValues(f.said, f.sent, f.topicFaults())}
	}
	n.mu.Unlock()
	for i, f := range n.faces {
		if f.endedPub != nil {
			f.endedPub.Publish(msgs[i])
		}
	}
}

// saidValues writes the newest values said on the topics that go out on
// change, the stamps of the newest messages sent on the sensor topics, and
// the sensor topics a fault freezes or delays, as bridge.GoalsEndedTopic's
// frame_id has them: "/robot1/bumper=false /robot1/docked=true
// /robot1/odom@12340000000 /robot1/scan=frozen", by topic (stamps in
// nanoseconds of ROS time).
func saidValues(said map[string]bool, sent map[string]time.Time, faults map[string]string) string {
	words := make([]string, 0, len(said)+len(sent)+len(faults))
	for t, v := range said {
		words = append(words, t+"="+strconv.FormatBool(v))
	}
	for t, st := range sent {
		words = append(words, t+"@"+strconv.FormatInt(st.UnixNano(), 10))
	}
	for t, f := range faults {
		words = append(words, t+"="+f)
	}
	sort.Strings(words)
	return strings.Join(words, " ")
}

// PeerJoined is the start of the event the node logs when it takes a
// lockstep peer in ("lockstep: peer /robot1/btrobot joined at 39.2s"): the
// one contract for whoever counts joins by the event log (hil's goal
// driver counts a served goal's runs so), rather than a copy of the text.
func PeerJoined(name string) string { return "lockstep: peer " + name + " joined at " }
