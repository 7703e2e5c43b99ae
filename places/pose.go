package places

import (
	"fmt"
	"math"
)

// Pose is a planar pose: position in metres and heading (yaw) in radians,
// counter-clockwise from the frame's x axis (REP 103).
type Pose struct {
	X, Y, Yaw float64
}

// String formats the pose as "(x, y, yaw)" with centimetre precision, as it
// appears in error messages.
func (p Pose) String() string {
	return fmt.Sprintf("(%.2f, %.2f, %.2f)", p.X, p.Y, p.Yaw)
}

// Compose returns q expressed in the frame that p is expressed in, where q is
// given relative to p: the pose of a child frame at q inside a frame at p.
func (p Pose) Compose(q Pose) Pose {
	s, c := math.Sincos(p.Yaw)
	return Pose{
		X:   p.X + c*q.X - s*q.Y,
		Y:   p.Y + s*q.X + c*q.Y,
		Yaw: NormalizeAngle(p.Yaw + q.Yaw),
	}
}

// Relative returns q expressed in p's frame; p.Compose(p.Relative(q)) == q up
// to rounding.
func (p Pose) Relative(q Pose) Pose {
	s, c := math.Sincos(p.Yaw)
	dx, dy := q.X-p.X, q.Y-p.Y
	return Pose{
		X:   c*dx + s*dy,
		Y:   -s*dx + c*dy,
		Yaw: NormalizeAngle(q.Yaw - p.Yaw),
	}
}

// DistanceTo returns the Euclidean distance between the positions of p and q.
func (p Pose) DistanceTo(q Pose) float64 {
	return math.Hypot(q.X-p.X, q.Y-p.Y)
}

// NormalizeAngle returns a wrapped into [-pi, pi).
func NormalizeAngle(a float64) float64 {
	if a >= -math.Pi && a < math.Pi {
		return a
	}
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a < 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}
