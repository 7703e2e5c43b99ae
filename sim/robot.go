package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// RobotConf describes a differential-drive robot. Zero fields take the
// defaults in brackets (a TurtleBot-sized base); negative ones are errors
// except where noted.
type RobotConf struct {
	// Name is the robot's name, unique in its world; the ROS face uses it as
	// the robot's namespace.
	Name string
	// Spawn is the robot's starting pose in the map frame and the origin of
	// its odom frame.
	Spawn Pose

	// Radius of the robot's circular footprint in metres [0.18].
	Radius float64
	// WheelSeparation is the distance between the wheels in metres [0.30].
	WheelSeparation float64
	// MaxLinear (m/s) and MaxAngular (rad/s) clamp commanded velocities
	// [0.5, 1.8]; MaxLinearAccel (m/s²) and MaxAngularAccel (rad/s²) limit how
	// fast the base reaches them [1.0, 3.0].
	MaxLinear, MaxAngular           float64
	MaxLinearAccel, MaxAngularAccel float64
	// CmdTimeout stops the robot when no velocity command has arrived for
	// that long, as real bases do [0.5 s]; negative disables it.
	CmdTimeout time.Duration

	// OdomNoise is the standard deviation of each wheel encoder's speed
	// error as a fraction of the wheel's speed [0: exact odometry].
	OdomNoise float64
	// WheelSlip is the largest fraction of a wheel's travel lost on the
	// ground in a step, drawn uniformly per wheel and step; the encoders do
	// not see it [0: no slip]. At most 1.
	WheelSlip float64

	Laser   LaserConf
	Battery BatteryConf
	Dock    DockConf
}

// DockConf describes docking. Zero fields take the defaults in brackets.
type DockConf struct {
	// Tolerance is how far (m) the base may be from a dock's pose and
	// YawTolerance how far (rad) its heading, for Dock to connect [0.05, 0.1].
	Tolerance, YawTolerance float64
	// UndockSpeed is the speed (m/s) at which Undock backs out [0.1].
	UndockSpeed float64
}

