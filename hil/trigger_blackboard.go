package hil

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
)

// EntryCondition is a condition on a blackboard entry: a fault's trigger
// (when: {entry: battery_pct, below: 0.3}).
type EntryCondition struct {
	Entry string
	// Op is one of conditionOps; Value the number (at_least, at_most,
	// above, below) or the scalar (equals: a number, true or false, or
	// text) it compares with.
	Op    string
	Value Scalar
}

// conditionOps are the comparisons a blackboard trigger may make.
var conditionOps = []string{"equals", "at_least", "at_most", "above", "below"}

// Scalar is a value written in a scenario, typed as YAML reads it: a
// number, true or false, text, or null (no entry).
type Scalar struct {
	Kind   ScalarKind
	Number float64
	Bool   bool
	Text   string
}

// ScalarKind says what a Scalar holds.
type ScalarKind uint8

// The kinds of Scalar.
const (
	NullScalar ScalarKind = iota
	NumberScalar
	BoolScalar
	TextScalar
)

// String writes the scalar as the scenario does.
func (v Scalar) String() string {
	switch v.Kind {
	case NumberScalar:
		return fmt.Sprint(v.Number)
	case BoolScalar:
		return fmt.Sprint(v.Bool)
	case TextScalar:
		return fmt.Sprintf("%q", v.Text)
	}
	return "null (no entry)"
}

// scalar decodes a YAML scalar by its tag: a quoted number stays text.
func (d *decoder) scalar(field string, n *yaml.Node) (Scalar, bool) {
	if n.Kind != yaml.ScalarNode {
		d.add(n, field, "want a number, true, false, text or null, got %s", input.Describe(n))
		return Scalar{}, false
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		f, ok := d.number(field, n)
		return Scalar{Kind: NumberScalar, Number: f}, ok
	case "!!bool":
		return Scalar{Kind: BoolScalar, Bool: n.Value == "true" || n.Value == "True" || n.Value == "TRUE"}, true
	case "!!null":
		return Scalar{Kind: NullScalar}, true
	}
	return Scalar{Kind: TextScalar, Text: n.Value}, true
}

// matches reports whether a blackboard value (present or not) equals the
// scalar, with the blackboard's types: a number matches a number of any Go
// type, true and false a bool, text a string (or, for a value of another
// type, such as a pose, its printed form); null matches an entry that is
// not there.
func (v Scalar) matches(got any, present bool) bool {
	if v.Kind == NullScalar || !present {
		return v.Kind == NullScalar && !present
	}
	switch v.Kind {
	case NumberScalar:
		f, ok := number(got)
		return ok && (f == v.Number || math.Abs(f-v.Number) <= 1e-9*math.Max(1, math.Abs(v.Number)))
	case BoolScalar:
		b, ok := got.(bool)
		return ok && b == v.Bool
	}
	switch g := got.(type) {
	case string:
		return g == v.Text
	case bool:
		return false
	}
	if _, isNum := number(got); isNum {
		return false
	}
	return fmt.Sprint(got) == v.Text
}

// describeValue writes a blackboard value with its type, for verdicts.
func describeValue(got any, present bool) string {
	if !present {
		return "no entry"
	}
	if s, ok := got.(string); ok {
		return fmt.Sprintf("%q (string)", s)
	}
	return fmt.Sprintf("%v (%T)", got, got)
}

// holds reports whether the condition holds on the value.
func (c EntryCondition) holds(got any, present bool) bool {
	if c.Op == "equals" {
		return c.Value.matches(got, present)
	}
	f, ok := number(got)
	if !present || !ok {
		return false
	}
	switch c.Op {
	case "at_least":
		return f >= c.Value.Number
	case "at_most":
		return f <= c.Value.Number
	case "above":
		return f > c.Value.Number
	case "below":
		return f < c.Value.Number
	}
	return false
}

// String reads like the scenario.
func (c EntryCondition) String() string { return fmt.Sprintf("%s %s %s", c.Entry, c.Op, c.Value) }

// whenEntry decodes {robot, entry, <op>: value}.
func (d *decoder) whenEntry(field string, n *yaml.Node, s *Scenario) *When {
	t := &When{}
	c := &EntryCondition{}
	ok := true
	if !d.fields(field, n, append([]string{"robot", "entry", "node", "reaches"}, conditionOps...), func(k string, v *yaml.Node) {
		f := join(field, k)
		switch k {
		case "robot":
			t.Robot = d.robotName(f, v, s)
		case "entry":
			c.Entry, ok = d.str(f, v)
			if ok && strings.ContainsAny(c.Entry, " \t{}") {
				d.add(v, f, "%q is not a blackboard key: want an entry's name (battery_pct)", c.Entry)
				ok = false
			}
		case "node", "reaches":
			d.add(v, f, "%s belongs to a node trigger: give either node and reaches, or entry and a condition", k)
			ok = false
		default:
			if c.Op != "" {
				d.add(v, f, "a second condition (%s was given); give one of %s", c.Op, strings.Join(conditionOps, ", "))
				ok = false
				return
			}
			c.Op = k
			var good bool
			if c.Value, good = d.scalar(f, v); !good {
				ok = false
			} else if k != "equals" && c.Value.Kind != NumberScalar {
				d.add(v, f, "want a number to compare with, got %s", input.Describe(v))
				ok = false
			}
		}
	}) || !ok {
		return nil
	}
	if t.Robot == "" && len(s.Robots) == 1 {
		t.Robot = s.Robots[0].Name
	}
	if c.Op == "" || t.Robot == "" && len(s.Robots) > 1 {
		d.add(n, field, "want entry: a blackboard entry, one of %s: a value, and robot: the robot (when there are several)", strings.Join(conditionOps, ", "))
		return nil
	}
	t.Entry = c
	return t
}
