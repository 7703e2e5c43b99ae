package skills

import (
	"cmp"
	"fmt"
	"time"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Dock drives the robot onto a charging dock through the robot's docking
// server (see Docking): to the dock's approach pose, then straight onto the
// charger.
//
//	<Dock dock="dock_west" timeout="120s" error_code="{why}"/>
//	<Dock/>                                          the nearest dock
//
// Contract (bridge.ActionLeaf's, the async leaf of ARCHITECTURE.md):
//   - the tick that starts it sends the dock goal and returns RUNNING; a
//     robot already on that dock succeeds at once (the server says so);
//   - while docking, each tick writes elapsed (seconds) and, when the
//     world's places know the dock, distance_remaining to the docked pose
//     (metres, from the server's feedback);
//   - SUCCESS once the server reports the robot on the charger and, when
//     the robot has a docked flag (skills.Keys), the flag agrees: it is
//     awaited (RUNNING) for up to 2 s, since it travels apart from the
//     server's result; FAILURE otherwise, with
//     error_code as NavigateTo's (ABORTED: no path to the dock, or the
//     robot could not line up within the dock's tolerance), or
//     UNCONFIRMED when the server succeeded but the flag never agreed;
//   - a pause of the tree (a pause, a breakpoint, a paused Groot2 session:
//     runtime.Suspender) cancels the goal and the robot stops; the leaf stays
//     RUNNING, and when the tree goes on the same goal is sent again;
//   - halting cancels the goal in the background and commands a zero
//     velocity: the robot stops within one tick.
type Dock struct {
	*runtime.Leaf
	e      *env
	action *bridge.ActionLeaf

	name    string // the dock asked for; empty: the nearest
	target  Pose
	known   bool
	start   time.Time
	confirm dockConfirm
}

func dockType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "Dock", Kind: runtime.ActionKind,
		Summary: "Docks on a charger (named, or the nearest) through the docking server; halting cancels.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("dock", "the dock's name (empty: the nearest)").WithDefault(""),
			runtime.InputPort[time.Duration]("timeout", "cancel and FAIL (TIMEOUT) after this (0: the profile's, else none)").WithDefault("0"),
			runtime.OutputPort[float64]("distance_remaining", "distance to the docked pose, m (when the places know the dock)"),
			runtime.OutputPort[float64]("elapsed", "seconds since docking started"),
			runtime.OutputPort[string]("error_code", "NONE, SERVER_UNREACHABLE, GOAL_REJECTED, ABORTED, CANCELLED, TIMEOUT or UNCONFIRMED (the docked flag disagreed)"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if name, ok := runtime.LiteralAs[string](c, "dock"); ok && name != "" && e.Places != nil {
				if _, known := e.Places.Dock(name); !known {
					return nil, fmt.Errorf("port \"dock\": the world has no dock %q%s", name, hint(e.Places, name))
				}
			}
			d := &Dock{e: e}
			a, err := e.dockAction(c, e.Docking.Dock, d.makeGoal, d.onFeedback)
			if err != nil {
				return nil, err
			}
			d.action, d.Leaf = a, a.Leaf
			return d, nil
		},
	}
}

func (d *Dock) makeGoal(n *runtime.Leaf) (any, error) {
	name, err := runtime.GetInput[string](n, "dock")
	if err != nil {
		return nil, err
	}
	d.name = name
	dk, known := d.e.Places.Dock(name)
	d.target, d.known = Pose(dk.Pose), known && (name != "" || len(d.e.Places.Docks) == 1)
	d.start = n.Now()
	g := &ros.MoveBaseActionGoal{}
	g.TargetPose.Header.FrameId = name
	g.TargetPose.Header.Stamp = n.Now()
	g.TargetPose.Pose.Orientation.W = 1
	return g, nil
}

func (d *Dock) onFeedback(n *runtime.Leaf, fb any) error {
	m, ok := fb.(*ros.MoveBaseActionFeedback)
	if !ok || !d.known {
		return nil
	}
	return runtime.SetOutput(n, "distance_remaining", poseOf(m.BasePosition.Pose).DistanceTo(d.target))
}

// Tick runs the dock goal and writes the time elapsed.
func (d *Dock) Tick() (runtime.Status, error) {
	return d.confirm.tick(d.e, d.action, d.start, "to "+cmp.Or(d.name, "the nearest dock"), true)
}

// Halt cancels the dock goal and stops the robot.
func (d *Dock) Halt() {
	d.confirm.halt()
	d.action.Halt()
	_ = d.e.io(d.Leaf).stop()
}

// Suspend cancels the goal while the tree is paused (runtime.Suspender).
func (d *Dock) Suspend() <-chan struct{} { return d.action.Suspend() }

// Resume sends the goal again when the tree goes on (runtime.Suspender).
func (d *Dock) Resume() { d.action.Resume() }
