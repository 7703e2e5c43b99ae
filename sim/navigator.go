package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrStalled is wrapped by the error of a navigation aborted because the
// robot made no progress toward its goal for NavigatorConf.StallTimeout.
var ErrStalled = errors.New("no progress")

// NavState is the state of a Navigator's current goal, as a move_base
// action server reports it.
type NavState int

// Navigation states. Succeeded, Aborted and Canceled are final: the
// navigator commands zero velocity until it is given a new goal.
const (
	NavIdle NavState = iota
	NavActive
	NavSucceeded
	NavAborted
	NavCanceled
)

// String returns the state in lower case, as "succeeded".
func (s NavState) String() string {
	switch s {
	case NavIdle:
		return "idle"
	case NavActive:
		return "active"
	case NavSucceeded:
		return "succeeded"
	case NavAborted:
		return "aborted"
	case NavCanceled:
		return "canceled"
	}
	return fmt.Sprintf("NavState(%d)", int(s))
}

// NavStatus is what Update reports: the state, the reason when aborted
// (wrapping ErrNoPath or ErrStalled), and feedback.
type NavStatus struct {
	State NavState
	Err   error
	// DistanceRemaining is the length in metres of the rest of the path.
	DistanceRemaining float64
	// Replans counts the plans made for the current goal after the first.
	Replans int
}

// NavigatorConf configures a Navigator. Zero fields take the defaults in
// brackets, which suit the default RobotConf.
type NavigatorConf struct {
	// Map is what the navigator plans on. Pass the World to replan when
	// obstacles are placed or removed, or a *Grid to plan on a fixed map.
	// It may be nil when only SetPath is used.
	Map OccupancySource
	// RobotRadius, InflationMargin, CostWeight and AllowUnknown configure
	// the planner (see PlannerConf).
	RobotRadius, InflationMargin, CostWeight float64
	AllowUnknown                             bool

	// MaxLinear (m/s) and MaxAngular (rad/s) bound the commands [0.4, 1.2].
	MaxLinear, MaxAngular float64
	// Lookahead is the pure-pursuit lookahead distance in metres [0.5].
	Lookahead float64
	// GoalTolerance (m) and YawTolerance (rad) decide success [0.1, 0.1].
	// Once within GoalTolerance the robot only turns to the goal's heading.
	GoalTolerance, YawTolerance float64
	// StallTimeout aborts the goal when the robot has not gained StallProgress
	// metres (or 0.05 rad while turning at the goal) for that long [10 s,
	// 0.1 m]. Negative StallTimeout disables it.
	StallTimeout  time.Duration
	StallProgress float64
	// ReplanPeriod replans at that interval while active [0: only when the
	// map's revision changes or the robot strays from its path].
	ReplanPeriod time.Duration
	// StrayDistance is how far (m) from the path the robot may get before
	// the navigator replans [0.5].
	StrayDistance float64
}

// Navigator turns a goal into velocity commands the way move_base does: it
// plans on the inflated map, follows the path with pure pursuit, turns to the
// goal's heading within tolerance, replans when the map changes, and aborts
// when there is no path or progress stalls. It keeps no clock: the caller
// passes the time and the robot's pose (in the map frame) to Update at a
// steady rate (10 Hz or more) and sends the returned command to the robot.
type Navigator struct {
	conf NavigatorConf

	planner    *Planner
	plannerRev uint64

	state    NavState
	err      error
	goal     Pose
	fixed    bool // following a given path: never replan
	path     []Pose
	suffix   []float64 // path length from vertex k to the end
	idx      int       // the path segment the robot is on
	replans  int
	planned  bool
	lastPlan time.Duration

	atGoal       bool // within GoalTolerance: turning to the final heading
	rotating     bool // turning on the spot toward the path
	best         float64
	bestYaw      float64
	lastProgress time.Duration
	remaining    float64
}

