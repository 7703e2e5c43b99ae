package hil

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/sim"
)

// Faults of the controller's world, beside the simulator's (fault.go):
//
//	{at: 20s, master: shutdown}   the master shuts the robot's controller down
//	                              (the shutdown call on its node's slave API)
//	{at: 20s, clock: stop}        /clock stops, for good, for every controller
//	{at: 20s, stall: 2s}          the robot's controller stalls: its tick loop
//	                              is blocked for 2 s (wall time), inside a tick
//
// A controller that cannot take part in the lockstep must not hold the
// simulated world still, or a robot that nothing stops would stand still
// anyway: from the fault on the world goes on at real time (simnode's
// RealTime) — for a stall, for its length; for a shutdown or a stopped
// clock, until the controllers struck have left the lockstep. The robot
// must then be stopped by the controller's own fail-safe (bridge.Run): the
// harness never stops it.

// ctlFault is a fault of the controller's world.
type ctlFault struct {
	kind string        // "master", "clock" or "stall"
	d    time.Duration // stall: how long
}

// ctlFaultKinds are the controller's world's fault keys; ctlRobotFault
// says which strike one robot's controller.
var ctlFaultKinds = []string{"master", "clock", "stall"}

var ctlRobotFault = map[string]bool{"master": true, "stall": true}

// maxStall bounds stall: the harness's tick hook sleeps that long.
const maxStall = time.Minute

// ctlFault decodes a controller's world fault's value; nil after an error.
func (d *decoder) ctlFault(field, kind string, v *yaml.Node) *ctlFault {
	switch kind {
	case "master":
		if v.Kind == yaml.ScalarNode && v.Value == "shutdown" {
			return &ctlFault{kind: kind}
		}
		d.add(v, field, "want shutdown (the master shuts the controller down), got %s", input.Describe(v))
	case "clock":
		if v.Kind == yaml.ScalarNode && v.Value == "stop" {
			return &ctlFault{kind: kind}
		}
		d.add(v, field, "want stop (/clock stops for good), got %s", input.Describe(v))
	case "stall":
		if dur, ok := d.duration(field, v, false); ok {
			if dur > maxStall {
				d.add(v, field, "want a stall of at most %v, got %s", maxStall, v.Value)
				return nil
			}
			return &ctlFault{kind: kind, d: dur}
		}
	}
	return nil
}

// controllerName is the ROS node name of a robot's controller, as runConf
// connects it.
func controllerName(robot string) string { return "/" + robot + "/btrobot" }

// strikeController applies a fault of the controller's world, on the
// simulator's goroutine (inside At or Do: only the node's lock-free
// methods).
func (rec *recorder) strikeController(f Fault, w *sim.World) error {
	h := rec.h
	if h == nil || h.node == nil {
		return fmt.Errorf("no simulator to run the world on")
	}
	now := w.Now()
	switch f.ctl.kind {
	case "stall":
		rr := rec.robot(f.Robot)
		if rr == nil {
			return fmt.Errorf("no robot named %s", f.Robot)
		}
		h.node.RealTime(max(h.node.RealTimeUntil(), now+f.ctl.d))
		rr.stall.Store(int64(f.ctl.d))
	case "master":
		rec.awaitLeave(controllerName(f.Robot))
		h.node.RealTime(forever)
		if err := h.shutdownNode(controllerName(f.Robot), "hil: "+f.Text); err != nil {
			return err
		}
	case "clock":
		for _, r := range rec.s.Robots {
			rec.awaitLeave(controllerName(r.Name))
		}
		h.node.RealTime(forever)
		h.node.StopClock(true)
	}
	return nil
}

// awaitLeave notes that the world runs at real time until the controller
// named leaves the lockstep.
func (rec *recorder) awaitLeave(name string) {
	rec.mu.Lock()
	rec.leaving[name] = true
	rec.mu.Unlock()
}

// onEvent ends the real-time run once every controller struck has left
// the lockstep (the simulator's events say so); on a goroutine of the
// simulator's, never under its lock.
func (rec *recorder) onEvent(line string) {
	var name string
	for _, pat := range []string{"lockstep: peer %s left", "lockstep: peer %s is gone"} {
		if n, err := fmt.Sscanf(line, pat, &name); n == 1 && err == nil {
			break // (a peer that joined scans its name, then fails on the word)
		}
		name = ""
	}
	if name == "" {
		return
	}
	rec.mu.Lock()
	was := rec.leaving[name]
	delete(rec.leaving, name)
	done := was && len(rec.leaving) == 0
	rec.mu.Unlock()
	if done && rec.h != nil && rec.h.node != nil && rec.h.node.RealTimeUntil() == forever {
		rec.h.node.RealTime(rec.h.node.Now())
	}
}
