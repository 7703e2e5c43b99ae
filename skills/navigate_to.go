package skills

import (
	"fmt"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// NavigateTo drives the robot to a goal through the navigation stack's
// move_base action (move_base_msgs/MoveBaseAction): a place of the world by
// name, or a pose "x;y;yaw" in the map frame.
//
//	<NavigateTo goal="kitchen" distance_remaining="{left}" error_code="{why}"/>
//	<NavigateTo goal="2.5;3.5;0" timeout="60s"/>
//
// Contract (bridge.ActionLeaf's, the async leaf of ARCHITECTURE.md):
//   - the tick that starts it reads goal (resolved against the world's
//     places, else read as a pose) and sends the goal; it returns RUNNING;
//   - while the goal runs, each tick writes elapsed (seconds) and, from
//     move_base's feedback, distance_remaining (metres, straight line);
//   - the goal's end wakes the tree; SUCCESS when move_base succeeds,
//     FAILURE otherwise, with error_code: SERVER_UNREACHABLE, GOAL_REJECTED,
//     ABORTED (no path, or the robot stopped making progress), CANCELLED
//     (by someone else) or TIMEOUT (timeout passed; the goal is cancelled);
//   - a pause of the tree (a pause, a breakpoint, a paused Groot2 session:
//     runtime.Suspender) cancels the goal and the robot stops; the leaf stays
//     RUNNING, and when the tree goes on the same goal is sent again;
//   - halting cancels the goal in the background and commands a zero
//     velocity, so the robot stops within one tick even before move_base has
//     seen the cancel; the tick does not wait for the server;
//   - the server and its timeouts come from the robot profile's "navigate"
//     action when it has one (see skills.Deps.Navigation); a timeout the
//     tree gives wins.
//
// A place name written literally is checked when the tree is built, if the
// skills were given the world's places.
type NavigateTo struct {
	*runtime.Leaf
	e      *env
	action *bridge.ActionLeaf

	goal   Pose
	target string // the goal as the tree gave it: a place, or x;y;yaw
	start  time.Time
}

var (
	_ runtime.Suspender = (*NavigateTo)(nil)
	_ runtime.Suspender = (*FollowWaypoints)(nil)
	_ runtime.Suspender = (*Dock)(nil)
	_ runtime.Suspender = (*Undock)(nil)
)

func navigateToType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "NavigateTo", Kind: runtime.ActionKind,
		Summary: "Drives to a place or pose through move_base; RUNNING until there, halting cancels the goal.",
		Ports: append([]runtime.PortSpec{
			runtime.InputPort[string]("goal", "a place of the world, or a pose x;y;yaw in the map frame (m, rad)"),
		}, navPorts()...),
		New: func(c *runtime.Config) (runtime.Node, error) {
			if g, ok := runtime.LiteralAs[string](c, "goal"); ok && e.Places != nil {
				if _, err := resolve(e.Places, g); err != nil {
					return nil, fmt.Errorf("port \"goal\": %v", err)
				}
			}
			nav := &NavigateTo{e: e}
			a, err := e.moveBase(c, nav.makeGoal, nav.onFeedback)
			if err != nil {
				return nil, err
			}
			nav.action, nav.Leaf = a, a.Leaf
			return nav, nil
		},
	}
}

// navPorts are the ports NavigateTo and FollowWaypoints share.
func navPorts() []runtime.PortSpec {
	return []runtime.PortSpec{
		runtime.InputPort[string]("frame", "frame of poses given as x;y;yaw").WithDefault("map"),
		runtime.InputPort[time.Duration]("timeout", "cancel and FAIL (TIMEOUT) after this (0: the profile's, else none)").WithDefault("0"),
		runtime.OutputPort[float64]("distance_remaining", "straight-line distance to the goal, m, from move_base's feedback"),
		runtime.OutputPort[float64]("elapsed", "seconds since the goal was sent"),
		runtime.OutputPort[string]("error_code", "NONE, SERVER_UNREACHABLE, GOAL_REJECTED, ABORTED, CANCELLED or TIMEOUT"),
	}
}

