package skills

import (
	"fmt"
	"math"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/runtime"
)

// The skills meet the robot through the scan cycle (ARCHITECTURE.md): the bridge
// latches odometry, laser, battery and bumper into the root blackboard at
// the start of a tick, the skills read them there, and the velocity they
// command is a blackboard entry the bridge publishes at the end of the tick.
// A skill therefore sees one consistent world per tick, and a halt that
// writes a zero velocity stops the robot in the same tick's flush.

// robotIO reads and writes the robot's entries for one node.
type robotIO struct {
	e *env
	n *runtime.Leaf
}

func (e *env) io(n *runtime.Leaf) robotIO { return robotIO{e, n} }

func (r robotIO) root() *runtime.Blackboard { return r.n.Blackboard().Root() }

// entry returns the value of key, when it was stamped, and whether the bridge
// marks it stale. A missing entry is an error naming the key and where it
// comes from.
func (r robotIO) entry(key, what string) (any, time.Time, bool, error) {
	bb := r.root()
	e := bb.Entry(key)
	if e == nil {
		return nil, time.Time{}, true, fmt.Errorf("no %s: the blackboard has no entry %q (the robot profile's bridge latches it; see skills.Keys)", what, key)
	}
	v, _, stamp := e.Load()
	if v == nil {
		return nil, time.Time{}, true, unavailablef("no %s yet: entry %q was never written", what, key)
	}
	stale := false
	if s, ok := bb.Get(key + bridge.StaleSuffix); ok {
		stale, _ = s.(bool)
	}
	return v, stamp, stale, nil
}

// odom returns the robot's odometry pose (odom frame) and speeds. A stale
// odometry is an error: closed loops must not run blind.
func (r robotIO) odom() (Pose, geometry_msgs.Twist, error) {
	v, _, stale, err := r.entry(r.e.keys.Odom, "odometry")
	if err != nil {
		return Pose{}, geometry_msgs.Twist{}, err
	}
	var o *nav_msgs.Odometry
	switch x := v.(type) {
	case nav_msgs.Odometry:
		o = &x
	case *nav_msgs.Odometry:
		o = x
	default:
		return Pose{}, geometry_msgs.Twist{}, fmt.Errorf("entry %q holds a %T, not a nav_msgs/Odometry", r.e.keys.Odom, v)
	}
	if stale {
		return Pose{}, geometry_msgs.Twist{}, unavailablef("odometry (%q) is stale", r.e.keys.Odom)
	}
	return poseOf(o.Pose.Pose), o.Twist.Twist, nil
}

// mapPose returns the robot's pose in the map frame: the profile's map pose
// when it latches one, else odometry composed with Deps.OdomOrigin.
func (r robotIO) mapPose() (Pose, error) {
	if k := r.e.keys.Pose; k != "" {
		v, _, stale, err := r.entry(k, "map pose")
		if err != nil {
			return Pose{}, err
		}
		if stale {
			return Pose{}, unavailablef("the map pose (%q) is stale", k)
		}
		switch x := v.(type) {
		case geometry_msgs.PoseWithCovarianceStamped:
			return poseOf(x.Pose.Pose), nil
		case geometry_msgs.PoseStamped:
			return poseOf(x.Pose), nil
		case geometry_msgs.Pose:
			return poseOf(x), nil
		case Pose:
			return x, nil
		}
		return Pose{}, fmt.Errorf("entry %q holds a %T, not a pose", k, v)
	}
	p, _, err := r.odom()
	if err != nil {
		return Pose{}, err
	}
	return r.e.OdomOrigin.Compose(p), nil
}

// battery returns the newest battery state; stale is an error.
func (r robotIO) battery() (*sensor_msgs.BatteryState, error) {
	v, _, stale, err := r.entry(r.e.keys.Battery, "battery state")
	if err != nil {
		return nil, err
	}
	var b *sensor_msgs.BatteryState
	switch x := v.(type) {
	case sensor_msgs.BatteryState:
		b = &x
	case *sensor_msgs.BatteryState:
		b = x
	default:
		return nil, fmt.Errorf("entry %q holds a %T, not a sensor_msgs/BatteryState", r.e.keys.Battery, v)
	}
	if stale {
		return nil, unavailablef("the battery state (%q) is stale", r.e.keys.Battery)
	}
	return b, nil
}

// percentOf returns the battery's charge in percent, rounded to 1e-4 so
// that a float32 fraction such as 0.3 reads as 30, not 30.000001.
func percentOf(b *sensor_msgs.BatteryState) float64 {
	return math.Round(float64(b.Percentage)*100*1e4) / 1e4
}

// The power supply states of sensor_msgs/BatteryState.
const (
	supplyCharging = 1
	supplyFull     = 4
)

// docked reports whether the robot is on a dock: the docked entry when the
// keys name one, else a charging (or full, charging done) battery.
func (r robotIO) docked() (bool, error) {
	if k := r.e.keys.Docked; k != "" {
		v, _, stale, err := r.entry(k, "docked flag")
		if err != nil {
			return false, err
		}
		if stale {
			return false, unavailablef("the docked flag (%q) is stale", k)
		}
		b, ok := v.(bool)
		if !ok {
			return false, fmt.Errorf("entry %q holds a %T, not a bool", k, v)
		}
		return b, nil
	}
	b, err := r.battery()
	if err != nil {
		return false, err
	}
	return b.PowerSupplyStatus == supplyCharging || b.PowerSupplyStatus == supplyFull, nil
}

// bumped reports whether the bumper is pressed; false when the robot has no
// bumper entry (it may have none).
func (r robotIO) bumped() bool {
	v, ok := r.root().Get(r.e.keys.Bumper)
	if !ok {
		return false
	}
	b, _ := v.(bool)
	return b
}

// scan returns the newest laser scan; stale is an error.
func (r robotIO) scan() (*sensor_msgs.LaserScan, error) {
	v, _, stale, err := r.entry(r.e.keys.Scan, "laser scan")
	if err != nil {
		return nil, err
	}
	var s *sensor_msgs.LaserScan
	switch x := v.(type) {
	case sensor_msgs.LaserScan:
		s = &x
	case *sensor_msgs.LaserScan:
		s = x
	default:
		return nil, fmt.Errorf("entry %q holds a %T, not a sensor_msgs/LaserScan", r.e.keys.Scan, v)
	}
	if stale {
		return nil, unavailablef("the laser scan (%q) is stale", r.e.keys.Scan)
	}
	return s, nil
}

// drive commands a velocity: linear m/s forward, angular rad/s
// counter-clockwise. The bridge publishes it at the end of the tick; a
// closed loop writes it every tick, which also keeps the base's command
// timeout from stopping it.
func (r robotIO) drive(linear, angular float64) error {
	t := geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: linear}, Angular: geometry_msgs.Vector3{Z: angular}}
	if err := r.root().Set(r.e.keys.Velocity, t); err != nil {
		return fmt.Errorf("velocity command: %w", err)
	}
	return nil
}

// stop commands a zero velocity.
func (r robotIO) stop() error { return r.drive(0, 0) }

func poseOf(p geometry_msgs.Pose) Pose {
	return Pose{X: p.Position.X, Y: p.Position.Y, Yaw: yawOf(p.Orientation)}
}

func yawOf(q geometry_msgs.Quaternion) float64 {
	return math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
}

func quaternion(yaw float64) geometry_msgs.Quaternion {
	s, c := math.Sincos(yaw / 2)
	return geometry_msgs.Quaternion{Z: s, W: c}
}

// seconds is a duration as the progress outputs give it.
func seconds(d time.Duration) float64 { return d.Seconds() }
