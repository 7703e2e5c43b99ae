package places

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/runtime"
)

var fileKeys = []string{"map", "waypoints", "docks", "spawns"}

// Load reads a places file:
//
//	map: office.yaml          # the map_server YAML beside it
//	spawns:
//	  - {name: robot1, pose: [1.0, 6.0, 0]}
//	waypoints:                # poses are [x, y] or [x, y, yaw]
//	  - {name: lobby, pose: [2.0, 6.0]}
//	docks:
//	  - {name: dock1, pose: [0.6, 1.0, 3.14159], approach: [1.4, 1.0, 3.14159]}
//
// A file that is not a regular file of at most input.MaxDocumentSize bytes
// is refused before it is read. The errors are Parse's.
func Load(path string) (*Places, error) {
	data, err := input.ReadFile(path, input.Places)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a places document; file names it in errors. Names are unique
// within the spawns and among the waypoints and docks together (a tree names
// both), and may not hold ';', ',' or braces. The first problem is returned,
// as a *runtime.BuildError at file:line:col naming the field
// (waypoints[2].pose) and what would be right.
func Parse(file string, data []byte) (*Places, error) {
	if err := input.Places.CheckSize(file, data); err != nil {
		return nil, err
	}
	root, err := input.YAML(file, data)
	if err != nil {
		return nil, err
	}
	d := decoder{file: file}
	if root == nil {
		return nil, d.errAt(nil, "", "the places file is empty: give map, waypoints, docks or spawns")
	}
	if root.Kind != yaml.MappingNode {
		return nil, d.errAt(root, "", "want a mapping of map, waypoints, docks and spawns, got %s", input.Describe(root))
	}
	p := &Places{File: file}
	targets := map[string]runtime.Pos{} // waypoint and dock names
	seen := map[string]bool{}
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		if seen[key.Value] {
			return nil, d.errAt(key, key.Value, "given twice")
		}
		seen[key.Value] = true
		switch key.Value {
		case "map":
			if val.Kind != yaml.ScalarNode || val.Value == "" || val.Tag == "!!null" {
				return nil, d.errAt(val, "map", "want the map YAML file's path, got %s", input.Describe(val))
			}
			p.Map, p.MapPos = val.Value, d.pos(val)
		case "waypoints", "spawns":
			names := targets
			if key.Value == "spawns" {
				names = map[string]runtime.Pos{}
			}
			list, err := d.list(key.Value, val, false, names)
			if err != nil {
				return nil, err
			}
			for _, e := range list {
				pl := Place{Name: e.Name, Pose: e.Pose, Pos: e.Pos}
				if key.Value == "waypoints" {
					p.Waypoints = append(p.Waypoints, pl)
				} else {
					p.Spawns = append(p.Spawns, pl)
				}
			}
		case "docks":
			list, err := d.list("docks", val, true, targets)
			if err != nil {
				return nil, err
			}
			p.Docks = list
		default:
			msg := "unknown key; want map, waypoints, docks or spawns"
			if near := runtime.NearestNames(key.Value, fileKeys, 1); len(near) > 0 {
				msg = "unknown key; did you mean " + near[0] + "?"
			}
			return nil, d.errAt(key, key.Value, "%s", msg)
		}
	}
	return p, nil
}

// decoder places the errors of one file.
type decoder struct{ file string }

func (d decoder) pos(n *yaml.Node) runtime.Pos {
	if n == nil {
		return runtime.Pos{File: d.file, Line: 1, Col: 1}
	}
	return input.Pos(d.file, n)
}

func (d decoder) errAt(n *yaml.Node, field, format string, args ...any) error {
	return &runtime.BuildError{Pos: d.pos(n), Path: field, Msg: fmt.Sprintf(format, args...)}
}

// list reads a list of places (docks, with approach poses, when dock);
// names holds the names given so far, which must not come again.
func (d decoder) list(list string, n *yaml.Node, dock bool, names map[string]runtime.Pos) ([]Dock, error) {
	if n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errAt(n, list, "want a list of places, got %s", input.Describe(n))
	}
	var out []Dock
	for idx, item := range n.Content {
		field := fmt.Sprintf("%s[%d]", list, idx)
		if item.Kind != yaml.MappingNode {
			return nil, d.errAt(item, field, "want {name: ..., pose: [x, y, yaw]}, got %s", input.Describe(item))
		}
		e := Dock{Pos: d.pos(item)}
		var nameNode *yaml.Node
		var havePose, haveApproach bool
		for k := 0; k+1 < len(item.Content); k += 2 {
			key, val := item.Content[k], item.Content[k+1]
			var err error
			switch {
			case key.Value == "name":
				if val.Kind != yaml.ScalarNode || val.Value == "" || val.Tag == "!!null" {
					return nil, d.errAt(val, field+".name", "want a name, got %s", input.Describe(val))
				}
				e.Name, nameNode = val.Value, val
			case key.Value == "pose":
				e.Pose, err = d.pose(field+".pose", val, !dock)
				havePose = true
			case key.Value == "approach" && dock:
				e.Approach, err = d.pose(field+".approach", val, false)
				haveApproach = true
			default:
				want := "name and pose"
				if dock {
					want = "name, pose and approach"
				}
				return nil, d.errAt(key, field+"."+key.Value, "unknown key; want %s", want)
			}
			if err != nil {
				return nil, err
			}
		}
		switch {
		case nameNode == nil:
			return nil, d.errAt(item, field+".name", "missing")
		case !havePose:
			return nil, d.errAt(item, field+".pose", "missing")
		case dock && !haveApproach:
			return nil, d.errAt(item, field+".approach", "missing")
		}
		if msg := nameProblem(e.Name); msg != "" {
			return nil, d.errAt(nameNode, field+".name", "%s", strings.TrimPrefix(msg, "name "))
		}
		if prev, dup := names[e.Name]; dup {
			return nil, d.errAt(nameNode, field+".name", "%q is already used on line %d", e.Name, prev.Line)
		}
		names[e.Name] = e.Pos
		out = append(out, e)
	}
	return out, nil
}

func (d decoder) pose(field string, n *yaml.Node, allow2 bool) (Pose, error) {
	return DecodePose(d.file, field, n, allow2)
}

// DecodePose decodes a pose written [x, y, yaw], or [x, y] (yaw 0) too when
// allow2 is set; errors name field and are placed in file.
func DecodePose(file, field string, n *yaml.Node, allow2 bool) (Pose, error) {
	d := decoder{file: file}
	want := "[x, y, yaw]"
	if allow2 {
		want = "[x, y] or [x, y, yaw]"
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) > 3 || len(n.Content) < 2 || (!allow2 && len(n.Content) != 3) {
		got := input.Describe(n)
		if n.Kind == yaml.SequenceNode {
			got = fmt.Sprintf("%d numbers", len(n.Content))
		}
		return Pose{}, d.errAt(n, field, "want %s, got %s", want, got)
	}
	var v [3]float64
	for k, c := range n.Content {
		f, err := input.Number(d.file, fmt.Sprintf("%s[%d]", field, k), c)
		if err != nil {
			return Pose{}, err
		}
		v[k] = f
	}
	return Pose{X: v[0], Y: v[1], Yaw: v[2]}, nil
}
