package hil

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// Fault is something done to the simulated world at a simulated time.
// The kinds, as a scenario writes them under faults: (robot: names the
// robot, which may be left out when there is one):
//
//	{at: 30s, battery: 0.12}                    the battery's charge, a fraction
//	{near: {place: kitchen, within: 1}, battery: 0.12}
//	                                            ... the first time the robot is within 1 m of the kitchen
//	{when: {node: patrol/to_lab, reaches: RUNNING}, move_base: stop}
//	                                            ... the first time that node reaches that status
//	{when: {entry: battery_pct, below: 0.3}, move_base: stop}
//	                                            ... the first time, after a tick, that the root
//	                                            blackboard's entry meets the condition
//	{at: 10s, obstacle: {name: box, rect: [4.8, -1.1, 5.2, 1.1]}}
//	                                            a box [minx, miny, maxx, maxy] in metres
//	{at: 10s, obstacle: {name: box, place: kitchen, size: 1}}
//	                                            a square box centred on a place
//	{at: 60s, clear_obstacle: box}              removes it
//	{at: 10s, move_base: stop}                  stops the move_base server (restart: back)
//	{at: 10s, freeze: odom}                     stops a topic's messages (unfreeze: resumes)
//	{at: 10s, delay: {topic: scan, by: 2s}}     holds a topic's messages back
//	{at: 10s, stall_wheel: left}                stalls a wheel (free_wheel: left frees it)
//
// Topics are those of sim.FaultTopics. The faults of the controller's
// world (master: shutdown, clock: stop, stall: 2s) are in
// fault_controller.go.
type Fault struct {
	Pos runtime.Pos
	// At is when the fault strikes, in simulated time.
	At time.Duration
	// Kind is the fault's key in the scenario (battery, obstacle...).
	Kind string
	// Near, when set, makes the fault strike instead the first time a
	// robot comes that close to a place (on a sample: every 100 ms of
	// simulated time).
	Near *Near
	// When, when set, makes the fault strike instead the first time a
	// node of a robot's tree reaches a status, before the tree's next tick.
	When *When
	// Robot is the robot it strikes; "" for a fault on the world.
	Robot string
	// Text says what the fault does, for reports.
	Text string
	// apply does it, between two physics steps; ctl, instead, for a
	// fault of the controller's world (fault_controller.go).
	apply func(w *sim.World) error
	ctl   *ctlFault
	// goal, when not 0, makes this a served scenario's goal's trigger
	// (Goal.When), not a fault: goals[goal-1] is due once it fires.
	goal int
}

// Near is a fault's trigger: Robot within Within metres of Place.
type Near struct {
	Robot, Place string
	Within       float64
}

// near decodes {robot, place, within}; robot may be left out with one
// robot.
func (d *decoder) near(field string, n *yaml.Node, s *Scenario) *Near {
	t := &Near{Within: DefaultVisitRadius}
	var pose *yaml.Node
	if !d.fields(field, n, []string{"robot", "place", "within"}, func(k string, v *yaml.Node) {
		f := join(field, k)
		switch k {
		case "robot":
			t.Robot = d.robotName(f, v, s)
		case "place":
			if _, ok := d.place(f, v, s); ok {
				t.Place = v.Value
			}
			pose = v
		case "within":
			if w, ok := d.number(f, v); ok {
				if w <= 0 || w > 100 {
					d.add(v, f, "want metres in (0, 100], got %s", v.Value)
				}
				t.Within = w
			}
		}
	}) {
		return nil
	}
	if t.Robot == "" && len(s.Robots) == 1 {
		t.Robot = s.Robots[0].Name
	}
	if pose == nil || t.Robot == "" && len(s.Robots) > 1 {
		d.add(n, field, "want place: a place's name, robot: the robot (when there are several) and within: metres [%g]", DefaultVisitRadius)
		return nil
	}
	return t
}

