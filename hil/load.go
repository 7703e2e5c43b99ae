package hil

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// Defaults of a scenario.
const (
	DefaultSeed        = 1
	DefaultVisitRadius = 0.5
	// MaxTimeLimit bounds time_limit: a simulated day.
	MaxTimeLimit = 24 * time.Hour
	// maxRobots bounds robots: a fleet, not a swarm.
	maxRobots = 32
)

// IsScenario reports whether path names a scenario file by its name:
// *.scenario.yaml or *.scenario.yml. btrobot check and btrobot hil go by
// it.
func IsScenario(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	return strings.HasSuffix(base, ".scenario.yaml") || strings.HasSuffix(base, ".scenario.yml")
}

// Load reads and checks a scenario file. Every problem is returned at
// once, as a runtime.ErrorList in file order, each at file:line:col naming
// the field (faults[2].at) and what would be right; a file that cannot be
// opened is the system's *fs.PathError. The missions' trees and profiles
// are not loaded here (Run loads them; Check does both). A file with a
// matrix gives its first run; LoadRuns gives them all.
func Load(path string) (*Scenario, error) {
	runs, err := LoadRuns(path, nil)
	if err != nil {
		return nil, err
	}
	return runs[0], nil
}

// LoadRuns reads a scenario file and expands its matrix (see matrix.go)
// into its runs, in the matrix's order; a file without one is one run.
// seeds, when not nil, replace the seeds of the matrix (or of the file):
// each run is made once per seed. Errors are Load's, each given once
// however many runs share it.
func LoadRuns(path string, seeds []uint64) ([]*Scenario, error) {
	data, err := input.ReadFile(path, input.Scenario)
	if be, ok := err.(*runtime.BuildError); ok {
		return nil, runtime.ErrorList{be}
	}
	if err != nil {
		return nil, err
	}
	return ParseRuns(path, data, seeds)
}

// Parse parses a scenario document; file names it in errors and its
// directory is where relative paths start. A document with a matrix
// gives its first run (ParseRuns gives them all).
func Parse(file string, data []byte) (*Scenario, error) {
	runs, err := ParseRuns(file, data, nil)
	if err != nil {
		return nil, err
	}
	return runs[0], nil
}

// ParseRuns parses a scenario document and expands its matrix, as
// LoadRuns does; it returns at least one run or the errors.
func ParseRuns(file string, data []byte, seeds []uint64) ([]*Scenario, error) {
	if err := input.Scenario.CheckSize(file, data); err != nil {
		return nil, runtime.ErrorList{err.(*runtime.BuildError)}
	}
	root, err := input.YAML(file, data)
	if err != nil {
		return nil, runtime.ErrorList{err.(*runtime.BuildError)}
	}
	d := &decoder{file: file, dir: filepath.Dir(file)}
	params := d.matrix(root, seeds)
	if root != nil && len(params) > 0 {
		d.checkRefs(root, params)
		for _, p := range params {
			if p.name != "seed" || p.key == nil || seeds != nil || root.Kind != yaml.MappingNode {
				continue
			}
			for i := 0; i+1 < len(root.Content); i += 2 {
				if v := root.Content[i+1]; root.Content[i].Value == "seed" && !strings.Contains(v.Value, "${seed}") {
					d.add(v, "seed", "the matrix gives the seeds; leave seed: out")
				}
			}
		}
	}
	if len(d.errs) > 0 {
		return nil, d.sorted()
	}
	var runs []*Scenario
	said := map[string]bool{}
	for _, values := range combinations(params) {
		rd := &decoder{file: file, dir: d.dir}
		doc := rd.instantiate(root, params, values)
		s := rd.scenario(doc)
		for _, e := range rd.errs {
			if !said[e.Error()] {
				said[e.Error()] = true
				d.errs = append(d.errs, e)
			}
		}
		if len(rd.errs) > 0 || s == nil {
			continue
		}
		for i, p := range params {
			s.Params = append(s.Params, Param{p.name, values[i].Value})
			if p.name == "seed" {
				s.Seed, _ = strconv.ParseUint(values[i].Value, 10, 64)
			}
		}
		s.Name = runName(s.Name, s.Params)
		runs = append(runs, s)
	}
	if len(d.errs) > 0 {
		return nil, d.sorted()
	}
	return runs, nil
}