func (c RobotConf) withDefaults() (RobotConf, error) {
	if c.Name == "" {
		return c, fmt.Errorf("robot Name: missing")
	}
	if isNaNOrInf(c.Spawn.X) || isNaNOrInf(c.Spawn.Y) || isNaNOrInf(c.Spawn.Yaw) {
		return c, fmt.Errorf("robot %q Spawn %v: not a finite pose", c.Name, c.Spawn)
	}
	for _, f := range []struct {
		v    *float64
		d    float64
		name string
	}{
		{&c.Radius, 0.18, "Radius"},
		{&c.WheelSeparation, 0.30, "WheelSeparation"},
		{&c.MaxLinear, 0.5, "MaxLinear"},
		{&c.MaxAngular, 1.8, "MaxAngular"},
		{&c.MaxLinearAccel, 1.0, "MaxLinearAccel"},
		{&c.MaxAngularAccel, 3.0, "MaxAngularAccel"},
		{&c.OdomNoise, 0, "OdomNoise"},
		{&c.WheelSlip, 0, "WheelSlip"},
		{&c.Dock.Tolerance, 0.05, "Dock.Tolerance"},
		{&c.Dock.YawTolerance, 0.1, "Dock.YawTolerance"},
		{&c.Dock.UndockSpeed, 0.1, "Dock.UndockSpeed"},
	} {
		if *f.v < 0 || isNaNOrInf(*f.v) {
			return c, fmt.Errorf("robot %q %s: must be >= 0, got %v", c.Name, f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	if c.WheelSlip > 1 {
		return c, fmt.Errorf("robot %q WheelSlip: must be a fraction in [0, 1], got %v", c.Name, c.WheelSlip)
	}
	if c.CmdTimeout == 0 {
		c.CmdTimeout = 500 * time.Millisecond
	}
	var err error
	if c.Laser, err = c.Laser.withDefaults(); err != nil {
		return c, fmt.Errorf("robot %q %w", c.Name, err)
	}
	if c.Battery, err = c.Battery.withDefaults(); err != nil {
		return c, fmt.Errorf("robot %q %w", c.Name, err)
	}
	return c, nil
}

// Odometry is the robot's own estimate of its motion, as a nav_msgs/Odometry
// carries it: the pose of base_link in the odom frame and the twist in
// base_link, stamped with the simulation time of the physics step.
type Odometry struct {
	Pose  Pose
	Twist Twist
	Stamp time.Duration
}

// Bumper is the state of the robot's bumper: pressed while the robot is in
// contact with a wall, an obstacle or another robot. Bearing is the direction
// of the contact in the robot's frame (0 ahead, positive to the left).
type Bumper struct {
	Pressed bool
	Bearing float64
}

// Wheel names a drive wheel for wheel faults.
type Wheel int

// The robot's drive wheels.
const (
	LeftWheel Wheel = iota
	RightWheel
)

// String returns "left" or "right".
func (w Wheel) String() string {
	if w == LeftWheel {
		return "left"
	}
	if w == RightWheel {
		return "right"
	}
	return fmt.Sprintf("Wheel(%d)", int(w))
}

// DockState says whether a robot is on a dock.
type DockState int

// Docking states. Undocking is the back-out after Undock; the robot ignores
// velocity commands while Docked or Undocking.
const (
	Undocked DockState = iota
	Docked
	Undocking
)

// String returns "undocked", "docked" or "undocking".
func (s DockState) String() string {
	switch s {
	case Docked:
		return "docked"
	case Undocking:
		return "undocking"
	}
	return "undocked"
}

// contactRelease is the clearance (m) a robot must regain before its bumper
// releases, so that a robot pushing against a wall counts one collision, not
// one per physics step.
const contactRelease = 0.01

// Robot is a simulated differential-drive robot in a World. Its methods may
// be called between steps; like its World it is not safe for concurrent use.
type Robot struct {
	w    *World
	conf RobotConf
	rng  *rand.Rand

	pose       Pose    // ground truth, map frame
	twist      Twist   // ground truth velocity
	v, omega   float64 // the base's velocity set point after limits
	cmd        Twist
	cmdStamp   time.Duration
	haveCmd    bool
	odom       Odometry
	travelled  float64 // odometer, metres
	stalled    [2]bool
	contact    bool
	bumper     Bumper
	collisions int
	battery    battery

	dockState   DockState
	dock        Dock
	undockStart Pose

	laserConf LaserConf
	beamCos   []float64
	beamSin   []float64
	scan      *LaserScan
	scanAt    time.Duration // time of the first scan
	scans     int64         // scans taken

	trail       []Pose
	topicFaults map[string]TopicFault
	navDown     bool
}

// Name returns the robot's name.
func (r *Robot) Name() string { return r.conf.Name }

// Conf returns the robot's configuration with defaults filled in.
func (r *Robot) Conf() RobotConf { return r.conf }

// Pose returns the robot's true pose in the map frame.
func (r *Robot) Pose() Pose { return r.pose }

// Twist returns the robot's true velocity in its own frame, averaged over
// the last physics step (while accelerating it lags the set point by half a
// step's worth).
func (r *Robot) Twist() Twist { return r.twist }

// Odometry returns the robot's dead-reckoned estimate of its pose in the
// odom frame and of its velocity.
func (r *Robot) Odometry() Odometry { return r.odom }

// OdomOrigin returns the pose of the robot's odom frame in the map frame
// (its spawn pose): OdomOrigin().Compose(Odometry().Pose) is where the robot
// believes it is on the map.
func (r *Robot) OdomOrigin() Pose { return r.conf.Spawn }

// Bumper returns the bumper's state after the last physics step.
func (r *Robot) Bumper() Bumper { return r.bumper }

// Collisions returns how many times the robot has come into contact with
// something; pushing on against the same wall is one collision.
func (r *Robot) Collisions() int { return r.collisions }

// Travelled returns the distance the robot has driven in metres.
func (r *Robot) Travelled() float64 { return r.travelled }

// Battery returns the battery's state after the last physics step.
func (r *Robot) Battery() BatteryState { return r.battery.state() }

// DockState returns whether the robot is docked, and at which dock.
func (r *Robot) DockState() (DockState, Dock) { return r.dockState, r.dock }

// Trail returns the robot's recorded trajectory (true poses, spaced by the
// world's TrailSpacing), oldest first. The slice is the caller's.
func (r *Robot) Trail() []Pose { return append([]Pose(nil), r.trail...) }

// SetCmdVel sets the velocity command, as a message on cmd_vel does: it is
// clamped to the robot's limits and holds until the next command or until
// CmdTimeout passes without one.
func (r *Robot) SetCmdVel(t Twist) {
	if isNaNOrInf(t.Linear) || isNaNOrInf(t.Angular) {
		t = Twist{} // a real base driver drops garbage; stopping is safe
	}
	r.cmd = Twist{
		Linear:  clamp(t.Linear, r.conf.MaxLinear),
		Angular: clamp(t.Angular, r.conf.MaxAngular),
	}
	r.cmdStamp = r.w.now
	r.haveCmd = true
}

// Dock connects the robot to the dock called name. It succeeds only if the
// robot's true pose is within the dock's position and yaw tolerance of the
// dock pose; then the robot stops, ignores velocity commands and charges
// until Undock.
func (r *Robot) Dock(name string) error {
	d, ok := r.w.dock(name)
	if !ok {
		return fmt.Errorf("dock %q: no such dock (the world has %s)", name, r.w.dockNames())
	}
	switch r.dockState {
	case Docked:
		return fmt.Errorf("dock %q: robot %s is already docked at %q", name, r.conf.Name, r.dock.Name)
	case Undocking:
		return fmt.Errorf("dock %q: robot %s is still undocking from %q", name, r.conf.Name, r.dock.Name)
	}
	if dist := r.pose.DistanceTo(d.Pose); dist > r.conf.Dock.Tolerance {
		return fmt.Errorf("dock %q: robot %s is %.3f m from the dock pose (tolerance %.3f m)", name, r.conf.Name, dist, r.conf.Dock.Tolerance)
	}
	if dyaw := math.Abs(NormalizeAngle(r.pose.Yaw - d.Pose.Yaw)); dyaw > r.conf.Dock.YawTolerance {
		return fmt.Errorf("dock %q: robot %s heading is %.3f rad off the dock's (tolerance %.3f rad)", name, r.conf.Name, dyaw, r.conf.Dock.YawTolerance)
	}
	r.dockState, r.dock = Docked, d
	r.stop()
	return nil
}

// Undock starts backing the robot out of its dock, straight back to the
// dock's approach distance at UndockSpeed; DockState reports Undocking until
// it is out, then Undocked. It is an error if the robot is not docked.
func (r *Robot) Undock() error {
	if r.dockState != Docked {
		return fmt.Errorf("undock: robot %s is not docked (it is %s)", r.conf.Name, r.dockState)
	}
	r.dockState = Undocking
	r.undockStart = r.pose
	return nil
}

func (r *Robot) stop() {
	r.v, r.omega = 0, 0
	r.twist = Twist{}
	r.haveCmd = false
}

func clamp(v, lim float64) float64 { return math.Max(-lim, math.Min(lim, v)) }

// approach moves v toward target by at most step.
func approach(v, target, step float64) float64 {
	if target > v {
		return math.Min(target, v+step)
	}
	return math.Max(target, v-step)
}

// setPoint returns the velocity the base is asked for in this step.
func (r *Robot) setPoint() (float64, float64) {
	switch {
	case r.dockState == Docked:
		return 0, 0
	case r.dockState == Undocking:
		if r.pose.DistanceTo(r.undockStart) >= r.dock.Pose.DistanceTo(r.dock.Approach) {
			r.dockState, r.dock = Undocked, Dock{}
			return 0, 0
		}
		return -r.conf.Dock.UndockSpeed, 0
	case r.battery.level <= 0:
		return 0, 0 // the motors cut out on an empty battery
	case !r.haveCmd:
		return 0, 0
	case r.conf.CmdTimeout > 0 && r.w.now-r.cmdStamp > r.conf.CmdTimeout:
		return 0, 0
	}
	return r.cmd.Linear, r.cmd.Angular
}

// physics advances the robot by one physics step of dt seconds.
func (r *Robot) physics(dt float64) {
	tv, tw := r.setPoint()
	v0, w0 := r.v, r.omega
	r.v = approach(r.v, tv, r.conf.MaxLinearAccel*dt)
	r.omega = approach(r.omega, tw, r.conf.MaxAngularAccel*dt)

	// Wheel speeds (m/s at the rim), averaged over the step: under constant
	// acceleration that makes the distance driven in the step exact.
	vm, wm := (v0+r.v)/2, (w0+r.omega)/2
	half := r.conf.WheelSeparation / 2
	wheels := [2]float64{vm - wm*half, vm + wm*half}
	for k := range wheels {
		if r.stalled[k] {
			wheels[k] = 0
		}
	}
	enc := wheels // what the encoders measure
	if r.conf.WheelSlip > 0 {
		for k := range wheels {
			wheels[k] *= 1 - r.conf.WheelSlip*r.rng.Float64()
		}
	}
	if r.conf.OdomNoise > 0 {
		for k := range enc {
			enc[k] *= 1 + r.conf.OdomNoise*r.rng.NormFloat64()
		}
	}
	v := (wheels[0] + wheels[1]) / 2
	w := (wheels[1] - wheels[0]) / r.conf.WheelSeparation
	ev := (enc[0] + enc[1]) / 2
	ew := (enc[1] - enc[0]) / r.conf.WheelSeparation

	frac, hit := 1.0, (*Robot)(nil)
	blocked := false
	if v != 0 || w != 0 {
		next := integrate(r.pose, v, w, dt)
		if c, other := r.w.collides(r, next); c {
			blocked, hit = true, other
			// Move as far as the robot gets before contact.
			lo, hi := 0.0, 1.0
			for range 12 {
				mid := (lo + hi) / 2
				if c, _ := r.w.collides(r, integrate(r.pose, v, w, dt*mid)); c {
					hi = mid
				} else {
					lo = mid
				}
			}
			frac = lo
			next = integrate(r.pose, v, w, dt*frac)
		}
		r.travelled += math.Abs(v) * dt * frac
		r.battery.step(dt, math.Abs(v)*dt*frac, math.Abs(w)*dt*frac, false)
		r.pose = next
	} else {
		r.battery.step(dt, 0, 0, r.dockState == Docked)
	}
	r.odom.Pose = integrate(r.odom.Pose, ev, ew, dt*frac)
	r.odom.Stamp = r.w.now
	if blocked {
		// The bumper cuts the motors, as on real bases; a new command drives
		// on (away from the wall, or into it again).
		r.v, r.omega = 0, 0
		r.twist, r.odom.Twist = Twist{}, Twist{}
		if r.dockState == Undocking {
			r.dockState, r.dock = Undocked, Dock{}
		}
	} else {
		r.twist, r.odom.Twist = Twist{Linear: v, Angular: w}, Twist{Linear: ev, Angular: ew}
	}
	r.updateContact(blocked, hit)
}

// updateContact maintains the bumper and the collision count.
func (r *Robot) updateContact(blocked bool, hit *Robot) {
	if blocked {
		r.touch(r.contactBearing(hit))
		if hit != nil {
			hit.touch(NormalizeAngle(math.Atan2(r.pose.Y-hit.pose.Y, r.pose.X-hit.pose.X) - hit.pose.Yaw))
		}
		return
	}
	if r.contact && r.w.clearance(r, r.pose, r.conf.Radius+contactRelease) > r.conf.Radius+contactRelease/2 {
		r.contact = false
		r.bumper = Bumper{}
	}
}

func (r *Robot) touch(bearing float64) {
	if !r.contact {
		r.collisions++
	}
	r.contact = true
	r.bumper = Bumper{Pressed: true, Bearing: bearing}
}

func (r *Robot) contactBearing(hit *Robot) float64 {
	var cx, cy float64
	if hit != nil {
		cx, cy = hit.pose.X, hit.pose.Y
	} else if x, y, ok := r.w.live.nearestOccupied(r.pose.X, r.pose.Y, r.conf.Radius+2*r.w.live.Resolution); ok {
		cx, cy = x, y
	} else {
		// The map's edge: report the direction of travel.
		if r.v < 0 {
			return math.Pi
		}
		return 0
	}
	return NormalizeAngle(math.Atan2(cy-r.pose.Y, cx-r.pose.X) - r.pose.Yaw)
}

// recordTrail appends the pose to the trail when the robot has moved far
// enough, thinning the trail to every other point when it is full.
func (r *Robot) recordTrail() {
	if n := len(r.trail); n > 0 {
		last := r.trail[n-1]
		if last.DistanceTo(r.pose) < r.w.conf.TrailSpacing && math.Abs(NormalizeAngle(last.Yaw-r.pose.Yaw)) < 0.5 {
			return
		}
	}
	if len(r.trail) >= r.w.conf.TrailLimit {
		k := 0
		for i := 0; i < len(r.trail); i += 2 {
			r.trail[k] = r.trail[i]
			k++
		}
		r.trail = r.trail[:k]
	}
	r.trail = append(r.trail, r.pose)
}
