package mission

import (
	"fmt"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/skills"
)

// Deps is what the palette's robot nodes are wired to. The zero Deps wires
// them to no robot: enough to check trees, export the palette, and tick the
// trees that do not talk to ROS.
type Deps struct {
	// Conn is the robot's ROS connection; nil when trees are only checked.
	Conn *ros.Conn
	// Profile is the robot profile: its topics, actions and services.
	Profile *bridge.Profile
	// Places are the world's named places (NavigateTo goal="kitchen").
	Places *places.Places
	// OdomOrigin is the odom frame's origin in the map frame.
	OdomOrigin skills.Pose
	// Log receives what Log nodes say.
	Log func(skills.LogEntry)
}

// Palette returns the registry trees are loaded against: the built-in
// nodes, the generic ROS nodes and the robot skills, wired to d. An error
// means bad deps (places with two places of one name, say).
func Palette(d Deps) (*runtime.Registry, error) {
	reg := runtime.NewRegistry()
	if err := bridge.Register(reg, bridge.Deps{Conn: d.Conn, Profile: d.Profile}); err != nil {
		return nil, fmt.Errorf("the palette: %w", err)
	}
	if err := skills.Register(reg, skills.Deps{
		Conn: d.Conn, Profile: d.Profile, Places: d.Places, OdomOrigin: d.OdomOrigin, Log: d.Log,
	}); err != nil {
		return nil, fmt.Errorf("the palette: %w", err)
	}
	return reg, nil
}

// Nodes is the palette wired to no robot, for checking trees, exporting
// the node model and ticking trees offline.
func Nodes() *runtime.Registry {
	reg, err := Palette(Deps{})
	if err != nil {
		// Two node types with one name: a bug in btrobot, found by
		// TestPaletteHasTheRobotNodes before any release.
		panic(err)
	}
	return reg
}

// palette is the registry m's tree is checked and built against: the
// palette wired to d, and m's own node types.
func (m *Mission) palette(d Deps) (*runtime.Registry, error) {
	reg, err := Palette(d)
	if err != nil {
		return nil, err
	}
	for _, t := range m.Nodes {
		if err := reg.Register(t); err != nil {
			return nil, fmt.Errorf("the mission's own nodes: %w", err)
		}
	}
	return reg, nil
}
