package skills

import (
	"errors"
	"fmt"
	"time"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Docking is a robot's docking interface: two action servers of type
// move_base_msgs/MoveBaseAction, as btrobot's simulator serves them
// (sim/simnode) and as a move_base-style docking node can. A dock goal
// names the dock in target_pose.header.frame_id ("" for the nearest) and
// succeeds once the robot is on the charger; an undock goal (empty) succeeds
// once the robot has backed out to the dock's approach pose. Cancelling
// either stops the robot.
type Docking struct {
	// Dock and Undock are the servers: actions of the robot profile by
	// name, else ROS names resolved in the robot's namespace.
	Dock, Undock string
}

// DefaultDocking is the simulator's docking interface: the servers dock and
// undock in the robot's namespace.
var DefaultDocking = Docking{Dock: "dock", Undock: "undock"}

func (d Docking) check() error {
	if d.Dock == "" || d.Undock == "" {
		return errors.New("skills: Docking needs both a Dock and an Undock server")
	}
	return nil
}

// dockAction builds the action leaf for one of the docking servers: the
// profile's action of that name when it has one.
func (e *env) dockAction(c *runtime.Config, server string, goal func(n *runtime.Leaf) (any, error), feedback func(n *runtime.Leaf, fb any) error) (*bridge.ActionLeaf, error) {
	conf := bridge.ActionLeafConf{
		Conn: e.Conn, Server: server, Action: ros.MoveBaseAction{},
		WaitForServerTimeout: bridge.DefaultWaitForServerTimeout, ServerTimeout: bridge.DefaultServerTimeout,
		Goal: goal, OnFeedback: feedback,
	}
	if e.Profile != nil {
		if a, ok := e.Profile.Action(server); ok {
			if a.Type.Go != nil && a.Type.Name != "move_base_msgs/MoveBaseAction" {
				return nil, fmt.Errorf("the profile's action %q is a %s; docking skills need a move_base_msgs/MoveBaseAction", server, a.Type.Name)
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

// actionTick ticks an action leaf of a skill and writes elapsed; goal says
// what the goal was, for the reason of a failure ("to dock1").
func actionTick(a *bridge.ActionLeaf, start time.Time, goal string) (runtime.Status, error) {
	st, err := a.Tick()
	if err == nil && st == runtime.Failure {
		explainGoal(a, goal)
	}
	if err != nil || start.IsZero() {
		return st, err
	}
	if err := runtime.SetOutput(a.Leaf, "elapsed", seconds(a.Now().Sub(start))); err != nil {
		return runtime.Failure, err
	}
	return st, nil
}

// explainGoal states why an action skill's goal failed, naming the goal:
// "/robot1/move_base aborted the goal to kitchen", "going to kitchen:
// action /robot1/move_base: the goal's timeout expired (3m0s)". Only while the tree is explaining, on the tick that collected
// the outcome.
func explainGoal(a *bridge.ActionLeaf, goal string) {
	if !a.Explaining() {
		return
	}
	o, ok := a.Outcome()
	if !ok {
		return
	}
	server := a.Server()
	switch o.Code {
	case ros.CodeNone:
	case ros.CodeAborted:
		a.SetReason(server + " aborted the goal " + goal)
	case ros.CodeGoalRejected:
		a.SetReason(server + " rejected the goal " + goal)
	default:
		a.SetReason("going " + goal + ": " + o.Reason(server))
	}
}

// confirmWindow is how long Dock and Undock wait, after their server
// reports success, for the robot's docked flag to agree. The server's result
// and the flag travel on separate connections, so the flag may arrive a tick
// or two later; a mission that docks and then asks IsDocked must not fail in
// between.
const confirmWindow = 2 * time.Second

// CodeUnconfirmed is Dock's and Undock's error_code when their server
// succeeded but the robot's docked flag did not agree within
// confirmWindow (the server wrote NONE by then).
const CodeUnconfirmed = "UNCONFIRMED"

// dockConfirm holds a docking skill at RUNNING after its server succeeded
// until the robot's docked flag says want, for at most confirmWindow.
type dockConfirm struct {
	until time.Time // zero: not confirming
}

// tick is the docking skill's tick: the action's while it runs, then the
// confirmation. Without a docked flag (skills.Keys.Docked) there is nothing
// to confirm against and the server's word is taken.
func (c *dockConfirm) tick(e *env, a *bridge.ActionLeaf, start time.Time, goal string, want bool) (runtime.Status, error) {
	if c.until.IsZero() {
		st, err := actionTick(a, start, goal)
		if err != nil || st != runtime.Success || e.keys.Docked == "" {
			return st, err
		}
		c.until = a.Now().Add(confirmWindow)
	}
	docked, err := e.io(a.Leaf).docked()
	switch {
	case err == nil && docked == want:
		c.until = time.Time{}
		return runtime.Success, nil
	case a.Now().Before(c.until):
		return runtime.Running, nil
	}
	c.until = time.Time{}
	if err != nil && !isUnavailable(err) {
		return runtime.Failure, err
	}
	if err := runtime.SetOutput(a.Leaf, "error_code", CodeUnconfirmed); err != nil {
		return runtime.Failure, err
	}
	if a.Explaining() {
		why := fmt.Sprintf("the docked flag (%q) still says %v after %v", e.keys.Docked, docked, confirmWindow)
		if err != nil {
			why = err.Error()
		}
		a.SetReason(fmt.Sprintf("%s reported the robot %s, but %s", a.Server(), map[bool]string{true: "docked", false: "undocked"}[want], why))
	}
	return runtime.Failure, nil
}

// halt forgets a confirmation under way.
func (c *dockConfirm) halt() { c.until = time.Time{} }
