package sim

import (
	"fmt"
	"math"

	"github.com/btrobot/btrobot/places"
)

// Pose is a planar pose: position in metres and heading (yaw) in radians,
// counter-clockwise from the frame's x axis. It is the pose of the places
// of a world (package places), so that a spawn, a waypoint or a dock is
// used as read.
type Pose = places.Pose

// Place is a named pose of the world; Dock a docking station; Places the
// named places of a world, read from its places.yaml (places.Load).
type (
	Place  = places.Place
	Dock   = places.Dock
	Places = places.Places
)

// Twist is a planar velocity: forward speed in m/s and turn rate in rad/s,
// as the linear.x and angular.z of a geometry_msgs/Twist.
type Twist struct {
	Linear, Angular float64
}

// NormalizeAngle returns a wrapped into [-pi, pi).
func NormalizeAngle(a float64) float64 { return places.NormalizeAngle(a) }

func isNaNOrInf(v float64) bool { return v != v || v > 1e308 || v < -1e308 }

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