// NewNavigator returns an idle navigator.
func NewNavigator(conf NavigatorConf) (*Navigator, error) {
	for _, f := range []struct {
		v    *float64
		d    float64
		name string
	}{
		{&conf.MaxLinear, 0.4, "MaxLinear"},
		{&conf.MaxAngular, 1.2, "MaxAngular"},
		{&conf.Lookahead, 0.5, "Lookahead"},
		{&conf.GoalTolerance, 0.1, "GoalTolerance"},
		{&conf.YawTolerance, 0.1, "YawTolerance"},
		{&conf.StallProgress, 0.1, "StallProgress"},
		{&conf.StrayDistance, 0.5, "StrayDistance"},
		{&conf.RobotRadius, 0, "RobotRadius"},
		{&conf.InflationMargin, 0, "InflationMargin"},
		{&conf.CostWeight, 0, "CostWeight"},
	} {
		if *f.v < 0 || isNaNOrInf(*f.v) {
			return nil, fmt.Errorf("navigator %s: must be >= 0, got %v", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	if conf.StallTimeout == 0 {
		conf.StallTimeout = 10 * time.Second
	}
	if conf.ReplanPeriod < 0 {
		return nil, fmt.Errorf("navigator ReplanPeriod: must be >= 0, got %v", conf.ReplanPeriod)
	}
	return &Navigator{conf: conf}, nil
}

// SetGoal starts navigating to goal (in the map frame), preempting any
// current goal. It fails at once, leaving the navigator aborted, when the
// goal is off the map or too close to an obstacle; unreachable goals are
// found by the first Update, which aborts with ErrNoPath.
func (n *Navigator) SetGoal(goal Pose) error {
	if isNaNOrInf(goal.X) || isNaNOrInf(goal.Y) || isNaNOrInf(goal.Yaw) {
		return n.fail(fmt.Errorf("%w: goal %v is not a finite pose", ErrNoPath, goal))
	}
	p, err := n.currentPlanner()
	if err != nil {
		return n.fail(err)
	}
	// Plan from the goal to itself: the cheap checks of Plan (on the map,
	// clear of obstacles) without a search.
	if _, err := p.Plan(goal, goal); err != nil {
		return n.fail(err)
	}
	n.start(goal, nil)
	return nil
}

// SetPath starts following path as given, without planning or replanning,
// preempting any current goal; the last pose is the goal. This is how a robot
// drives the last straight stretch onto a dock, where the planner would call
// the dock pose too close to the wall.
func (n *Navigator) SetPath(path []Pose) error {
	if len(path) == 0 {
		return n.fail(fmt.Errorf("%w: empty path", ErrNoPath))
	}
	for k, p := range path {
		if isNaNOrInf(p.X) || isNaNOrInf(p.Y) || isNaNOrInf(p.Yaw) {
			return n.fail(fmt.Errorf("%w: path pose %d %v is not finite", ErrNoPath, k, p))
		}
	}
	n.start(path[len(path)-1], append([]Pose(nil), path...))
	return nil
}

func (n *Navigator) start(goal Pose, path []Pose) {
	*n = Navigator{conf: n.conf, planner: n.planner, plannerRev: n.plannerRev,
		state: NavActive, goal: goal, fixed: path != nil}
	if path != nil {
		n.setPath(path)
	}
}

func (n *Navigator) fail(err error) error {
	n.state, n.err = NavAborted, err
	n.path = nil
	return err
}

// Cancel preempts the current goal: from now on Update returns zero
// velocity and NavCanceled. It does nothing unless a goal is active.
func (n *Navigator) Cancel() {
	if n.state == NavActive {
		n.state = NavCanceled
	}
}

// Goal returns the current (or last) goal and whether there is one.
func (n *Navigator) Goal() (Pose, bool) { return n.goal, n.state != NavIdle }

// Path returns the path being followed, nil before the first plan.
func (n *Navigator) Path() []Pose { return append([]Pose(nil), n.path...) }

// Status returns the status as of the last Update.
func (n *Navigator) Status() NavStatus {
	return NavStatus{State: n.state, Err: n.err, DistanceRemaining: n.remaining, Replans: n.replans}
}

func (n *Navigator) currentPlanner() (*Planner, error) {
	if n.conf.Map == nil {
		return nil, fmt.Errorf("%w: the navigator has no map to plan on", ErrNoPath)
	}
	g, rev := n.conf.Map.Occupancy()
	if n.planner == nil || n.planner.g != g || n.plannerRev != rev {
		p, err := NewPlanner(PlannerConf{Map: g, RobotRadius: n.conf.RobotRadius,
			InflationMargin: n.conf.InflationMargin, CostWeight: n.conf.CostWeight, AllowUnknown: n.conf.AllowUnknown})
		if err != nil {
			return nil, err
		}
		n.planner, n.plannerRev = p, rev
	}
	return n.planner, nil
}

func (n *Navigator) setPath(path []Pose) {
	n.path = path
	n.idx = 0
	n.suffix = make([]float64, len(path))
	for k := len(path) - 2; k >= 0; k-- {
		n.suffix[k] = n.suffix[k+1] + path[k].DistanceTo(path[k+1])
	}
}

// needsPlan reports whether the current goal wants a (new) plan.
func (n *Navigator) needsPlan(now time.Duration, pose Pose) bool {
	if n.fixed || n.atGoal {
		return false
	}
	if !n.planned {
		return true
	}
	if _, rev := n.conf.Map.Occupancy(); rev != n.plannerRev {
		return true
	}
	if n.conf.ReplanPeriod > 0 && now-n.lastPlan >= n.conf.ReplanPeriod {
		return true
	}
	return n.distanceToPath(pose) > n.conf.StrayDistance
}

// Update advances the navigator to time now with the robot at pose (map
// frame) and returns the velocity command to send and the status.
func (n *Navigator) Update(now time.Duration, pose Pose) (Twist, NavStatus) {
	if n.state != NavActive {
		return Twist{}, n.Status()
	}
	if n.needsPlan(now, pose) {
		p, err := n.currentPlanner()
		if err == nil {
			var path []Pose
			if path, err = p.Plan(pose, n.goal); err == nil {
				if n.planned {
					n.replans++
				}
				n.setPath(path)
			}
		}
		if err != nil {
			n.fail(err)
			return Twist{}, n.Status()
		}
		if !n.planned {
			n.lastProgress, n.best, n.bestYaw = now, math.Inf(1), math.Inf(1)
		}
		n.planned, n.lastPlan = true, now
	}
	if !n.planned { // a fixed path: start the stall clock
		n.planned, n.lastProgress, n.best, n.bestYaw = true, now, math.Inf(1), math.Inf(1)
	}
	n.advance(pose)
	n.remaining = pose.DistanceTo(n.path[min(n.idx+1, len(n.path)-1)]) + n.suffix[min(n.idx+1, len(n.path)-1)]

	if !n.atGoal && pose.DistanceTo(n.goal) <= n.conf.GoalTolerance {
		n.atGoal = true // latched: turning on the spot must not undo success
	}
	if n.atGoal {
		n.remaining = 0
	}
	yawErr := NormalizeAngle(n.goal.Yaw - pose.Yaw)
	// Progress: distance along the path, then heading at the goal.
	if n.remaining < n.best-n.conf.StallProgress {
		n.best, n.lastProgress = n.remaining, now
	}
	if n.atGoal && math.Abs(yawErr) < n.bestYaw-0.05 {
		n.bestYaw, n.lastProgress = math.Abs(yawErr), now
	}
	if n.atGoal && math.Abs(yawErr) <= n.conf.YawTolerance {
		n.state = NavSucceeded
		return Twist{}, n.Status()
	}
	if n.conf.StallTimeout > 0 && now-n.lastProgress > n.conf.StallTimeout {
		n.fail(fmt.Errorf("%w: the robot gained less than %.2f m toward %v in %v",
			ErrStalled, n.conf.StallProgress, n.goal, n.conf.StallTimeout))
		return Twist{}, n.Status()
	}
	if n.atGoal {
		return Twist{Angular: n.turnRate(yawErr)}, n.Status()
	}
	return n.pursue(pose), n.Status()
}

// turnRate returns a proportional turn toward an angle error, fast enough
// to overcome nothing but quick to settle.
func (n *Navigator) turnRate(err float64) float64 {
	w := 1.5 * err
	if math.Abs(w) < 0.25 {
		w = math.Copysign(0.25, err)
	}
	return clamp(w, n.conf.MaxAngular)
}

// advance moves the robot's path segment forward to the one nearest the
// robot, looking only a few metres ahead so that a path that doubles back
// does not make the robot skip a part of it.
func (n *Navigator) advance(pose Pose) {
	best, bestD := n.idx, math.Inf(1)
	for k := n.idx; k+1 < len(n.path); k++ {
		if k > n.idx && n.suffix[n.idx+1]-n.suffix[k] > 2*n.conf.Lookahead+1 {
			break
		}
		if d := segmentDistance(pose, n.path[k], n.path[k+1]); d < bestD-1e-9 {
			best, bestD = k, d
		}
	}
	n.idx = best
}

func (n *Navigator) distanceToPath(pose Pose) float64 {
	if len(n.path) < 2 {
		return 0
	}
	return segmentDistance(pose, n.path[n.idx], n.path[min(n.idx+1, len(n.path)-1)])
}

// segmentDistance returns the distance from p to the segment a-b.
func segmentDistance(p, a, b Pose) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return p.DistanceTo(a)
	}
	t := math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l2))
	return math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy)
}

