package hil

import (
	"fmt"
	"time"

	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
)

// Scenario is one scenario file, loaded and checked: a world with robots on
// it, each running a mission, faults at simulated times, and what must
// hold when the run is over. Paths in it are resolved against the file's
// directory.
type Scenario struct {
	// File is the file the scenario was read from.
	File string
	// Name is the scenario's name [the file's name]; a run of a matrix
	// has its parameters after it: "patrol [seed=2 battery=0.12]".
	Name string
	// Params are the run's parameters, in the matrix's order (seed among
	// them when the matrix or --seeds gave it); none without a matrix.
	Params []Param
	// World is the world's directory (its map and places.yaml).
	World string
	// Places are the world's places, read at load time so that every name
	// in the scenario is checked against them.
	Places *places.Places
	// Seed seeds the simulator and the missions' random nodes [1].
	Seed uint64
	// TimeLimit bounds the run in simulated time: a mission still running
	// then is stopped ("time limit").
	TimeLimit time.Duration
	// Long marks a run of minutes of wall time (a soak): a folder given to
	// Plan leaves it out unless Selection.Long; named as a file, it runs.
	Long bool
	// VisitRadius is how close (m) a robot must come to a place for it to
	// count as visited [0.5].
	VisitRadius float64
	Robots      []Robot
	Faults      []Fault
	Expect      []Expectation
	// Serve, when set, runs the robot's missions from a mission server
	// (btrobot serve's, the executor package) that Goals drive, instead of
	// one mission (goals.go).
	Serve *ServeConf
	Goals []Goal
}

// Robot is one simulated robot and the mission it runs.
type Robot struct {
	Pos  runtime.Pos
	Name string
	// Spawn is the robot's starting pose (the spawn place it names, or the
	// one named like the robot).
	Spawn places.Pose
	// Battery is the initial charge, a fraction in (0, 1] [1].
	Battery float64
	Mission MissionConf
}

// MissionConf is a robot's mission, as files.
type MissionConf struct {
	Pos runtime.Pos
	// Tree, Main, Profile, Places and Substitute are mission.LoadConf's;
	// Places defaults to the world.
	Tree, Main, Profile, Places, Substitute string
	// Blackboard are root blackboard entries, key=value (mission.Entry).
	Blackboard []string
	// StopWhen, when set, ends the run as done once the blackboard entry
	// holds a number at least that large (a patrol that never ends, asked
	// for a number of visits).
	StopWhen *StopWhen
}

// StopWhen ends a mission as done when Entry reaches AtLeast.
type StopWhen struct {
	Entry   string
	AtLeast float64
}

// String reads like the scenario line.
func (s StopWhen) String() string { return fmt.Sprintf("%s reached %g", s.Entry, s.AtLeast) }

// Robot returns the scenario's robot of that name.
func (s *Scenario) Robot(name string) (Robot, bool) {
	for _, r := range s.Robots {
		if r.Name == name {
			return r, true
		}
	}
	return Robot{}, false
}

func (s *Scenario) robotNames() []string {
	names := make([]string, len(s.Robots))
	for i, r := range s.Robots {
		names[i] = r.Name
	}
	return names
}

// placePose is where the place called name is: a waypoint, a dock or a
// spawn place.
func (s *Scenario) placePose(name string) (places.Pose, bool) {
	if s.Places == nil {
		return places.Pose{}, false
	}
	if p, ok := s.Places.Lookup(name); ok {
		return p, true
	}
	if sp, ok := s.Places.Spawn(name); ok {
		return sp.Pose, true
	}
	return places.Pose{}, false
}
