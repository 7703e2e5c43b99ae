package skills

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/btrobot/btrobot/places"
)

// Pose is a pose on the floor: X and Y in metres, Yaw in radians
// counter-clockwise from the X axis (REP 103).
type Pose struct {
	X, Y, Yaw float64
}

// String writes the pose as trees write it: "x;y;yaw".
func (p Pose) String() string {
	return strconv.FormatFloat(p.X, 'f', -1, 64) + ";" +
		strconv.FormatFloat(p.Y, 'f', -1, 64) + ";" +
		strconv.FormatFloat(p.Yaw, 'f', -1, 64)
}

// MarshalText writes the pose as String does.
func (p Pose) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a pose written "x;y;yaw" or "x;y" (yaw 0); commas may
// stand for the semicolons, so that a pose fits in a ';'-separated list.
func (p *Pose) UnmarshalText(b []byte) error {
	q, err := ParsePose(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ParsePose reads "x;y;yaw" or "x;y" (or the same with commas): metres and
// radians.
func ParsePose(s string) (Pose, error) {
	t := strings.TrimSpace(s)
	sep := ";"
	if !strings.Contains(t, ";") {
		sep = ","
	}
	parts := strings.Split(t, sep)
	if len(parts) != 2 && len(parts) != 3 {
		return Pose{}, fmt.Errorf("%q is not a pose: write x;y;yaw (metres, radians) or x;y", s)
	}
	var v [3]float64
	for i, part := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Pose{}, fmt.Errorf("%q is not a pose: %q is not a number (write x;y;yaw in metres and radians)", s, strings.TrimSpace(part))
		}
		v[i] = f
	}
	return Pose{X: v[0], Y: v[1], Yaw: v[2]}, nil
}

// DistanceTo returns the distance in metres between the positions of p and
// q.
func (p Pose) DistanceTo(q Pose) float64 { return math.Hypot(q.X-p.X, q.Y-p.Y) }

// Compose returns q expressed in the frame p is expressed in, when q is
// given relative to p: the pose of a robot in the map from the map pose of
// its odom frame (p) and its odometry (q).
func (p Pose) Compose(q Pose) Pose {
	s, c := math.Sincos(p.Yaw)
	return Pose{
		X:   p.X + c*q.X - s*q.Y,
		Y:   p.Y + s*q.X + c*q.Y,
		Yaw: normalizeAngle(p.Yaw + q.Yaw),
	}
}

// normalizeAngle returns a in (-π, π].
func normalizeAngle(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	switch {
	case a > math.Pi:
		a -= 2 * math.Pi
	case a <= -math.Pi:
		a += 2 * math.Pi
	}
	return a
}

// resolve reads a target as trees write it: a place name of p (a waypoint
// or a dock), or a pose "x;y;yaw", "x;y" (or with commas).
func resolve(p *places.Places, target string) (Pose, error) {
	t := strings.TrimSpace(target)
	if t == "" {
		return Pose{}, errors.New("no place or pose given")
	}
	if pose, ok := p.Lookup(t); ok {
		return Pose(pose), nil
	}
	if looksLikePose(t) {
		return ParsePose(t)
	}
	return Pose{}, fmt.Errorf("%q is neither a place of the world%s nor a pose x;y;yaw", t, hint(p, t))
}

func looksLikePose(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')
}

// hint lists the places of p near name, for errors.
func hint(p *places.Places, name string) string {
	if p == nil {
		return " (no places were given to the skills)"
	}
	names := p.Targets()
	if len(names) == 0 {
		return " (the world has no places)"
	}
	if near := nearest(name, names); len(near) > 0 {
		return " (did you mean " + strings.Join(near, " or ") + "?)"
	}
	return " (places: " + strings.Join(names, ", ") + ")"
}
