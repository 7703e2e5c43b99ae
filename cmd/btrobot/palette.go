package main

import (
	"fmt"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// palette returns the registry every command loads trees against: the
// built-in nodes and everything btrobot ships on top of them, wired to no
// robot (enough to check, export and tick trees that do not talk ROS).
func palette() *runtime.Registry {
	reg, err := paletteFor(ros.Deps{})
	if err != nil {
		// Two node types with one name: a bug in btrobot, found by
		// TestPaletteHasTheRobotNodes before any release.
		panic(err)
	}
	return reg
}

// paletteFor returns the palette with the ROS nodes wired to deps: a
// connection to tick them, a profile to resolve the names of its actions
// and services.
func paletteFor(deps ros.Deps) (*runtime.Registry, error) {
	reg := runtime.NewRegistry()
	if err := ros.Register(reg, deps); err != nil {
		return nil, fmt.Errorf("the palette: %w", err)
	}
	return reg, nil
}