// When is a fault's trigger: a node of Robot's tree, whose path ends with
// Node, reaches Status; or, with Entry, an entry of its root blackboard
// meets a condition (trigger_blackboard.go).
type When struct {
	Robot, Node string
	Status      runtime.Status
	Entry       *EntryCondition
}

// when decodes {robot, node, reaches} or {robot, entry, <condition>};
// robot may be left out with one robot.
func (d *decoder) when(field string, n *yaml.Node, s *Scenario) *When {
	if n.Kind == yaml.MappingNode && hasKey(n, "entry") {
		return d.whenEntry(field, n, s)
	}
	t := &When{}
	ok := true
	if !d.fields(field, n, append([]string{"robot", "node", "reaches", "entry"}, conditionOps...), func(k string, v *yaml.Node) {
		f := join(field, k)
		switch k {
		case "robot":
			t.Robot = d.robotName(f, v, s)
		case "node":
			t.Node, _ = d.str(f, v)
		case "entry", "equals", "at_least", "at_most", "above", "below":
			d.add(v, f, "%s belongs to a blackboard trigger: want entry: a blackboard entry, and one of %s", k, strings.Join(conditionOps, ", "))
			ok = false
		case "reaches":
			st, err := runtime.ParseStatus(v.Value)
			if err != nil || v.Kind != yaml.ScalarNode {
				d.add(v, f, "want one of RUNNING, SUCCESS, FAILURE, SKIPPED, IDLE, got %s", input.Describe(v))
				ok = false
			}
			t.Status = st
		}
	}) || !ok {
		return nil
	}
	if t.Robot == "" && len(s.Robots) == 1 {
		t.Robot = s.Robots[0].Name
	}
	if t.Node == "" || !hasKey(n, "reaches") || t.Robot == "" && len(s.Robots) > 1 {
		d.add(n, field, "want node: the end of a node's path, reaches: a status, and robot: the robot (when there are several); or entry: a blackboard entry and a condition (below: 30)")
		return nil
	}
	return t
}

// faultKinds are the keys a fault may have beside at and robot; robotFault
// says which strike a robot.
var faultKinds = append([]string{"battery", "obstacle", "clear_obstacle", "move_base", "freeze", "unfreeze", "delay", "stall_wheel", "free_wheel"}, ctlFaultKinds...)

var robotFault = map[string]bool{
	"battery": true, "move_base": true, "freeze": true, "unfreeze": true,
	"delay": true, "stall_wheel": true, "free_wheel": true,
}

// onRobot applies f to the fault's robot.
func onRobot(name string, f func(r *sim.Robot) error) func(w *sim.World) error {
	return func(w *sim.World) error {
		r, ok := w.Robot(name)
		if !ok {
			return fmt.Errorf("no robot named %s", name)
		}
		return f(r)
	}
}

func setBattery(robot string, level float64) func(w *sim.World) error {
	return onRobot(robot, func(r *sim.Robot) error { return r.SetBatteryLevel(level) })
}

func setNavigationDown(robot string, down bool) func(w *sim.World) error {
	return onRobot(robot, func(r *sim.Robot) error { r.SetNavigationDown(down); return nil })
}

func setFrozen(robot, topic string, frozen bool) func(w *sim.World) error {
	return onRobot(robot, func(r *sim.Robot) error {
		f := r.TopicFault(topic)
		f.Frozen = frozen
		return r.SetTopicFault(topic, f)
	})
}

func setDelay(robot, topic string, d time.Duration) func(w *sim.World) error {
	return onRobot(robot, func(r *sim.Robot) error {
		f := r.TopicFault(topic)
		f.Delay = d
		return r.SetTopicFault(topic, f)
	})
}

func stallWheel(robot string, w sim.Wheel, on bool) func(*sim.World) error {
	return onRobot(robot, func(r *sim.Robot) error { return r.StallWheel(w, on) })
}

func placeObstacle(name string, box sim.Rect) func(*sim.World) error {
	return func(w *sim.World) error { return w.PlaceObstacle(name, box) }
}

