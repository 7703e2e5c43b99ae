package simnode

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
)

// This file holds the robot's action servers: move_base, dock and undock,
// all of type move_base_msgs/MoveBaseAction. One mission drives the base at
// a time: a goal on any of the three preempts the running one (a goal on the
// same server ends PREEMPTED, as actionlib's simple server does; a goal on
// another server ends ABORTED).

type missionKind int

const (
	navigating missionKind = iota
	docking
	undocking
)

var serverNames = [...]string{navigating: "move_base", docking: "dock", undocking: "undock"}

// mission is one accepted goal.
type mission struct {
	kind     missionKind
	goal     sim.Pose // navigating: where to
	dock     sim.Dock // docking: which dock
	final    bool     // docking: on the last straight stretch
	done     chan struct{}
	returned chan struct{} // closed when Execute has returned
	ended    bool
	err      error
	feedback func(fb any) // set once Execute has started
	// executing is set once Execute has started; unwaited when a step
	// stopped waiting for it (Node.lockExecuting).
	executing, unwaited bool
}

// Lockstep (bridge/lockstep_actions.go): the robot's servers count the goals
// and cancels they take in among the messages the peers sent, a cancel
// stops the robot as it arrives, and a goal ended in the world holds the
// next /clock until its terminal state is out (unpublished), so that a
// tick after it finds it; goalsEnded counts the terminal states, for
// bridge.GoalsEndedTopic.

// navigation is the part of a face that serves the action servers.
type navigation struct {
	nav     *sim.Navigator // move_base's; also drives to a dock's approach pose
	final   *sim.Navigator // the last straight stretch onto a dock
	drive   *mission       // the mission driving the base, nil when none
	pending map[any]*mission
	goals   []sim.GoalMarker

	unpublished int    // goals ended in the world, terminal state not yet out (under n.mu)
	goalsEnded  uint32 // terminal states published (under n.mu)
	endedPub    *ros.Publisher

	moveBaseUp bool          // whether move_base should be served (under n.mu)
	lifecycle  chan struct{} // wakes the goroutine that stops and starts it
	stopped    []*mission    // goals move_base's stop aborted (under n.mu)

	serverMu          sync.Mutex // guards the servers below
	moveBase          *ros.ActionServer
	dockSrv, undockSr *ros.ActionServer
}

// maxGoals bounds the goals kept per robot for rendering.
const maxGoals = 1000

func (f *face) advertiseNavigation() error {
	n := f.n
	conf := n.conf.Navigation
	conf.Map = n.w
	conf.RobotRadius = f.r.Conf().Radius
	var err error
	if f.nav, err = sim.NewNavigator(conf); err != nil {
		return fmt.Errorf("robot %s: move_base: %w", f.r.Name(), err)
	}
	// The last stretch follows a straight line to the dock pose, slowly and
	// precisely: the dock's tolerance is a few centimetres.
	if f.final, err = sim.NewNavigator(sim.NavigatorConf{
		GoalTolerance: 0.02, YawTolerance: 0.05, MaxLinear: 0.15,
		StallTimeout: conf.StallTimeout,
	}); err != nil {
		return fmt.Errorf("robot %s: docking: %w", f.r.Name(), err)
	}
	f.pending = map[any]*mission{}
	f.lifecycle = make(chan struct{}, 1)
	f.serverMu.Lock()
	defer f.serverMu.Unlock()
	if f.dockSrv, err = f.newServer(docking); err != nil {
		return err
	}
	if f.undockSr, err = f.newServer(undocking); err != nil {
		return err
	}
	f.moveBaseUp = !f.r.NavigationDown()
	if f.moveBaseUp {
		if f.moveBase, err = f.newServer(navigating); err != nil {
			return err
		}
	}
	n.wg.Add(1)
	go f.runLifecycle()
	return nil
}

func (f *face) newServer(kind missionKind) (*ros.ActionServer, error) {
	return ros.NewActionServer(ros.ActionServerConf{
		Conn:    f.n.conn,
		Name:    f.topic(serverNames[kind]),
		Action:  &ros.MoveBaseAction{},
		Accept:  func(goal any) bool { return f.accept(kind, goal) },
		Execute: f.execute,
		Preempt: true,
		Cancel:  f.cancel,
		OnTaken: f.n.taken,
		OnEnd:   f.published,
	})
}

