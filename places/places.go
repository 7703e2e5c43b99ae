package places

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btrobot/btrobot/runtime"
)

// Place is a named pose of the world: a waypoint or a spawn pose.
type Place struct {
	Name string
	Pose Pose
	// Pos is where the place was written (zero when not read from a file).
	Pos runtime.Pos
}

// Dock is a docking station: Pose is where the robot's base is when it is
// docked (facing the station), Approach where it lines up before driving in
// and where it backs out to when undocking.
type Dock struct {
	Name     string
	Pose     Pose
	Approach Pose
	Pos      runtime.Pos
}

// Places are the named places of a world, in file order (a patrol visits
// the waypoints in that order). Trees name waypoints and docks wherever they
// would write a pose; spawn poses are named after the robots that start
// there. The zero value (and a nil *Places) has no places.
type Places struct {
	// File is the places file they were read from ("" when made in code).
	File string
	// Map is the map YAML file the places belong to, as written in the
	// file; MapPos where.
	Map       string
	MapPos    runtime.Pos
	Waypoints []Place
	Docks     []Dock
	Spawns    []Place
}

// Waypoint returns the waypoint called name.
func (p *Places) Waypoint(name string) (Place, bool) {
	if p == nil {
		return Place{}, false
	}
	for _, w := range p.Waypoints {
		if w.Name == name {
			return w, true
		}
	}
	return Place{}, false
}

// Dock returns the dock called name; "" names the first dock.
func (p *Places) Dock(name string) (Dock, bool) {
	if p == nil || len(p.Docks) == 0 {
		return Dock{}, false
	}
	if name == "" {
		return p.Docks[0], true
	}
	for _, d := range p.Docks {
		if d.Name == name {
			return d, true
		}
	}
	return Dock{}, false
}

// Spawn returns the spawn pose called name.
func (p *Places) Spawn(name string) (Place, bool) {
	if p == nil {
		return Place{}, false
	}
	for _, s := range p.Spawns {
		if s.Name == name {
			return s, true
		}
	}
	return Place{}, false
}

// Lookup returns the pose of the waypoint or dock called name (a dock's
// docked pose).
func (p *Places) Lookup(name string) (Pose, bool) {
	if w, ok := p.Waypoint(name); ok {
		return w.Pose, true
	}
	if name == "" {
		return Pose{}, false
	}
	if d, ok := p.Dock(name); ok {
		return d.Pose, true
	}
	return Pose{}, false
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

// Targets returns the names trees may give as targets: the waypoints, then
// the docks.
func (p *Places) Targets() []string {
	out := p.Names()
	if p != nil {
		for _, d := range p.Docks {
			out = append(out, d.Name)
		}
	}
	return out
}

// Check reports empty names, a name given twice among the waypoints and
// docks (a tree could not tell them apart), and names that would read as
// poses or lists in a tree (';', ',', braces). Parse checks the same; Check
// is for places made in code.
func (p *Places) Check() error {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var errs []error
	check := func(kind, name string) {
		if msg := nameProblem(name); msg != "" {
			errs = append(errs, fmt.Errorf("places: a %s %s", kind, msg))
			return
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("places: %q is given twice", name))
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

// nameProblem says what is wrong with a place name, or "".
func nameProblem(name string) string {
	switch {
	case name == "":
		return "has no name"
	case strings.ContainsAny(name, ";,{}"):
		return fmt.Sprintf("name %q has ';', ',' or braces, which trees read as a pose or a list", name)
	}
	return ""
}