// lookaheadPoint returns the first point of the path, from the robot's
// segment on, that is Lookahead away from the robot, or the goal.
func (n *Navigator) lookaheadPoint(pose Pose) Pose {
	L := n.conf.Lookahead
	for k := n.idx; k+1 < len(n.path); k++ {
		a, b := n.path[k], n.path[k+1]
		if b.DistanceTo(pose) < L {
			continue
		}
		// The segment leaves the circle of radius L: find where.
		dx, dy := b.X-a.X, b.Y-a.Y
		fx, fy := a.X-pose.X, a.Y-pose.Y
		qa, qb, qc := dx*dx+dy*dy, 2*(fx*dx+fy*dy), fx*fx+fy*fy-L*L
		disc := qb*qb - 4*qa*qc
		if qa == 0 || disc < 0 {
			return b
		}
		t := (-qb + math.Sqrt(disc)) / (2 * qa)
		t = math.Max(0, math.Min(1, t))
		return Pose{X: a.X + t*dx, Y: a.Y + t*dy}
	}
	return n.goal
}

// pursue returns the pure-pursuit command toward the lookahead point,
// turning on the spot first when the point is well off the robot's heading.
func (n *Navigator) pursue(pose Pose) Twist {
	target := n.lookaheadPoint(pose)
	local := pose.Relative(target)
	alpha := math.Atan2(local.Y, local.X)
	switch {
	case math.Abs(alpha) > math.Pi/3:
		n.rotating = true
	case math.Abs(alpha) < math.Pi/12:
		n.rotating = false
	}
	if n.rotating {
		return Twist{Angular: n.turnRate(alpha)}
	}
	d2 := local.X*local.X + local.Y*local.Y
	if d2 == 0 {
		return Twist{}
	}
	curvature := 2 * local.Y / d2
	goalDist := pose.DistanceTo(n.goal)
	// Slow down into the goal so it stops within tolerance.
	v := math.Min(n.conf.MaxLinear, math.Max(0.05, 0.8*goalDist))
	if w := math.Abs(curvature) * v; w > n.conf.MaxAngular {
		v = n.conf.MaxAngular / math.Abs(curvature)
	}
	return Twist{Linear: v, Angular: curvature * v}
}