func clearObstacle(name string) func(*sim.World) error {
	return func(w *sim.World) error { return w.RemoveObstacle(name) }
}

func (d *decoder) faults(n *yaml.Node, s *Scenario) []Fault {
	if n.Kind != yaml.SequenceNode {
		d.add(n, "faults", "want a list of faults ({at: 30s, battery: 0.12}), got %s", input.Describe(n))
		return nil
	}
	var out []Fault
	for i, fn := range n.Content {
		field := fmt.Sprintf("faults[%d]", i)
		f := Fault{Pos: d.pos(fn), Text: text(fn)}
		var kind, robot *yaml.Node
		hasAt, before := false, len(d.errs)
		var near, when *yaml.Node
		if !d.fields(field, fn, append([]string{"at", "near", "when", "robot"}, faultKinds...), func(k string, v *yaml.Node) {
			switch k {
			case "when":
				when = v
			case "at":
				hasAt = true
				f.At, _ = d.duration(join(field, k), v, true)
			case "near":
				near = v
			case "robot":
				robot = v
			default:
				if kind != nil {
					d.add(v, join(field, k), "a second fault in one entry (%s was given); write one fault an entry", f.Kind)
					return
				}
				kind, f.Kind = v, k
			}
		}) {
			continue
		}
		triggers := 0
		for _, given := range []bool{hasAt, near != nil, when != nil} {
			if given {
				triggers++
			}
		}
		switch {
		case triggers > 1:
			d.add(fn, field, "give one of at, near and when")
		case triggers == 0:
			d.add(fn, field, "no at: want at: the simulated time the fault strikes (30s), near: {place: kitchen, within: 1}, when: {node: battery_ok, reaches: FAILURE} or when: {entry: battery_pct, below: 0.3}")
		case near != nil:
			f.Near = d.near(join(field, "near"), near, s)
		case when != nil:
			f.When = d.when(join(field, "when"), when, s)
		}
		if kind == nil {
			if len(d.errs) > before {
				continue // an unknown key said it
			}
			d.add(fn, field, "no fault: want one of %s", strings.Join(faultKinds, ", "))
			continue
		}
		if robotFault[f.Kind] || ctlRobotFault[f.Kind] {
			switch {
			case robot != nil:
				f.Robot = d.robotName(join(field, "robot"), robot, s)
			case f.Near != nil && f.Near.Robot != "":
				f.Robot = f.Near.Robot // the robot that came near
			case f.When != nil && f.When.Robot != "":
				f.Robot = f.When.Robot // the robot whose tree said so
			case len(s.Robots) == 1:
				f.Robot = s.Robots[0].Name
			case len(s.Robots) > 1:
				d.add(fn, field, "which robot? want robot: one of %s", strings.Join(s.robotNames(), ", "))
			}
		} else if robot != nil {
			d.add(robot, join(field, "robot"), "%s strikes the world, not a robot: leave robot out", f.Kind)
		}
		if slices.Contains(ctlFaultKinds, f.Kind) {
			f.ctl = d.ctlFault(join(field, f.Kind), f.Kind, kind)
		} else {
			f.apply = d.fault(join(field, f.Kind), f.Kind, f.Robot, kind, s)
		}
		if f.apply != nil || f.ctl != nil {
			out = append(out, f)
		}
	}
	return out
}