// sorted returns the problems in file order.
func (d *decoder) sorted() runtime.ErrorList {
	sort.SliceStable(d.errs, func(i, j int) bool {
		a, b := d.errs[i].Pos, d.errs[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return d.errs
}

// decoder collects the problems of one file.
type decoder struct {
	file string
	dir  string
	errs runtime.ErrorList
}

func (d *decoder) add(n *yaml.Node, field, format string, args ...any) {
	d.errs = append(d.errs, &runtime.BuildError{Pos: d.pos(n), Path: field, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) addErr(err error) {
	var be *runtime.BuildError
	var list runtime.ErrorList
	switch {
	case errors.As(err, &list):
		d.errs = append(d.errs, list...)
	case errors.As(err, &be):
		d.errs = append(d.errs, be)
	default:
		d.errs = append(d.errs, &runtime.BuildError{Pos: runtime.Pos{File: d.file}, Msg: err.Error()})
	}
}

func (d *decoder) pos(n *yaml.Node) runtime.Pos {
	if n == nil {
		return runtime.Pos{File: d.file, Line: 1, Col: 1}
	}
	return input.Pos(d.file, n)
}

// fields walks a mapping's keys, refusing those not in known (with the
// nearest known ones) and those given twice; f gets each known key's
// value.
func (d *decoder) fields(field string, n *yaml.Node, known []string, f func(key string, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		d.add(n, field, "want a mapping with %s, got %s", strings.Join(known, ", "), input.Describe(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := join(field, k.Value)
		switch {
		case k.Kind != yaml.ScalarNode:
			d.add(k, field, "want a key, got %s", input.Describe(k))
		case !slices.Contains(known, k.Value):
			msg := fmt.Sprintf("unknown key %q", k.Value)
			if near := runtime.NearestNames(k.Value, known, 3); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, " or ") + "?"
			} else {
				msg += "; want one of " + strings.Join(known, ", ")
			}
			d.add(k, field, "%s", msg)
		case seen[k.Value]:
			d.add(k, name, "given twice")
		default:
			seen[k.Value] = true
			f(k.Value, v)
		}
	}
	return true
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func (d *decoder) str(field string, n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Value == "" {
		d.add(n, field, "want a name or a path, got %s", input.Describe(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) number(field string, n *yaml.Node) (float64, bool) {
	v, err := input.Number(d.file, field, n)
	if err != nil {
		d.addErr(err)
		return 0, false
	}
	return v, true
}

// fraction decodes a number in [lo, 1].
func (d *decoder) fraction(field string, n *yaml.Node, lo float64, open bool) (float64, bool) {
	v, ok := d.number(field, n)
	if !ok {
		return 0, false
	}
	if v < lo || v > 1 || open && v == lo {
		want := fmt.Sprintf("[%g, 1]", lo)
		if open {
			want = fmt.Sprintf("(%g, 1]", lo)
		}
		d.add(n, field, "want a fraction in %s (0.12 for 12%%), got %v", want, n.Value)
		return 0, false
	}
	return v, true
}

// duration decodes a simulated time written as Go does (30s, 2m30s, 500ms).
func (d *decoder) duration(field string, n *yaml.Node, zeroOK bool) (time.Duration, bool) {
	bad := func() (time.Duration, bool) {
		d.add(n, field, "want a duration such as 30s, 2m or 500ms, got %s", input.Describe(n))
		return 0, false
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return bad()
	}
	if v < 0 || v == 0 && !zeroOK || v > MaxTimeLimit {
		d.add(n, field, "want a duration in %s24h, got %s", map[bool]string{true: "[0, ", false: "(0, "}[zeroOK], n.Value)
		return 0, false
	}
	return v, true
}

// path resolves a file or directory named relative to the scenario.
func (d *decoder) path(field string, n *yaml.Node, dir bool) (string, bool) {
	s, ok := d.str(field, n)
	if !ok {
		return "", false
	}
	p := s
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.dir, p)
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(n, field, "%s does not exist (paths start at the scenario's directory, %s)", s, d.dir)
		return "", false
	case err != nil:
		d.add(n, field, "%v", err)
		return "", false
	case dir && !st.IsDir():
		d.add(n, field, "%s is not a directory; want a world's directory (its map and places.yaml)", s)
		return "", false
	case !dir && st.IsDir():
		d.add(n, field, "%s is a directory; want a file", s)
		return "", false
	}
	return p, true
}

func (d *decoder) scenario(root *yaml.Node) *Scenario {
	s := &Scenario{File: d.file, Seed: DefaultSeed, VisitRadius: DefaultVisitRadius}
	base := filepath.Base(d.file)
	s.Name = strings.TrimSuffix(strings.TrimSuffix(base, filepath.Ext(base)), ".scenario")
	if root == nil {
		d.add(nil, "", "the scenario is empty: give world, robots, time_limit and expect (docs/hil.md)")
		return nil
	}
	var robots, mission, faults, expect, serve, goals *yaml.Node
	var worldNode *yaml.Node
	if !d.fields("", root, []string{"scenario", "world", "seed", "time_limit", "long", "visit_radius", "mission", "serve", "goals", "robots", "faults", "expect"}, func(k string, v *yaml.Node) {
		switch k {
		case "scenario":
			if name, ok := d.str(k, v); ok {
				s.Name = name
			}
		case "world":
			worldNode = v
			s.World, _ = d.path(k, v, true)
		case "seed":
			if f, ok := d.number(k, v); ok {
				if f < 0 || f != math.Trunc(f) || f > 1<<53 {
					d.add(v, k, "want a whole number ≥ 0, got %s", v.Value)
				} else {
					s.Seed = uint64(f)
				}
			}
		case "time_limit":
			s.TimeLimit, _ = d.duration(k, v, false)
		case "long":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
				d.add(v, k, "want true or false, got %s", input.Describe(v))
			} else {
				s.Long = v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
			}
		case "visit_radius":
			if f, ok := d.number(k, v); ok {
				if f <= 0 || f > 100 {
					d.add(v, k, "want metres in (0, 100], got %s", v.Value)
				} else {
					s.VisitRadius = f
				}
			}
		case "mission":
			mission = v
		case "serve":
			serve = v
		case "goals":
			goals = v
		case "robots":
			robots = v
		case "faults":
			faults = v
		case "expect":
			expect = v
		}
	}) {
		return nil
	}
	for _, need := range []struct {
		key string
		set bool
	}{{"world", worldNode != nil}, {"time_limit", s.TimeLimit > 0 || hasKey(root, "time_limit")}, {"robots", robots != nil}, {"expect", expect != nil}} {
		if !need.set {
			d.add(root, "", "no %s: a scenario needs world, robots, time_limit and expect", need.key)
		}
	}
	if s.World != "" {
		p, err := places.Load(filepath.Join(s.World, "places.yaml"))
		if err != nil {
			d.add(worldNode, "world", "the world's places: %v", err)
		} else {
			s.Places = p
		}
	}
	var def *MissionConf
	if serve != nil {
		s.Serve = d.serve(serve, s.World)
		def = &MissionConf{Pos: d.pos(serve)} // the server's
	}
	if mission != nil {
		def = d.mission("mission", mission, s.World)
	}
	if robots != nil {
		s.Robots = d.robots(robots, def, s)
	}
	if faults != nil {
		s.Faults = d.faults(faults, s)
	}
	if expect != nil {
		s.Expect = d.expectations(expect, s)
	}
	if goals != nil && serve != nil {
		s.Goals = d.goals(goals, s)
	}
	d.checkServed(root, s, mission, goals)
	return s
}

func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func (d *decoder) mission(field string, n *yaml.Node, world string) *MissionConf {
	m := &MissionConf{Pos: d.pos(n), Places: world}
	ok := d.fields(field, n, []string{"tree", "main", "profile", "places", "substitute", "blackboard", "stop_when"}, func(k string, v *yaml.Node) {
		f := join(field, k)
		switch k {
		case "tree":
			m.Tree, _ = d.path(f, v, false)
		case "main":
			m.Main, _ = d.str(f, v)
		case "profile":
			m.Profile, _ = d.path(f, v, false)
		case "places":
			m.Places, _ = d.path(f, v, false)
		case "substitute":
			m.Substitute, _ = d.path(f, v, false)
		case "blackboard":
			m.Blackboard = d.blackboard(f, v)
		case "stop_when":
			sw := &StopWhen{}
			if d.fields(f, v, []string{"entry", "at_least"}, func(k string, v *yaml.Node) {
				switch k {
				case "entry":
					sw.Entry, _ = d.str(join(f, k), v)
				case "at_least":
					sw.AtLeast, _ = d.number(join(f, k), v)
				}
			}) {
				if sw.Entry == "" {
					d.add(v, f, "want entry: the blackboard entry to watch, and at_least: a number")
				}
				m.StopWhen = sw
			}
		}
	})
	if ok && m.Tree == "" && !hasKey(n, "tree") {
		d.add(n, field, "no tree: want tree: the mission's tree file")
	}
	return m
}

func (d *decoder) blackboard(field string, n *yaml.Node) []string {
	if n.Kind != yaml.MappingNode {
		d.add(n, field, "want a mapping of entries (visits: 0), got %s", input.Describe(n))
		return nil
	}
	var kvs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			d.add(v, join(field, k.Value), "want a number, true, false or text, got %s", input.Describe(v))
			continue
		}
		kv := k.Value + "=" + v.Value
		if v.Tag == "!!str" {
			kv = k.Value + ":string=" + v.Value
		}
		if _, _, err := mission.Entry(kv); err != nil {
			d.add(k, join(field, k.Value), "%v", err)
			continue
		}
		kvs = append(kvs, kv)
	}
	return kvs
}

func (d *decoder) robots(n *yaml.Node, def *MissionConf, s *Scenario) []Robot {
	var list []*yaml.Node
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!int":
		count, ok := d.number("robots", n)
		if !ok || count < 1 || count > maxRobots {
			d.add(n, "robots", "want a count in [1, %d] or a list of robots, got %s", maxRobots, n.Value)
			return nil
		}
		for i := 1; i <= int(count); i++ {
			list = append(list, &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "name", Line: n.Line, Column: n.Column},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprintf("robot%d", i), Line: n.Line, Column: n.Column},
			}})
		}
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0 && len(n.Content) <= maxRobots:
		list = n.Content
	default:
		d.add(n, "robots", "want a count in [1, %d] or a list of robots ({name: robot1, spawn: robot1, battery: 0.8, mission: ...}), got %s", maxRobots, input.Describe(n))
		return nil
	}
	var out []Robot
	seen := map[string]bool{}
	for i, rn := range list {
		field := fmt.Sprintf("robots[%d]", i)
		r := Robot{Pos: d.pos(rn), Battery: 1}
		var spawn *yaml.Node
		var m *MissionConf
		if !d.fields(field, rn, []string{"name", "spawn", "battery", "mission"}, func(k string, v *yaml.Node) {
			f := join(field, k)
			switch k {
			case "name":
				r.Name, _ = d.str(f, v)
			case "spawn":
				spawn = v
			case "battery":
				r.Battery, _ = d.fraction(f, v, 0, true)
			case "mission":
				m = d.mission(f, v, s.World)
			}
		}) {
			continue
		}
		switch {
		case r.Name == "":
			d.add(rn, field, "no name: want name: robot1 (the robot's namespace)")
			continue
		case seen[r.Name]:
			d.add(rn, join(field, "name"), "robot %s given twice", r.Name)
			continue
		}
		seen[r.Name] = true
		d.spawn(field, rn, spawn, &r, s)
		switch {
		case m != nil:
			r.Mission = *m
		case def != nil:
			r.Mission = *def
		default:
			d.add(rn, field, "no mission: give mission: {tree: ...} here or at the top of the scenario")
		}
		out = append(out, r)
	}
	return out
}

