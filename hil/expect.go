package hil

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"

	"github.com/btrobot/btrobot/runtime"
)

// Expectation is one thing that must hold when a run is over. The kinds,
// as a scenario writes them under expect: (robot: names the robot it is
// about; left out, it holds for every robot):
//
//	outcome: succeeded           how the mission ended: succeeded, failed, stopped,
//	                             aborted, or done (succeeded, or stopped by stop_when)
//	ends_within: 4m              the mission ended (not by the time limit) within that
//	visits: [kitchen, lab]       the robot came within visit_radius of each place
//	visits_in_order: [a, b]      ... and first reached them in that order
//	collisions_at_most: 0        the robot hit something at most that many times
//	battery_never_below: 0.2     the charge, sampled every 100 ms, never fell below
//	at_rest: {within: 1s, after: end}
//	                             the robot stood still within 1 s of the mission's end
//	                             (or of a simulated time: after: 30s; or of the first
//	                             fault that struck it or the world: after: fault)
//	node: {path: while_powered/battery_ok, reaches: FAILURE}
//	                             a node whose path ends so reached that status
//	                             (never_reaches: never did)
//
// and those of expect_measures.go: speed_near_obstacles, blackboard,
// no_errors, steady, period_stable.
type Expectation struct {
	Pos runtime.Pos
	// Kind is the expectation's key in the scenario.
	Kind string
	// Robot is the robot it is about; "" for each robot.
	Robot string
	// Text is the expectation as written, for reports.
	Text string

	Outcome string        // outcome
	Within  time.Duration // ends_within, at_rest
	Places  []string      // visits, visits_in_order
	Count   int           // collisions_at_most
	Level   float64       // battery_never_below
	// After is at_rest's start: a simulated time, or afterEnd.
	After  time.Duration
	Node   string         // node: the end of the node's path
	Status runtime.Status // node: the status
	Never  bool           // node: never_reaches
	More   measures       // the kinds of expect_measures.go
}

// afterEnd and afterFault are at_rest's After for "after the mission's
// end" and "after the first fault".
const (
	afterEnd   time.Duration = -1
	afterFault time.Duration = -2
)

var expectKinds = append([]string{"outcome", "ends_within", "visits", "visits_in_order", "collisions_at_most", "battery_never_below", "at_rest", "node"}, measureKinds...)

var outcomes = []string{"succeeded", "failed", "stopped", "aborted", "done"}

func (d *decoder) expectations(n *yaml.Node, s *Scenario) []Expectation {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.add(n, "expect", "want a list of expectations (- outcome: succeeded), got %s", input.Describe(n))
		return nil
	}
	var out []Expectation
	for i, en := range n.Content {
		field := fmt.Sprintf("expect[%d]", i)
		e := Expectation{Pos: d.pos(en), Text: text(en)}
		var kind *yaml.Node
		before := len(d.errs)
		if !d.fields(field, en, append([]string{"robot"}, expectKinds...), func(k string, v *yaml.Node) {
			switch k {
			case "robot":
				e.Robot = d.robotName(join(field, k), v, s)
			default:
				if kind != nil {
					d.add(v, join(field, k), "a second expectation in one entry (%s was given); write one an entry", e.Kind)
					return
				}
				kind, e.Kind = v, k
			}
		}) {
			continue
		}
		if kind == nil {
			if len(d.errs) > before {
				continue // an unknown key said it
			}
			d.add(en, field, "no expectation: want one of %s", strings.Join(expectKinds, ", "))
			continue
		}
		if d.expectation(join(field, e.Kind), kind, &e, s) {
			out = append(out, e)
		}
	}
	return out
}

// expectation decodes an expectation's value into e.
func (d *decoder) expectation(field string, v *yaml.Node, e *Expectation, s *Scenario) bool {
	ok := false
	switch e.Kind {
	case "outcome":
		if ok = v.Kind == yaml.ScalarNode && slices.Contains(outcomes, v.Value); ok {
			e.Outcome = v.Value
		} else {
			d.add(v, field, "want one of %s, got %s", strings.Join(outcomes, ", "), input.Describe(v))
		}
	case "ends_within":
		e.Within, ok = d.duration(field, v, false)
	case "visits", "visits_in_order":
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			d.add(v, field, "want a list of places ([kitchen, lab]), got %s", input.Describe(v))
			return false
		}
		ok = true
		for i, c := range v.Content {
			f := fmt.Sprintf("%s[%d]", field, i)
			_, found := d.place(f, c, s)
			switch {
			case !found:
				ok = false
			case slices.Contains(e.Places, c.Value):
				d.add(c, f, "%s given twice; a place counts once, at its first visit", c.Value)
				ok = false
			default:
				e.Places = append(e.Places, c.Value)
			}
		}
	case "collisions_at_most":
		var n float64
		if n, ok = d.number(field, v); ok {
			if ok = n >= 0 && n == math.Trunc(n) && n < 1e9; ok {
				e.Count = int(n)
			} else {
				d.add(v, field, "want a whole number ≥ 0, got %s", v.Value)
			}
		}
	case "battery_never_below":
		e.Level, ok = d.fraction(field, v, 0, false)
	case "at_rest":
		e.After = afterEnd
		okW, okA := false, true
		if d.fields(field, v, []string{"within", "after"}, func(k string, c *yaml.Node) {
			switch k {
			case "within":
				e.Within, okW = d.duration(join(field, k), c, false)
			case "after":
				if c.Kind == yaml.ScalarNode && c.Value == "end" {
					return
				}
				if c.Kind == yaml.ScalarNode && c.Value == "fault" {
					e.After = afterFault
					return
				}
				e.After, okA = d.duration(join(field, k), c, true)
			}
		}) {
			if !hasKey(v, "within") {
				d.add(v, field, "no within: want within: how long the robot may take to stop (1s)")
			}
			ok = okW && okA
		}
	case "node":
		okP, okS := false, false
		if d.fields(field, v, []string{"path", "reaches", "never_reaches"}, func(k string, c *yaml.Node) {
			f := join(field, k)
			switch k {
			case "path":
				e.Node, okP = d.str(f, c)
			case "reaches", "never_reaches":
				if okS {
					d.add(c, f, "give reaches or never_reaches, not both")
					okS = false
					return
				}
				st, err := runtime.ParseStatus(c.Value)
				if err != nil || c.Kind != yaml.ScalarNode {
					d.add(c, f, "want one of RUNNING, SUCCESS, FAILURE, SKIPPED, IDLE, got %s", input.Describe(c))
					return
				}
				e.Status, e.Never, okS = st, k == "never_reaches", true
			}
		}) {
			if !hasKey(v, "path") || !hasKey(v, "reaches") && !hasKey(v, "never_reaches") {
				d.add(v, field, "want path: the node's path (or its end: while_powered/battery_ok) and reaches: a status (or never_reaches)")
				return false
			}
			ok = okP && okS
		}
	default:
		ok = d.measure(field, v, e, s)
	}
	return ok
}
