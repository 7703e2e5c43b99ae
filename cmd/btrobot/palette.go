package main

import (
	"fmt"

	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/skills"
)

// palette returns the registry every command loads trees against: the
// built-in nodes, the generic ROS nodes and the robot skills, wired to no
// robot (enough to check and export trees, and to tick those that do not
// talk to ROS).
func palette() *runtime.Registry {
	reg, err := paletteFor(robotDeps{})
	if err != nil {
		// Two node types with one name: a bug in btrobot, found by
		// TestPaletteHasTheRobotNodes before any release.
		panic(err)
	}
	return reg
}

// robotDeps is what the palette's robot nodes are wired to.
type robotDeps struct {
	conn    *ros.Conn
	profile *ros.Profile
	// places are the world's named places (NavigateTo goal="kitchen").
	places *places.Places
	// odomOrigin is the odom frame's origin in the map frame.
	odomOrigin skills.Pose
	// log receives what Log nodes say.
	log func(skills.LogEntry)
}

// paletteFor returns the palette with the ROS nodes and the skills wired
// to d: a connection to tick them, a profile for the robot's topics and
// servers, the places trees may name.
func paletteFor(d robotDeps) (*runtime.Registry, error) {
	reg := runtime.NewRegistry()
	if err := ros.Register(reg, ros.Deps{Conn: d.conn, Profile: d.profile}); err != nil {
		return nil, fmt.Errorf("the palette: %w", err)
	}
	if err := skills.Register(reg, skills.Deps{
		Conn: d.conn, Profile: d.profile, Places: d.places, OdomOrigin: d.odomOrigin, Log: d.log,
	}); err != nil {
		return nil, fmt.Errorf("the palette: %w", err)
	}
	return reg, nil
}
