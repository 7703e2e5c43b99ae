package skills

import (
	"fmt"
	"math"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// Spin turns the robot in place by angle radians (positive is
// counter-clockwise), closing the loop on odometry.
//
//	<Spin angle="1.57" angle_remaining="{left}"/>   a quarter turn left
//
// Contract (an async leaf on the scan cycle):
//   - the tick that starts it reads angle, speed, tolerance and
//     time_allowance and the odometry latched for that tick, commands a turn
//     and returns RUNNING; an angle within tolerance succeeds at once;
//   - every later tick adds up the heading change seen by odometry (so
//     angles beyond a full turn work), writes angle_remaining (radians,
//     signed) and elapsed (seconds), and commands the turn rate: speed, slowed
//     near the end so as not to overshoot;
//   - SUCCESS, with a zero velocity, once the remaining angle is within
//     tolerance; FAILURE, with a zero velocity, when odometry is missing or
//     stale or when time_allowance passes (0: twice the nominal time plus
//     five seconds);
//   - halting commands a zero velocity, which the bridge publishes at the end
//     of that tick: the robot stops within one tick.
//
// The velocity goes out through the velocity entry of the robot profile
// (cmd_vel), so Spin needs the scan cycle of btrobot run.
type Spin struct {
	*runtime.Leaf
	e *env

	target, tolerance, speed float64
	turned, lastYaw          float64
	start, deadline          time.Time
}

const (
	spinGain     = 2.0  // rad/s per rad of remaining angle
	spinMinSpeed = 0.15 // rad/s, below which a base may not turn at all
)

func spinType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "Spin", Kind: runtime.ActionKind,
		Summary: "Turns in place by angle radians (counter-clockwise positive), closed loop on odometry.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[float64]("angle", "how far to turn, in radians; positive is counter-clockwise"),
			runtime.InputPort[float64]("speed", "largest turn rate, rad/s").WithDefault("1.0"),
			runtime.InputPort[float64]("tolerance", "how close to the angle is done, rad").WithDefault("0.03"),
			runtime.InputPort[time.Duration]("time_allowance", "FAILURE when not done within this (0: twice the nominal time plus 5 s)").WithDefault("0"),
			runtime.OutputPort[float64]("angle_remaining", "angle left to turn, rad (signed)"),
			runtime.OutputPort[float64]("elapsed", "seconds since the turn started"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if v, ok := runtime.LiteralAs[float64](c, "speed"); ok && !(v > 0) {
				return nil, fmt.Errorf("port \"speed\": %v; want a positive turn rate in rad/s", v)
			}
			s := &Spin{e: e}
			s.Leaf = runtime.NewStatefulAction(s)
			return s, nil
		},
	}
}

// OnStart reads the ports and odometry and starts turning.
func (s *Spin) OnStart(n *runtime.Leaf) (runtime.Status, error) {
	var err error
	if s.target, err = runtime.GetInput[float64](n, "angle"); err != nil {
		return runtime.Failure, err
	}
	if s.speed, err = runtime.GetInput[float64](n, "speed"); err != nil {
		return runtime.Failure, err
	}
	if s.tolerance, err = runtime.GetInput[float64](n, "tolerance"); err != nil {
		return runtime.Failure, err
	}
	allowance, err := runtime.GetInput[time.Duration](n, "time_allowance")
	if err != nil {
		return runtime.Failure, err
	}
	if err := checkFinite("angle", s.target); err != nil {
		return runtime.Failure, err
	}
	if !(s.speed > 0) || !(s.tolerance > 0) {
		return runtime.Failure, fmt.Errorf("speed %v and tolerance %v must be positive", s.speed, s.tolerance)
	}
	io := s.e.io(n)
	pose, _, err := io.odom()
	if err != nil {
		return failOn(n, err)
	}
	s.turned, s.lastYaw = 0, pose.Yaw
	s.start = n.Now()
	s.deadline = deadline(s.start, allowance, math.Abs(s.target)/s.speed)
	return s.step(n, io)
}

// OnRunning follows odometry and adjusts the turn rate.
func (s *Spin) OnRunning(n *runtime.Leaf) (runtime.Status, error) {
	io := s.e.io(n)
	pose, _, err := io.odom()
	if err != nil {
		return stopAnd(n, io, err)
	}
	s.turned += normalizeAngle(pose.Yaw - s.lastYaw)
	s.lastYaw = pose.Yaw
	return s.step(n, io)
}

func (s *Spin) step(n *runtime.Leaf, io robotIO) (runtime.Status, error) {
	remaining := s.target - s.turned
	now := n.Now()
	if err := progress(n, "angle_remaining", remaining, now.Sub(s.start)); err != nil {
		return runtime.Failure, err
	}
	if math.Abs(remaining) <= s.tolerance {
		return runtime.Success, io.stop()
	}
	if now.After(s.deadline) {
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("out of time after %v, %.2f rad short", now.Sub(s.start).Round(time.Millisecond), math.Abs(remaining)))
		}
		return runtime.Failure, io.stop()
	}
	w := math.Copysign(math.Min(s.speed, math.Max(spinMinSpeed, spinGain*math.Abs(remaining))), remaining)
	return runtime.Running, io.drive(0, w)
}

// OnHalted stops the robot.
func (s *Spin) OnHalted(n *runtime.Leaf) { _ = s.e.io(n).stop() }

// deadline is when a motion of nominal seconds started at start must be
// done: allowance when given, else twice the nominal time plus five
// seconds.
func deadline(start time.Time, allowance time.Duration, nominal float64) time.Time {
	if allowance > 0 {
		return start.Add(allowance)
	}
	return start.Add(time.Duration((2*nominal + 5) * float64(time.Second)))
}

// progress writes a motion's remaining amount and elapsed seconds.
func progress(n *runtime.Leaf, port string, remaining float64, elapsed time.Duration) error {
	if err := runtime.SetOutput(n, port, remaining); err != nil {
		return err
	}
	return runtime.SetOutput(n, "elapsed", seconds(elapsed))
}

// stopAnd stops the robot and fails on err.
func stopAnd(n *runtime.Leaf, io robotIO, err error) (runtime.Status, error) {
	st, ferr := failOn(n, err)
	if serr := io.stop(); ferr == nil {
		ferr = serr
	}
	return st, ferr
}

func checkFinite(port string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("port %q: %v is not a number", port, v)
	}
	return nil
}