// fault decodes a fault's value into what applies it; nil after an error.
func (d *decoder) fault(field, kind, robot string, v *yaml.Node, s *Scenario) func(*sim.World) error {
	topic := func(n *yaml.Node, f string) (string, bool) {
		t, ok := d.str(f, n)
		if ok && !slices.Contains(sim.FaultTopics, t) {
			d.add(n, f, "no topic %q; want one of %s", t, strings.Join(sim.FaultTopics, ", "))
			return "", false
		}
		return t, ok
	}
	switch kind {
	case "battery":
		if level, ok := d.fraction(field, v, 0, false); ok {
			return setBattery(robot, level)
		}
	case "move_base":
		switch v.Value {
		case "stop":
			return setNavigationDown(robot, true)
		case "restart":
			return setNavigationDown(robot, false)
		}
		d.add(v, field, "want stop or restart, got %s", input.Describe(v))
	case "freeze", "unfreeze":
		if t, ok := topic(v, field); ok {
			return setFrozen(robot, t, kind == "freeze")
		}
	case "delay":
		var t string
		var by time.Duration
		okT, okBy := false, false
		if d.fields(field, v, []string{"topic", "by"}, func(k string, c *yaml.Node) {
			switch k {
			case "topic":
				t, okT = topic(c, join(field, k))
			case "by":
				by, okBy = d.duration(join(field, k), c, true)
			}
		}) {
			if !hasKey(v, "topic") || !hasKey(v, "by") {
				d.add(v, field, "want topic: one of %s, and by: a duration (2s)", strings.Join(sim.FaultTopics, ", "))
			} else if okT && okBy {
				return setDelay(robot, t, by)
			}
		}
	case "stall_wheel", "free_wheel":
		if w, ok := wheels[v.Value]; ok && v.Kind == yaml.ScalarNode {
			return stallWheel(robot, w, kind == "stall_wheel")
		}
		d.add(v, field, "want left or right, got %s", input.Describe(v))
	case "clear_obstacle":
		if name, ok := d.str(field, v); ok {
			return clearObstacle(name)
		}
	case "obstacle":
		return d.obstacle(field, v, s)
	}
	return nil
}

// obstacle decodes {name, rect: [minx, miny, maxx, maxy]} or {name, place,
// size}.
func (d *decoder) obstacle(field string, v *yaml.Node, s *Scenario) func(*sim.World) error {
	var name string
	var box sim.Rect
	var at *places.Pose
	size := 1.0
	ok := d.fields(field, v, []string{"name", "rect", "place", "size"}, func(k string, c *yaml.Node) {
		f := join(field, k)
		switch k {
		case "name":
			name, _ = d.str(f, c)
		case "rect":
			if c.Kind != yaml.SequenceNode || len(c.Content) != 4 {
				d.add(c, f, "want [minx, miny, maxx, maxy] in metres, got %s", input.Describe(c))
				return
			}
			var xs [4]float64
			for i, e := range c.Content {
				var ok bool
				if xs[i], ok = d.number(fmt.Sprintf("%s[%d]", f, i), e); !ok {
					return
				}
			}
			if xs[0] >= xs[2] || xs[1] >= xs[3] {
				d.add(c, f, "want minx < maxx and miny < maxy, got %v", xs)
				return
			}
			box = sim.Rect{MinX: xs[0], MinY: xs[1], MaxX: xs[2], MaxY: xs[3]}
		case "place":
			if p, ok := d.place(f, c, s); ok {
				at = &p
			}
		case "size":
			if n, ok := d.number(f, c); ok {
				if n <= 0 || n > 100 {
					d.add(c, f, "want metres in (0, 100], got %s", c.Value)
				}
				size = n
			}
		}
	})
	if !ok {
		return nil
	}
	hasRect, hasPlace := hasKey(v, "rect"), hasKey(v, "place")
	switch {
	case !hasKey(v, "name"):
		d.add(v, field, "no name: want name: the obstacle's name (clear_obstacle removes it by it)")
	case hasRect == hasPlace:
		d.add(v, field, "want either rect: [minx, miny, maxx, maxy] or place: a place's name (and size: metres)")
	case hasPlace && at == nil, hasRect && box == (sim.Rect{}):
		// already said
	default:
		if at != nil {
			box = sim.Rect{MinX: at.X - size/2, MinY: at.Y - size/2, MaxX: at.X + size/2, MaxY: at.Y + size/2}
		}
		if name != "" {
			return placeObstacle(name, box)
		}
	}
	return nil
}
