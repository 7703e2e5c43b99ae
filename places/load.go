package places

import (
	"fmt"
	"sort"
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
// is refused before it is read (a runtime.ErrorList of one problem); a file
// that cannot be opened is the system's *fs.PathError. The other errors are
// Parse's.
func Load(path string) (*Places, error) {
	data, err := input.ReadFile(path, input.Places)
	if be, ok := err.(*runtime.BuildError); ok {
		return nil, runtime.ErrorList{be}
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a places document; file names it in errors. Names are unique
// within the spawns and among the waypoints and docks together (a tree names
// both), and may not hold ';', ',' or braces. Every problem found is
// returned at once, as a runtime.ErrorList in file order, each at
// file:line:col naming the field (waypoints[2].pose) and what would be
// right.
func Parse(file string, data []byte) (*Places, error) {
	if err := input.Places.CheckSize(file, data); err != nil {
		return nil, runtime.ErrorList{err.(*runtime.BuildError)}
	}
	root, err := input.YAML(file, data)
	if err != nil {
		return nil, runtime.ErrorList{err.(*runtime.BuildError)}
	}
	d := &decoder{file: file}
	if root == nil {
		d.add(nil, "", "the places file is empty: give map, waypoints, docks or spawns")
		return nil, d.errs
	}
	if root.Kind != yaml.MappingNode {
		d.add(root, "", "want a mapping of map, waypoints, docks and spawns, got %s", input.Describe(root))
		return nil, d.errs
	}
	p := &Places{File: file}
	targets := map[string]runtime.Pos{} // waypoint and dock names
	seen := map[string]bool{}
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		if seen[key.Value] {
			d.add(key, key.Value, "given twice")
			continue
		}
		seen[key.Value] = true
		switch key.Value {
		case "map":
			if val.Kind != yaml.ScalarNode || val.Value == "" || val.Tag == "!!null" {
				d.add(val, "map", "want the map YAML file's path, got %s", input.Describe(val))
				continue
			}
			p.Map, p.MapPos = val.Value, d.pos(val)
		case "waypoints", "spawns":
			names := targets
			if key.Value == "spawns" {
				names = map[string]runtime.Pos{}
			}
			for _, e := range d.list(key.Value, val, false, names) {
				pl := Place{Name: e.Name, Pose: e.Pose, Pos: e.Pos}
				if key.Value == "waypoints" {
					p.Waypoints = append(p.Waypoints, pl)
				} else {
					p.Spawns = append(p.Spawns, pl)
				}
			}
		case "docks":
			p.Docks = d.list("docks", val, true, targets)
		default:
			msg := "unknown key; want map, waypoints, docks or spawns"
			if near := runtime.NearestNames(key.Value, fileKeys, 1); len(near) > 0 {
				msg = "unknown key; did you mean " + near[0] + "?"
			}
			d.add(key, key.Value, "%s", msg)
		}
	}
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i].Pos, d.errs[j].Pos
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		return nil, d.errs
	}
	return p, nil
}

// decoder collects the problems of one file.
type decoder struct {
	file string
	errs runtime.ErrorList
}

func (d *decoder) add(n *yaml.Node, field, format string, args ...any) {
	d.errs = append(d.errs, &runtime.BuildError{Pos: d.pos(n), Path: field, Msg: fmt.Sprintf(format, args...)})
}

// addErr adds a problem found by a helper (a *runtime.BuildError).
func (d *decoder) addErr(err error) {
	if be, ok := err.(*runtime.BuildError); ok {
		d.errs = append(d.errs, be)
		return
	}
	d.errs = append(d.errs, &runtime.BuildError{Pos: runtime.Pos{File: d.file}, Msg: err.Error()})
}

func (d *decoder) pos(n *yaml.Node) runtime.Pos {
	if n == nil {
		return runtime.Pos{File: d.file, Line: 1, Col: 1}
	}
	return input.Pos(d.file, n)
}

func (d decoder) errAt(n *yaml.Node, field, format string, args ...any) error {
	return &runtime.BuildError{Pos: d.pos(n), Path: field, Msg: fmt.Sprintf(format, args...)}
}

// list reads a list of places (docks, with approach poses, when dock),
// leaving out those with problems; names holds the names given so far,
// which must not come again.
func (d *decoder) list(list string, n *yaml.Node, dock bool, names map[string]runtime.Pos) []Dock {
	if n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.add(n, list, "want a list of places, got %s", input.Describe(n))
		return nil
	}
	var out []Dock
items:
	for idx, item := range n.Content {
		field := fmt.Sprintf("%s[%d]", list, idx)
		if item.Kind != yaml.MappingNode {
			d.add(item, field, "want {name: ..., pose: [x, y, yaw]}, got %s", input.Describe(item))
			continue
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
					d.add(val, field+".name", "want a name, got %s", input.Describe(val))
					continue items
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
				d.add(key, field+"."+key.Value, "unknown key; want %s", want)
				continue items
			}
			if err != nil {
				d.addErr(err)
				continue items
			}
		}
		switch {
		case nameNode == nil:
			d.add(item, field+".name", "missing")
		case !havePose:
			d.add(item, field+".pose", "missing")
		case dock && !haveApproach:
			d.add(item, field+".approach", "missing")
		case nameProblem(e.Name) != "":
			d.add(nameNode, field+".name", "%s", strings.TrimPrefix(nameProblem(e.Name), "name "))
		default:
			if prev, dup := names[e.Name]; dup {
				d.add(nameNode, field+".name", "%q is already used on line %d", e.Name, prev.Line)
				continue
			}
			names[e.Name] = e.Pos
			out = append(out, e)
		}
	}
	return out
}

func (d *decoder) pose(field string, n *yaml.Node, allow2 bool) (Pose, error) {
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
