package skills

import (
	"fmt"
	"slices"
	"time"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// FollowWaypoints drives the robot through a list of waypoints in order, one
// move_base goal each: places of the world by name, or poses "x,y,yaw"
// (commas inside a pose, since ';' separates the waypoints).
//
//	<FollowWaypoints waypoints="reception;kitchen;lab" current_waypoint="{at}"/>
//
// Contract (bridge.ActionLeaf's for each goal):
//   - RUNNING while it works through the list; each reached waypoint sends
//     the next goal in the same tick; current_waypoint and waypoint_index (from
//     0) say which one it is heading for, distance_remaining how far it is
//     (from move_base's feedback), elapsed how long the route has taken;
//   - SUCCESS when the last waypoint is reached (an empty list succeeds at
//     once); FAILURE as soon as one goal fails, with error_code as
//     NavigateTo's;
//   - resumable: after a halt (a battery alarm, say) or a failure, the next
//     start resumes at the waypoint it was heading for, so a Retry or an
//     interrupted patrol does not drive the whole route again. It starts over
//     from the first waypoint when the list differs from the last run's, when
//     restart is true, and after the route was completed;
//   - a pause of the tree (a pause, a breakpoint, a paused Groot2 session:
//     runtime.Suspender) cancels the running goal and the robot stops; the leaf stays
//     RUNNING, and when the tree goes on the same waypoint's goal is sent again;
//   - halting cancels the running goal in the background and commands a zero
//     velocity (the robot stops within one tick), as NavigateTo.
type FollowWaypoints struct {
	*runtime.Leaf
	e      *env
	action *bridge.ActionLeaf

	route     []string
	index     int
	resumable bool
	goal      Pose
	start     time.Time
}

func followWaypointsType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "FollowWaypoints", Kind: runtime.ActionKind,
		Summary: "Drives through waypoints in order through move_base; resumes where it was after a halt or failure.",
		Ports: append([]runtime.PortSpec{
			runtime.InputPort[[]string]("waypoints", "places or poses x,y,yaw, separated by ';' (or a []string entry)"),
			runtime.InputPort[bool]("restart", "start from the first waypoint even if the last run stopped midway").WithDefault("false"),
			runtime.OutputPort[string]("current_waypoint", "the waypoint the robot is heading for"),
			runtime.OutputPort[int]("waypoint_index", "its index in the list, from 0"),
		}, navPorts()...),
		New: func(c *runtime.Config) (runtime.Node, error) {
			if list, ok := runtime.LiteralAs[[]string](c, "waypoints"); ok && e.Places != nil {
				for i, w := range list {
					if _, err := resolve(e.Places, w); err != nil {
						return nil, fmt.Errorf("port \"waypoints\": waypoint %d: %v", i+1, err)
					}
				}
			}
			f := &FollowWaypoints{e: e}
			a, err := e.moveBase(c, f.makeGoal, f.onFeedback)
			if err != nil {
				return nil, err
			}
			f.action, f.Leaf = a, a.Leaf
			return f, nil
		},
	}
}

// Tick starts or resumes the route, and moves on from each reached
// waypoint to the next.
func (f *FollowWaypoints) Tick() (runtime.Status, error) {
	switch f.Status() {
	case runtime.Success, runtime.Failure:
		return f.Status(), nil // ticked again without a reset, as every action
	case runtime.Idle:
		list, err := runtime.GetInput[[]string](f.Leaf, "waypoints")
		if err != nil {
			return runtime.Failure, err
		}
		restart, err := runtime.GetInput[bool](f.Leaf, "restart")
		if err != nil {
			return runtime.Failure, err
		}
		if restart || !f.resumable || !slices.Equal(list, f.route) {
			f.route, f.index = slices.Clone(list), 0
		}
		f.resumable = true
		f.start = f.Now()
		if len(f.route) == 0 {
			f.resumable = false
			return runtime.Success, nil
		}
	}
	for {
		if err := f.outputs(); err != nil {
			return runtime.Failure, err
		}
		st, err := f.action.Tick()
		if err == nil && st == runtime.Failure && f.Explaining() {
			explainGoal(f.action, fmt.Sprintf("to waypoint %d of %d (%s)", f.index+1, len(f.route), f.route[f.index]))
		}
		if err != nil || st != runtime.Success {
			return st, err
		}
		f.index++
		if f.index == len(f.route) {
			f.resumable, f.index = false, 0
			if err := runtime.SetOutput(f.Leaf, "distance_remaining", 0.0); err != nil {
				return runtime.Failure, err
			}
			return runtime.Success, nil
		}
		// The next goal goes out in this tick: the leaf is still RUNNING, so
		// the action starts again.
	}
}

func (f *FollowWaypoints) outputs() error {
	if err := runtime.SetOutput(f.Leaf, "current_waypoint", f.route[f.index]); err != nil {
		return err
	}
	if err := runtime.SetOutput(f.Leaf, "waypoint_index", f.index); err != nil {
		return err
	}
	return runtime.SetOutput(f.Leaf, "elapsed", seconds(f.Now().Sub(f.start)))
}

func (f *FollowWaypoints) makeGoal(n *runtime.Leaf) (any, error) {
	target := f.route[f.index]
	pose, err := resolve(f.e.Places, target)
	if err != nil {
		return nil, fmt.Errorf("port \"waypoints\": waypoint %d: %v", f.index+1, err)
	}
	f.goal = pose
	return moveBaseGoal(n, pose)
}

func (f *FollowWaypoints) onFeedback(n *runtime.Leaf, fb any) error {
	m, ok := fb.(*ros.MoveBaseActionFeedback)
	if !ok {
		return nil
	}
	return runtime.SetOutput(n, "distance_remaining", poseOf(m.BasePosition.Pose).DistanceTo(f.goal))
}

// Halt cancels the running goal and stops the robot; the route is kept.
func (f *FollowWaypoints) Halt() {
	f.action.Halt()
	_ = f.e.io(f.Leaf).stop()
}

// Suspend cancels the goal while the tree is paused (runtime.Suspender).
func (f *FollowWaypoints) Suspend() <-chan struct{} { return f.action.Suspend() }

// Resume sends the goal again when the tree goes on (runtime.Suspender).
func (f *FollowWaypoints) Resume() { f.action.Resume() }