// cancel stops the mission of a goal its client cancels, as the cancel
// arrives.
func (f *face) cancel(goal any) {
	n := f.n
	n.mu.Lock()
	if m := f.pending[goal]; m != nil && !m.ended {
		f.halt(m, context.Canceled)
	}
	n.mu.Unlock()
	n.signal()
	n.flushEvents()
}

// published notes a goal's terminal state out.
func (f *face) published(goal any) {
	n := f.n
	n.mu.Lock()
	f.goalsEnded++
	if m := f.pending[goal]; m != nil {
		delete(f.pending, goal)
		if m.ended && f.unpublished > 0 {
			f.unpublished--
		}
	}
	n.mu.Unlock()
	n.signal()
}

// stopServers unadvertises the action servers; running goals end preempted.
func (f *face) stopServers() {
	f.serverMu.Lock()
	servers := []*ros.ActionServer{f.moveBase, f.dockSrv, f.undockSr}
	f.moveBase, f.dockSrv, f.undockSr = nil, nil, nil
	f.serverMu.Unlock()
	for _, s := range servers {
		if s != nil {
			s.Close()
		}
	}
}

// runLifecycle stops and restarts move_base when the robot's navigation is
// marked down or up (Robot.SetNavigationDown, or the stop_move_base
// service). Stopping waits for the server's goals to end, which needs the
// node's lock, so it happens here rather than in the step.
func (f *face) runLifecycle() {
	n := f.n
	defer n.wg.Done()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-f.lifecycle:
		}
		n.mu.Lock()
		want := f.moveBaseUp
		n.mu.Unlock()
		f.serverMu.Lock()
		s := f.moveBase
		f.serverMu.Unlock()
		switch {
		case want && s == nil:
			s, err := f.newServer(navigating)
			n.mu.Lock()
			if err != nil {
				n.event("%s: move_base could not restart: %v", f.r.Name(), err)
			} else {
				n.event("%s: move_base restarted", f.r.Name())
			}
			n.mu.Unlock()
			f.serverMu.Lock()
			f.moveBase = s
			f.serverMu.Unlock()
		case !want && s != nil:
			// Let the aborted goal reach its client as aborted before
			// the server goes: closing it first would preempt it.
			n.mu.Lock()
			stopped := f.stopped
			f.stopped = nil
			n.mu.Unlock()
			for _, m := range stopped {
				select {
				case <-m.returned:
				case <-time.After(time.Second): // accepted, never executed
				}
			}
			if len(stopped) > 0 {
				time.Sleep(50 * time.Millisecond) // the server sends the result after Execute returns
			}
			f.serverMu.Lock()
			f.moveBase = nil
			f.serverMu.Unlock()
			s.Close()
			n.mu.Lock()
			n.event("%s: move_base stopped", f.r.Name())
			n.mu.Unlock()
		}
		n.flushEvents()
	}
}

// checkNavigationDown follows the robot's navigation-down flag; under n.mu.
func (f *face) checkNavigationDown() {
	up := !f.r.NavigationDown()
	if up == f.moveBaseUp {
		return
	}
	f.moveBaseUp = up
	if !up {
		if m := f.drive; m != nil && m.kind == navigating {
			f.halt(m, errors.New("move_base stopped"))
			f.stopped = append(f.stopped, m)
		}
	}
	select {
	case f.lifecycle <- struct{}{}:
	default:
	}
}

// accept takes a goal on one of the servers; it runs on a goroutine of the
// connection, before the goal is acknowledged, so a peer that waits for the
// acknowledgement knows the step the goal starts at.
func (f *face) accept(kind missionKind, goal any) bool {
	g, ok := goal.(*ros.MoveBaseActionGoal)
	if !ok {
		return false
	}
	n := f.n
	n.mu.Lock()
	defer func() {
		n.mu.Unlock()
		n.signal()
		n.flushEvents()
	}()
	if kind == navigating && !f.moveBaseUp {
		return false
	}
	m := &mission{kind: kind, done: make(chan struct{}), returned: make(chan struct{})}
	f.pending[goal] = m
	// A goal on the same server is preempted by the server itself, which
	// cancels it as this goal is accepted; one on another server ends here.
	switch d := f.drive; {
	case d != nil && d.kind != kind:
		f.end(d, fmt.Errorf("preempted by a %s goal", serverNames[kind]))
	case d != nil:
		f.end(d, errSuperseded) // now, not when the server's cancel reaches Execute
	}
	f.drive = m
	var err error
	switch kind {
	case navigating:
		err = f.startNavigating(m, g.TargetPose)
	case docking:
		err = f.startDocking(m, g.TargetPose.Header.FrameId)
	case undocking:
		err = f.r.Undock()
	}
	if err != nil {
		f.end(m, err)
	}
	if m.ended && kind != undocking {
		f.command(sim.Twist{}) // whatever drove the base before is over
	}
	return true
}

