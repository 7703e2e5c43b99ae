package skills

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// Place is a named pose of the world, such as a room to patrol.
type Place struct {
	Name string
	Pose Pose
}

// Station is a charging dock of the world: Pose is where the robot is when
// docked, Approach where it lines up in front of the station.
type Station struct {
	Name     string
	Pose     Pose
	Approach Pose
}

// Places are the named places of the world a tree runs in: the waypoints
// (in patrol order) and the docks. Trees name them where they would write a
// pose (NavigateTo goal="kitchen"); the program that registers the skills
// gives them (the simulator's world, or a robot's site map).
type Places struct {
	Waypoints []Place
	Docks     []Station
}

// Names returns the waypoint names in patrol order.
func (p *Places) Names() []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(p.Waypoints))
	for i, w := range p.Waypoints {
		out[i] = w.Name
	}
	return out
}

// Lookup returns the pose of the waypoint or dock called name (a dock's
// docked pose).
func (p *Places) Lookup(name string) (Pose, bool) {
	if p == nil {
		return Pose{}, false
	}
	for _, w := range p.Waypoints {
		if w.Name == name {
			return w.Pose, true
		}
	}
	for _, d := range p.Docks {
		if d.Name == name {
			return d.Pose, true
		}
	}
	return Pose{}, false
}

// Dock returns the dock called name; "" names the first dock.
func (p *Places) Dock(name string) (Station, bool) {
	if p == nil || len(p.Docks) == 0 {
		return Station{}, false
	}
	if name == "" {
		return p.Docks[0], true
	}
	for _, d := range p.Docks {
		if d.Name == name {
			return d, true
		}
	}
	return Station{}, false
}

// Check reports duplicate or empty names, and names that would read as
// poses.
func (p *Places) Check() error {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var errs []error
	check := func(kind, name string) {
		switch {
		case name == "":
			errs = append(errs, fmt.Errorf("places: a %s has no name", kind))
		case seen[name]:
			errs = append(errs, fmt.Errorf("places: %q is given twice", name))
		case strings.ContainsAny(name, ";,{}"):
			errs = append(errs, fmt.Errorf("places: name %q: a place name has no ';', ',' or braces", name))
		}
		seen[name] = true
	}
	for _, w := range p.Waypoints {
		check("waypoint", w.Name)
	}
	for _, d := range p.Docks {
		check("dock", d.Name)
	}
	return errors.Join(errs...)
}

// resolve reads a target as trees write it: a place name, or a pose
// "x;y;yaw", "x;y" (or with commas).
func (p *Places) resolve(target string) (Pose, error) {
	t := strings.TrimSpace(target)
	if t == "" {
		return Pose{}, errors.New("no place or pose given")
	}
	if pose, ok := p.Lookup(t); ok {
		return pose, nil
	}
	if looksLikePose(t) {
		return ParsePose(t)
	}
	return Pose{}, fmt.Errorf("%q is neither a place of the world%s nor a pose x;y;yaw", t, p.hint(t))
}

func looksLikePose(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')
}

// hint lists the places near name, for errors.
func (p *Places) hint(name string) string {
	if p == nil {
		return " (no places were given to the skills)"
	}
	var names []string
	for _, w := range p.Waypoints {
		names = append(names, w.Name)
	}
	for _, d := range p.Docks {
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		return " (the world has no places)"
	}
	if near := nearest(name, names); len(near) > 0 {
		return " (did you mean " + strings.Join(near, " or ") + "?)"
	}
	return " (places: " + strings.Join(names, ", ") + ")"
}
