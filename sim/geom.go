package sim

import (
	"fmt"
	"math"
)

// Pose is a planar pose: position in metres and heading (yaw) in radians,
// counter-clockwise from the frame's x axis.
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

// Twist is a planar velocity: forward speed in m/s and turn rate in rad/s,
// as the linear.x and angular.z of a geometry_msgs/Twist.
type Twist struct {
	Linear, Angular float64
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

// Rect is an axis-aligned rectangle in world coordinates, used for obstacles
// placed in the world. MinX <= MaxX and MinY <= MaxY.
type Rect struct {
	MinX, MinY, MaxX, MaxY float64
}

// String formats the rectangle as "[x0, y0]-[x1, y1]".
func (r Rect) String() string {
	return fmt.Sprintf("[%.2f, %.2f]-[%.2f, %.2f]", r.MinX, r.MinY, r.MaxX, r.MaxY)
}

// distanceToRect returns the distance from (x, y) to the closest point of the
// rectangle, 0 when the point is inside.
func distanceToRect(x, y float64, r Rect) float64 {
	dx := math.Max(math.Max(r.MinX-x, 0), x-r.MaxX)
	dy := math.Max(math.Max(r.MinY-y, 0), y-r.MaxY)
	return math.Hypot(dx, dy)
}

// integrate advances a pose by a twist held constant for dt seconds, exactly
// (the pose follows a circular arc, or a straight line when w is 0), so that
// integration error does not depend on the step size.
func integrate(p Pose, v, w, dt float64) Pose {
	if v == 0 && w == 0 {
		return p
	}
	dth := w * dt
	if math.Abs(dth) < 1e-9 {
		// Straight line; the arc formula divides by w. Use the midpoint
		// heading so the second-order term is kept.
		s, c := math.Sincos(p.Yaw + dth/2)
		return Pose{X: p.X + v*dt*c, Y: p.Y + v*dt*s, Yaw: NormalizeAngle(p.Yaw + dth)}
	}
	r := v / w
	s0, c0 := math.Sincos(p.Yaw)
	s1, c1 := math.Sincos(p.Yaw + dth)
	return Pose{
		X:   p.X + r*(s1-s0),
		Y:   p.Y - r*(c1-c0),
		Yaw: NormalizeAngle(p.Yaw + dth),
	}
}