func (f *face) startNavigating(m *mission, target geometry_msgs.PoseStamped) error {
	pose, err := f.goalPose(target)
	if err != nil {
		return err
	}
	m.goal = pose
	if len(f.goals) < maxGoals {
		f.goals = append(f.goals, sim.GoalMarker{Robot: f.r.Name(), Pose: pose})
	}
	return f.nav.SetGoal(pose)
}

// startDocking picks the dock (named, or the nearest) and sets off to its
// approach pose.
func (f *face) startDocking(m *mission, name string) error {
	docks := f.n.w.Docks()
	if len(docks) == 0 {
		return errors.New("dock: the world has no docks")
	}
	here := f.r.Pose()
	var d sim.Dock
	if name == "" {
		best := math.Inf(1)
		for _, c := range docks {
			if dist := here.DistanceTo(c.Pose); dist < best {
				best, d = dist, c
			}
		}
	} else {
		found := false
		for _, c := range docks {
			if c.Name == name {
				d, found = c, true
			}
		}
		if !found {
			names := make([]string, len(docks))
			for k, c := range docks {
				names[k] = c.Name
			}
			return fmt.Errorf("dock %q: no such dock (target_pose.header.frame_id names the dock; the world has %s)", name, strings.Join(names, ", "))
		}
	}
	m.dock = d
	switch state, at := f.r.DockState(); {
	case state == sim.Docked && at.Name == d.Name:
		f.end(m, nil) // already there
		return nil
	case state != sim.Undocked:
		return fmt.Errorf("dock %q: robot %s is %s at %q; undock first", d.Name, f.r.Name(), state, at.Name)
	}
	if len(f.goals) < maxGoals {
		f.goals = append(f.goals, sim.GoalMarker{Robot: f.r.Name(), Pose: d.Pose})
	}
	if err := f.nav.SetGoal(d.Approach); err != nil {
		return fmt.Errorf("dock %q: to its approach pose: %w", d.Name, err)
	}
	return nil
}

// goalPose turns a move_base goal into a pose in the map frame. Goals may be
// given in map, in the robot's odom frame or in its base_link.
func (f *face) goalPose(ps geometry_msgs.PoseStamped) (sim.Pose, error) {
	yaw, ok := yawOf(ps.Pose.Orientation)
	if !ok {
		return sim.Pose{}, errors.New("goal orientation is not a rotation (a zero quaternion); set orientation.w = 1 for heading 0")
	}
	p := sim.Pose{X: ps.Pose.Position.X, Y: ps.Pose.Position.Y, Yaw: yaw}
	if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
		return sim.Pose{}, fmt.Errorf("goal position (%v, %v) is not finite", p.X, p.Y)
	}
	switch frame := strings.TrimPrefix(ps.Header.FrameId, "/"); frame {
	case "", "map":
		return p, nil
	case f.frame("odom"):
		o := f.r.Odometry()
		return f.r.Pose().Compose(o.Pose.Relative(p)), nil
	case f.frame("base_link"):
		return f.r.Pose().Compose(p), nil
	default:
		return sim.Pose{}, fmt.Errorf("goal frame %q: want map, %s or %s", frame, f.frame("odom"), f.frame("base_link"))
	}
}