// spawn places the robot: at the spawn place it names or at a pose, or at
// the spawn place named like it.
func (d *decoder) spawn(field string, rn, n *yaml.Node, r *Robot, s *Scenario) {
	if s.Places == nil {
		return
	}
	if n != nil && n.Kind == yaml.SequenceNode {
		p, err := places.DecodePose(d.file, join(field, "spawn"), n, true)
		if err != nil {
			d.addErr(err)
		}
		r.Spawn = p
		return
	}
	name, at := r.Name, rn
	if n != nil {
		name, at = n.Value, n
	}
	sp, ok := s.Places.Spawn(name)
	if !ok {
		var names []string
		for _, p := range s.Places.Spawns {
			names = append(names, p.Name)
		}
		msg := fmt.Sprintf("no spawn place named %q in the world", name)
		if near := runtime.NearestNames(name, names, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		} else {
			msg += "; want spawn: a spawn place (" + strings.Join(names, ", ") + ") or a pose [x, y, yaw]"
		}
		d.add(at, join(field, "spawn"), "%s", msg)
		return
	}
	r.Spawn = sp.Pose
}

// robotName reads a fault's or an expectation's robot; "" when it may be
// left out (one robot, or one that holds for each).
func (d *decoder) robotName(field string, n *yaml.Node, s *Scenario) string {
	name, ok := d.str(field, n)
	if !ok {
		return ""
	}
	if _, found := s.Robot(name); !found && len(s.Robots) > 0 {
		msg := fmt.Sprintf("no robot named %q", name)
		if near := runtime.NearestNames(name, s.robotNames(), 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		d.add(n, field, "%s", msg)
	}
	return name
}

// place checks a place name against the world's waypoints, docks and
// spawns.
func (d *decoder) place(field string, n *yaml.Node, s *Scenario) (places.Pose, bool) {
	name, ok := d.str(field, n)
	if !ok || s.Places == nil {
		return places.Pose{}, false
	}
	if p, found := s.Places.Lookup(name); found {
		return p, true
	}
	if sp, found := s.Places.Spawn(name); found {
		return sp.Pose, true
	}
	msg := fmt.Sprintf("no place named %q in the world", name)
	if near := runtime.NearestNames(name, s.Places.Names(), 3); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	d.add(n, field, "%s", msg)
	return places.Pose{}, false
}

// text is a mapping written on one line, for reports.
func text(n *yaml.Node) string {
	out, err := yaml.Marshal(n)
	if err != nil {
		return ""
	}
	var flow yaml.Node
	if yaml.Unmarshal(out, &flow) != nil || len(flow.Content) == 0 {
		return strings.TrimSpace(string(out))
	}
	setFlow(flow.Content[0])
	out, err = yaml.Marshal(flow.Content[0])
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		setFlow(c)
	}
}

var wheels = map[string]sim.Wheel{"left": sim.LeftWheel, "right": sim.RightWheel}
