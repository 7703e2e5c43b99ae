package sim

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// Place is a named pose in the world.
type Place struct {
	Name string
	Pose Pose

	line int // in the places file, for errors found when loading the world
}

// Dock is a docking station: Pose is where the robot's base is when it is
// docked (facing the station), Approach where it lines up before driving in
// and where it backs out to when undocking.
type Dock struct {
	Name     string
	Pose     Pose
	Approach Pose

	line int
}

// Places holds the named places of a world, in file order (a patrol visits
// waypoints in that order).
type Places struct {
	// Map is the map YAML file the places belong to, as written in the file.
	Map       string
	mapLine   int
	Waypoints []Place
	Docks     []Dock
	Spawns    []Place
}

// Waypoint returns the waypoint called name.
func (p *Places) Waypoint(name string) (Place, bool) {
	for _, w := range p.Waypoints {
		if w.Name == name {
			return w, true
		}
	}
	return Place{}, false
}

// Dock returns the dock called name.
func (p *Places) Dock(name string) (Dock, bool) {
	for _, d := range p.Docks {
		if d.Name == name {
			return d, true
		}
	}
	return Dock{}, false
}

// Spawn returns the spawn pose called name.
func (p *Places) Spawn(name string) (Place, bool) {
	for _, s := range p.Spawns {
		if s.Name == name {
			return s, true
		}
	}
	return Place{}, false
}

var placesKeys = []string{"map", "waypoints", "docks", "spawns"}

// LoadPlaces reads a places file:
//
//	map: office.yaml          # the map_server YAML beside it
//	spawns:
//	  - {name: robot1, pose: [1.0, 6.0, 0]}
//	waypoints:                # poses are [x, y] or [x, y, yaw]
//	  - {name: lobby, pose: [2.0, 6.0]}
//	docks:
//	  - {name: dock1, pose: [0.6, 1.0, 3.14159], approach: [1.4, 1.0, 3.14159]}
//
// Names must be unique within each list. Errors name the file and line.
func LoadPlaces(path string) (*Places, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePlaces(path, data)
}

// ParsePlaces parses a places document; file names it in errors.
func ParsePlaces(file string, data []byte) (*Places, error) {
	root, err := yamlMapping(file, data)
	if err != nil {
		return nil, err
	}
	p := &Places{}
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		switch key.Value {
		case "map":
			if val.Kind != yaml.ScalarNode || val.Value == "" {
				return nil, fileErr(file, val.Line, "map", "want the map YAML file's path, got %s", nodeKind(val))
			}
			p.Map, p.mapLine = val.Value, val.Line
		case "waypoints", "spawns":
			list, err := parsePlaceList(file, key.Value, val, false)
			if err != nil {
				return nil, err
			}
			if key.Value == "waypoints" {
				p.Waypoints = placesOf(list)
			} else {
				p.Spawns = placesOf(list)
			}
		case "docks":
			list, err := parsePlaceList(file, "docks", val, true)
			if err != nil {
				return nil, err
			}
			for _, e := range list {
				p.Docks = append(p.Docks, Dock{Name: e.name, Pose: e.pose, Approach: e.approach, line: e.line})
			}
		default:
			msg := "unknown key; want map, waypoints, docks or spawns"
			if s := suggestKey(key.Value, placesKeys); s != "" {
				msg = fmt.Sprintf("unknown key; did you mean %s?", s)
			}
			return nil, fileErr(file, key.Line, key.Value, "%s", msg)
		}
	}
	return p, nil
}

type placeEntry struct {
	name           string
	pose, approach Pose
	line           int
}

func placesOf(list []placeEntry) []Place {
	out := make([]Place, len(list))
	for k, e := range list {
		out[k] = Place{Name: e.name, Pose: e.pose, line: e.line}
	}
	return out
}

func parsePlaceList(file, list string, n *yaml.Node, dock bool) ([]placeEntry, error) {
	if n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fileErr(file, n.Line, list, "want a list of places, got %s", nodeKind(n))
	}
	var out []placeEntry
	names := map[string]int{}
	for idx, item := range n.Content {
		field := fmt.Sprintf("%s[%d]", list, idx)
		if item.Kind != yaml.MappingNode {
			return nil, fileErr(file, item.Line, field, "want {name: ..., pose: [x, y, yaw]}, got %s", nodeKind(item))
		}
		e := placeEntry{line: item.Line}
		var havePose, haveApproach bool
		for k := 0; k+1 < len(item.Content); k += 2 {
			key, val := item.Content[k], item.Content[k+1]
			var err error
			switch {
			case key.Value == "name":
				if val.Kind != yaml.ScalarNode || val.Value == "" || val.Tag == "!!null" {
					return nil, fileErr(file, val.Line, field+".name", "want a name, got %s", nodeKind(val))
				}
				e.name = val.Value
			case key.Value == "pose":
				e.pose, err = yamlPose(file, field+".pose", val, !dock)
				havePose = true
			case key.Value == "approach" && dock:
				e.approach, err = yamlPose(file, field+".approach", val, false)
				haveApproach = true
			default:
				want := "name and pose"
				if dock {
					want = "name, pose and approach"
				}
				return nil, fileErr(file, key.Line, field+"."+key.Value, "unknown key; want %s", want)
			}
			if err != nil {
				return nil, err
			}
		}
		switch {
		case e.name == "":
			return nil, fileErr(file, item.Line, field+".name", "missing")
		case !havePose:
			return nil, fileErr(file, item.Line, field+".pose", "missing")
		case dock && !haveApproach:
			return nil, fileErr(file, item.Line, field+".approach", "missing")
		}
		if prev, dup := names[e.name]; dup {
			return nil, fileErr(file, item.Line, field+".name", "%q is already used on line %d", e.name, prev)
		}
		names[e.name] = item.Line
		out = append(out, e)
	}
	return out, nil
}