// moveBase builds the action leaf that runs move_base goals for a
// navigation skill.
func (e *env) moveBase(c *runtime.Config, goal func(n *runtime.Leaf) (any, error), feedback func(n *runtime.Leaf, fb any) error) (*bridge.ActionLeaf, error) {
	conf := bridge.ActionLeafConf{
		Conn: e.Conn, Server: e.Navigation, Action: ros.MoveBaseAction{},
		WaitForServerTimeout: bridge.DefaultWaitForServerTimeout, ServerTimeout: bridge.DefaultServerTimeout,
		Goal: goal, OnFeedback: feedback,
	}
	if e.Profile != nil {
		if a, ok := e.Profile.Action(e.Navigation); ok {
			if a.Type.Go != nil && a.Type.Name != "move_base_msgs/MoveBaseAction" {
				return nil, fmt.Errorf("the profile's action %q is a %s; navigation skills need a move_base_msgs/MoveBaseAction", e.Navigation, a.Type.Name)
			}
			conf.Server = a.Server
			conf.WaitForServerTimeout, conf.ServerTimeout, conf.Timeout = a.WaitForServerTimeout, a.ServerTimeout, a.Timeout
		}
	}
	if d, ok := runtime.LiteralAs[time.Duration](c, "timeout"); ok && d > 0 {
		conf.Timeout = d
	}
	return bridge.NewActionLeaf(conf)
}

// moveBaseGoal is the goal for pose in frame, stamped now.
func moveBaseGoal(n *runtime.Leaf, pose Pose) (any, error) {
	frame, err := runtime.GetInput[string](n, "frame")
	if err != nil {
		return nil, err
	}
	return &ros.MoveBaseActionGoal{TargetPose: geometry_msgs.PoseStamped{
		Header: std_msgs.Header{FrameId: frame, Stamp: n.Now()},
		Pose: geometry_msgs.Pose{
			Position:    geometry_msgs.Point{X: pose.X, Y: pose.Y},
			Orientation: quaternion(pose.Yaw),
		},
	}}, nil
}

func (nav *NavigateTo) makeGoal(n *runtime.Leaf) (any, error) {
	target, err := runtime.GetInput[string](n, "goal")
	if err != nil {
		return nil, err
	}
	pose, err := resolve(nav.e.Places, target)
	if err != nil {
		return nil, fmt.Errorf("port \"goal\": %v", err)
	}
	nav.goal, nav.target, nav.start = pose, target, n.Now()
	return moveBaseGoal(n, pose)
}

func (nav *NavigateTo) onFeedback(n *runtime.Leaf, fb any) error {
	f, ok := fb.(*ros.MoveBaseActionFeedback)
	if !ok {
		return nil
	}
	return runtime.SetOutput(n, "distance_remaining", poseOf(f.BasePosition.Pose).DistanceTo(nav.goal))
}

// Tick runs the goal and writes the time elapsed.
func (nav *NavigateTo) Tick() (runtime.Status, error) {
	st, err := nav.action.Tick()
	if err == nil && st == runtime.Failure {
		explainGoal(nav.action, "to "+nav.target)
	}
	if err != nil || nav.start.IsZero() {
		return st, err
	}
	if err := runtime.SetOutput(nav.Leaf, "elapsed", seconds(nav.Now().Sub(nav.start))); err != nil {
		return runtime.Failure, err
	}
	if st == runtime.Success {
		if err := runtime.SetOutput(nav.Leaf, "distance_remaining", 0.0); err != nil {
			return runtime.Failure, err
		}
	}
	return st, nil
}

// Halt cancels the goal and stops the robot.
func (nav *NavigateTo) Halt() {
	nav.action.Halt()
	_ = nav.e.io(nav.Leaf).stop()
}

// Suspend cancels the goal while the tree is paused (runtime.Suspender).
func (nav *NavigateTo) Suspend() <-chan struct{} { return nav.action.Suspend() }

// Resume sends the goal again when the tree goes on (runtime.Suspender).
func (nav *NavigateTo) Resume() { nav.action.Resume() }