// end finishes a mission with err (nil: succeeded); under n.mu.
func (f *face) end(m *mission, err error) {
	if m.ended {
		return
	}
	m.ended, m.err = true, err
	close(m.done)
	f.unpublished++
	if f.drive == m {
		f.drive = nil
	}
	what := serverNames[m.kind]
	switch {
	case err == nil:
		f.n.event("%s: %s goal succeeded", f.r.Name(), what)
		if f.n.stats.Succeeded == nil {
			f.n.stats.Succeeded = map[GoalKey]int{}
		}
		f.n.stats.Succeeded[GoalKey{f.r.Name(), what}]++
	case err == errSuperseded:
		f.n.event("%s: %s goal preempted by a newer goal", f.r.Name(), what)
	case errors.Is(err, context.Canceled):
		f.n.event("%s: %s goal cancelled; stopping", f.r.Name(), what)
	default:
		f.n.event("%s: %s goal aborted: %v", f.r.Name(), what, err)
	}
}

// errSuperseded ends a goal cancelled after a newer one took over the base.
var errSuperseded = errors.New("preempted by a newer goal")

// halt stops the robot if m drives it and ends m; under n.mu.
func (f *face) halt(m *mission, err error) {
	if f.drive != m {
		f.end(m, errSuperseded)
		return
	}
	f.nav.Cancel()
	f.final.Cancel()
	f.command(sim.Twist{})
	f.end(m, err)
}

// execute waits for the mission accept started, on the action server's
// goroutine for the goal. A cancel stops the robot at once.
func (f *face) execute(ctx context.Context, goal any, feedback func(any)) (any, error) {
	n := f.n
	n.mu.Lock()
	m := f.pending[goal] // published removes it
	if m != nil {
		m.feedback, m.executing = feedback, true
	}
	n.mu.Unlock()
	if m == nil {
		return nil, errors.New("the goal was not accepted")
	}
	defer close(m.returned)
	select {
	case <-m.done:
		if m.err == errSuperseded {
			// A newer goal on this server ended it as it was accepted;
			// the server cancels this one next: end it PREEMPTED.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Second):
			}
		}
		return nil, m.err
	case <-ctx.Done():
		n.mu.Lock()
		f.halt(m, ctx.Err())
		n.mu.Unlock()
		n.signal()
		n.flushEvents()
		return nil, ctx.Err()
	}
}

// control runs the controller of the mission driving the base; under n.mu,
// at the controller rate, before the step from now.
func (f *face) control(now time.Duration, out *outbox) {
	f.checkNavigationDown()
	m := f.drive
	if m == nil {
		return
	}
	pose := f.r.Pose()
	switch m.kind {
	case navigating:
		cmd, st := f.nav.Update(now, pose)
		f.command(cmd)
		if f.settle(m, st, "") {
			return
		}
	case docking:
		if !m.final {
			cmd, st := f.nav.Update(now, pose)
			f.command(cmd)
			if st.State == sim.NavSucceeded {
				// Lined up: drive the straight stretch onto the dock.
				m.final = true
				if err := f.final.SetPath([]sim.Pose{pose, m.dock.Pose}); err != nil {
					f.end(m, fmt.Errorf("dock %q: %w", m.dock.Name, err))
					return
				}
			} else if f.settle(m, st, fmt.Sprintf("dock %q: to the approach pose: ", m.dock.Name)) {
				return
			}
		} else {
			cmd, st := f.final.Update(now, pose)
			f.command(cmd)
			if st.State == sim.NavSucceeded {
				f.end(m, f.r.Dock(m.dock.Name))
				return
			}
			if f.settle(m, st, fmt.Sprintf("dock %q: onto the dock: ", m.dock.Name)) {
				return
			}
		}
	case undocking:
		if state, _ := f.r.DockState(); state == sim.Undocked {
			f.end(m, nil)
			return
		}
	}
	if fb := m.feedback; fb != nil {
		msg := &ros.MoveBaseActionFeedback{BasePosition: geometry_msgs.PoseStamped{
			Header: std_msgs.Header{Stamp: f.n.Stamp(now), FrameId: "map"},
			Pose:   poseMsg(pose),
		}}
		out.feedbacks = append(out.feedbacks, func() { fb(msg) })
	}
}

// settle ends the mission when the navigator's goal is over and reports
// whether it did.
func (f *face) settle(m *mission, st sim.NavStatus, what string) bool {
	switch st.State {
	case sim.NavActive:
		return false
	case sim.NavSucceeded:
		f.end(m, nil)
	case sim.NavAborted:
		f.end(m, fmt.Errorf("%s%w", what, st.Err))
	default:
		f.end(m, fmt.Errorf("%snavigation ended %v", what, st.State))
	}
	return true
}
