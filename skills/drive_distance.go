package skills

import (
	"fmt"
	"math"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// DriveDistance drives the robot straight ahead by distance metres at speed,
// closing the loop on odometry (a negative distance drives backwards).
//
//	<DriveDistance distance="1.5" speed="0.3" distance_remaining="{left}"/>
//
// Contract (an async leaf on the scan cycle):
//   - the tick that starts it reads distance, speed, tolerance and
//     time_allowance and the odometry latched for that tick, commands the
//     drive and returns RUNNING; a distance within tolerance succeeds at
//     once;
//   - every later tick measures the progress along the starting heading,
//     writes distance_remaining (metres) and elapsed (seconds), and commands
//     the speed, slowed near the end, with a turn that holds the starting
//     heading;
//   - SUCCESS, with a zero velocity, once the remaining distance is within
//     tolerance; FAILURE, with a zero velocity, when odometry is missing or
//     stale, when the bumper is pressed while driving forward, or when
//     time_allowance passes (0: twice the nominal time plus five seconds);
//   - halting commands a zero velocity, which the bridge publishes at the end
//     of that tick: the robot stops within one tick.
type DriveDistance struct {
	*runtime.Leaf
	straightDrive
}

// BackUp drives the robot straight backwards by distance metres at speed,
// closing the loop on odometry: the first rung of a recovery after a bump
// or a failed plan, as Nav2's BackUp.
//
//	<BackUp distance="0.3" speed="0.15"/>
//
// Contract: DriveDistance's, backwards: distance and speed are positive, and
// the bumper does not stop it (the robot backs away from what it touched).
type BackUp struct {
	*runtime.Leaf
	straightDrive
}

// straightDrive is the closed loop of DriveDistance and BackUp.
type straightDrive struct {
	e        *env
	backward bool

	distance, speed, tolerance float64
	origin                     Pose
	start, deadline            time.Time
}

const (
	driveGain      = 1.5  // m/s per metre remaining
	driveMinSpeed  = 0.04 // m/s
	headingGain    = 2.0  // rad/s per rad of heading error
	maxHeadingTurn = 0.5  // rad/s
)

func driveDistanceType(e *env, id string) runtime.NodeType {
	backward := id == "BackUp"
	speed, summary, distDoc := "0.25", "Drives straight by distance metres at speed, closed loop on odometry.", "how far to drive, m (negative drives backwards)"
	if backward {
		speed, summary, distDoc = "0.15", "Backs straight up by distance metres at speed, closed loop on odometry.", "how far to back up, m (positive)"
	}
	return runtime.NodeType{
		ID: id, Kind: runtime.ActionKind,
		Summary: summary,
		Ports: []runtime.PortSpec{
			runtime.InputPort[float64]("distance", distDoc),
			runtime.InputPort[float64]("speed", "speed, m/s").WithDefault(speed),
			runtime.InputPort[float64]("tolerance", "how close to the distance is done, m").WithDefault("0.02"),
			runtime.InputPort[time.Duration]("time_allowance", "FAILURE when not done within this (0: twice the nominal time plus 5 s)").WithDefault("0"),
			runtime.OutputPort[float64]("distance_remaining", "distance left, m"),
			runtime.OutputPort[float64]("elapsed", "seconds since the drive started"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if v, ok := runtime.LiteralAs[float64](c, "speed"); ok && !(v > 0) {
				return nil, fmt.Errorf("port \"speed\": %v; want a positive speed in m/s", v)
			}
			if v, ok := runtime.LiteralAs[float64](c, "distance"); ok && backward && v < 0 {
				return nil, fmt.Errorf("port \"distance\": %v; BackUp takes a positive distance (it drives backwards)", v)
			}
			d := straightDrive{e: e, backward: backward}
			if backward {
				n := &BackUp{straightDrive: d}
				n.Leaf = runtime.NewStatefulAction(&n.straightDrive)
				return n, nil
			}
			n := &DriveDistance{straightDrive: d}
			n.Leaf = runtime.NewStatefulAction(&n.straightDrive)
			return n, nil
		},
	}
}

// OnStart reads the ports and odometry and starts driving.
func (d *straightDrive) OnStart(n *runtime.Leaf) (runtime.Status, error) {
	var err error
	if d.distance, err = runtime.GetInput[float64](n, "distance"); err != nil {
		return runtime.Failure, err
	}
	if d.speed, err = runtime.GetInput[float64](n, "speed"); err != nil {
		return runtime.Failure, err
	}
	if d.tolerance, err = runtime.GetInput[float64](n, "tolerance"); err != nil {
		return runtime.Failure, err
	}
	allowance, err := runtime.GetInput[time.Duration](n, "time_allowance")
	if err != nil {
		return runtime.Failure, err
	}
	if err := checkFinite("distance", d.distance); err != nil {
		return runtime.Failure, err
	}
	switch {
	case !(d.speed > 0) || !(d.tolerance > 0):
		return runtime.Failure, fmt.Errorf("speed %v and tolerance %v must be positive", d.speed, d.tolerance)
	case d.backward && d.distance < 0:
		return runtime.Failure, fmt.Errorf("port \"distance\": %v; BackUp takes a positive distance", d.distance)
	}
	if d.backward {
		d.distance = -d.distance
	}
	io := d.e.io(n)
	pose, _, err := io.odom()
	if err != nil {
		return failOn(n, err)
	}
	d.origin = pose
	d.start = n.Now()
	d.deadline = deadline(d.start, allowance, math.Abs(d.distance)/d.speed)
	return d.step(n, io, pose)
}

// OnRunning follows odometry and adjusts the speed.
func (d *straightDrive) OnRunning(n *runtime.Leaf) (runtime.Status, error) {
	io := d.e.io(n)
	pose, _, err := io.odom()
	if err != nil {
		return stopAnd(n, io, err)
	}
	return d.step(n, io, pose)
}

func (d *straightDrive) step(n *runtime.Leaf, io robotIO, pose Pose) (runtime.Status, error) {
	s, c := math.Sincos(d.origin.Yaw)
	along := (pose.X-d.origin.X)*c + (pose.Y-d.origin.Y)*s
	remaining := d.distance - along // signed: the way still to go
	now := n.Now()
	if err := progress(n, "distance_remaining", math.Abs(remaining), now.Sub(d.start)); err != nil {
		return runtime.Failure, err
	}
	if math.Abs(remaining) <= d.tolerance {
		return runtime.Success, io.stop()
	}
	if now.After(d.deadline) || (!d.backward && remaining > 0 && io.bumped()) {
		if n.Explaining() {
			why := "the bumper is pressed"
			if now.After(d.deadline) {
				why = fmt.Sprintf("out of time after %v", now.Sub(d.start).Round(time.Millisecond))
			}
			n.SetReason(fmt.Sprintf("%s, %.2f m short", why, math.Abs(remaining)))
		}
		return runtime.Failure, io.stop()
	}
	v := math.Copysign(math.Min(d.speed, math.Max(driveMinSpeed, driveGain*math.Abs(remaining))), remaining)
	w := -headingGain * normalizeAngle(pose.Yaw-d.origin.Yaw)
	w = math.Max(-maxHeadingTurn, math.Min(maxHeadingTurn, w))
	return runtime.Running, io.drive(v, w)
}

// OnHalted stops the robot.
func (d *straightDrive) OnHalted(n *runtime.Leaf) { _ = d.e.io(n).stop() }
