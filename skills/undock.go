package skills

import (
	"time"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Undock backs the robot off its dock through the robot's docking server
// (see Docking), to the dock's approach pose.
//
//	<Undock timeout="30s"/>
//
// Contract (bridge.ActionLeaf's):
//   - the tick that starts it sends the undock goal and returns RUNNING;
//   - each tick writes elapsed (seconds);
//   - SUCCESS once the server reports the robot off the dock and, when the
//     robot has a docked flag (skills.Keys), the flag agrees (awaited for
//     up to 2 s, as Dock's); FAILURE otherwise, with
//     error_code as NavigateTo's (ABORTED: the robot was not docked), or
//     UNCONFIRMED when the server succeeded but the flag never agreed;
//   - a pause of the tree (a pause, a breakpoint, a paused Groot2 session:
//     runtime.Suspender) cancels the goal and the robot stops; the leaf stays
//     RUNNING, and when the tree goes on the same goal is sent again;
//   - halting cancels the goal in the background and commands a zero
//     velocity.
type Undock struct {
	*runtime.Leaf
	e       *env
	action  *bridge.ActionLeaf
	start   time.Time
	confirm dockConfirm
}

func undockType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "Undock", Kind: runtime.ActionKind,
		Summary: "Backs off the dock through the docking server; halting cancels.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[time.Duration]("timeout", "cancel and FAIL (TIMEOUT) after this (0: the profile's, else none)").WithDefault("0"),
			runtime.OutputPort[float64]("elapsed", "seconds since undocking started"),
			runtime.OutputPort[string]("error_code", "NONE, SERVER_UNREACHABLE, GOAL_REJECTED, ABORTED, CANCELLED, TIMEOUT or UNCONFIRMED (the docked flag disagreed)"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			u := &Undock{e: e}
			a, err := e.dockAction(c, e.Docking.Undock, func(n *runtime.Leaf) (any, error) {
				u.start = n.Now()
				g := &ros.MoveBaseActionGoal{}
				g.TargetPose.Header.Stamp = n.Now()
				g.TargetPose.Pose.Orientation.W = 1
				return g, nil
			}, nil)
			if err != nil {
				return nil, err
			}
			u.action, u.Leaf = a, a.Leaf
			return u, nil
		},
	}
}

// Tick runs the undock goal and writes the time elapsed.
func (u *Undock) Tick() (runtime.Status, error) {
	return u.confirm.tick(u.e, u.action, u.start, "off the dock", false)
}

// Halt cancels the undock goal and stops the robot.
func (u *Undock) Halt() {
	u.confirm.halt()
	u.action.Halt()
	_ = u.e.io(u.Leaf).stop()
}

// Suspend cancels the goal while the tree is paused (runtime.Suspender).
func (u *Undock) Suspend() <-chan struct{} { return u.action.Suspend() }

// Resume sends the goal again when the tree goes on (runtime.Suspender).
func (u *Undock) Resume() { u.action.Resume() }
