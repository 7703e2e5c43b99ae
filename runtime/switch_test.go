package runtime

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSwitch(t *testing.T) {
	// sw2 is a Switch2 on {v} with cases "1" and "dock" and the children
	// One, Dock and Default.
	sw2 := func(case1, case2 string, children ...*NodeSpec) *NodeSpec {
		if children == nil {
			children = []*NodeSpec{S("One", "S"), S("Dock", "S"), S("Default", "S")}
		}
		return C("Switch2", []string{"variable", "{v}", "case_1", case1, "case_2", case2}, children...)
	}
	runNodeCases(t, []nodeCase{
		{
			name:  "an integer entry matches its decimal text",
			tree:  sw2("1", "dock"),
			bb:    map[string]any{"v": 1},
			steps: ticks(Success, "One", Success, "One"),
		},
		{
			name:  "a string entry matches equal text",
			tree:  sw2("1", "dock"),
			bb:    map[string]any{"v": "dock"},
			steps: ticks(Success, "Dock"),
		},
		{
			name:  "no match runs the default child",
			tree:  sw2("1", "dock"),
			bb:    map[string]any{"v": 7},
			steps: ticks(Success, "Default"),
		},
		{
			name:  "the first matching case wins",
			tree:  sw2("1", "1.0"),
			bb:    map[string]any{"v": 1},
			steps: ticks(Success, "One"),
		},
		{
			name:  "a real entry matches an integer case as a real (3.000000 vs 3)",
			tree:  sw2("2", "3"),
			bb:    map[string]any{"v": 3.0},
			steps: ticks(Success, "Dock"),
		},
		{
			name:  "reals match within float32's epsilon (0.100000 vs 0.1)",
			tree:  sw2("0.1", "0.2"),
			bb:    map[string]any{"v": 0.1},
			steps: ticks(Success, "One"),
		},
		{
			name:  "a real entry prints with six decimals: 1e-8 matches case 0",
			tree:  sw2("0", "1"),
			bb:    map[string]any{"v": 1e-8},
			steps: ticks(Success, "One"),
		},
		{
			name:  "numeric strings compare as numbers (007 vs 7)",
			tree:  sw2("7", "8"),
			bb:    map[string]any{"v": "007"},
			steps: ticks(Success, "One"),
		},
		{
			name:  "an exponent reads as a real (1e3 vs 1000)",
			tree:  sw2("5", "1000"),
			bb:    map[string]any{"v": "1e3"},
			steps: ticks(Success, "Dock"),
		},
		{
			name:  "a leading + is not a number, as for from_chars",
			tree:  sw2("7", "8"),
			bb:    map[string]any{"v": "+7"},
			steps: ticks(Success, "Default"),
		},
		{
			name:  "true is the integer 1, as BT.CPP stores a bool",
			tree:  sw2("true", "1"),
			bb:    map[string]any{"v": true},
			steps: ticks(Success, "Dock"),
		},
		{
			name:  "false is 0",
			tree:  sw2("false", "0"),
			bb:    map[string]any{"v": false},
			steps: ticks(Success, "Dock"),
		},
		{
			name:  "a missing variable entry runs the default child",
			tree:  C("Switch2", []string{"variable", "{nowhere}", "case_1", "1", "case_2", ""}, S("One", "S"), S("Two", "S"), S("Default", "F")),
			steps: ticks(Failure, "Default"),
		},
		{
			name:  "an empty case matches an empty variable",
			tree:  sw2("1", ""),
			bb:    map[string]any{"v": ""},
			steps: ticks(Success, "Dock"),
		},
		{
			name:  "cases may come from the blackboard; a missing case entry never matches",
			tree:  C("Switch2", []string{"variable", "{v}", "case_1", "{nothing}", "case_2", "{target}"}, S("One", "S"), S("Target", "S"), S("Default", "S")),
			bb:    map[string]any{"v": "dock", "target": "dock"},
			steps: ticks(Success, "Target"),
		},
		{
			name:  "a literal variable",
			tree:  C("Switch2", []string{"variable", "2", "case_1", "1", "case_2", "2.0"}, S("One", "S"), S("Two", "S"), S("Default", "S")),
			steps: ticks(Success, "Two"),
		},
		{
			name:  "a running child is resumed while its case still matches",
			tree:  sw2("1", "dock", S("One", "R,R,F"), S("Dock", "S"), S("Default", "S")),
			bb:    map[string]any{"v": 1},
			steps: ticks(Running, "One", Running, "One", Failure, "One", Failure, "One"),
		},
		{
			name:  "a skipped child makes the Switch SKIPPED (no fall back to the default)",
			tree:  sw2("1", "dock", S("One", "K"), S("Dock", "S"), S("Default", "S")),
			bb:    map[string]any{"v": 1},
			steps: ticks(Skipped, "One"),
		},
		{
			name:  "halt halts the running child",
			tree:  sw2("1", "dock", S("One", "S"), S("Dock", "R"), S("Default", "S")),
			bb:    map[string]any{"v": "dock"},
			steps: ticks(Running, "Dock", halted("Dock!")),
		},
		{
			name: "Switch6 reaches its sixth case and its default",
			tree: C("Switch6", []string{"variable", "{v}", "case_1", "1", "case_2", "2", "case_3", "3", "case_4", "4", "case_5", "5", "case_6", "6"},
				S("C1", "S"), S("C2", "S"), S("C3", "S"), S("C4", "S"), S("C5", "S"), S("C6", "S"), S("Default", "S")),
			bb:    map[string]any{"v": 6},
			steps: ticks(Success, "C6"),
		},
	})
}

func TestSwitchChangingCaseHaltsTheRunningChild(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name: "the variable changes while a child runs",
		tree: C("Switch3", []string{"variable", "{mode}", "case_1", "1", "case_2", "2", "case_3", "3"},
			S("Dock", "R"), S("Patrol", "R"), S("Report", "S"), S("Idle", "S")),
		bb: map[string]any{"mode": 1},
		steps: []step{
			tick(Running, "Dock"),
			tick(Running, "Dock"),
			tick(Running, "Dock! Patrol").writing("mode", 2),
			tick(Success, "Patrol! Report").writing("mode", 3),
			tick(Success, "Idle").writing("mode", 9),
			tick(Running, "Patrol").writing("mode", 2),
			halted("Patrol!"),
		},
	}})
}

func TestSwitchEnums(t *testing.T) {
	withEnums := func(log *eventLog) *Registry {
		reg := testRegistry(log)
		reg.RegisterEnum("DOCK", 2)
		reg.RegisterEnum("PATROL", 3)
		return reg
	}
	root := C("Switch2", []string{"variable", "{mode}", "case_1", "DOCK", "case_2", "PATROL"}, S("Dock", "S"), S("Patrol", "S"), S("Idle", "S"))
	var cases []nodeCase
	for _, c := range []struct {
		mode any
		want string
	}{
		{2, "Dock"}, {3, "Patrol"}, {"DOCK", "Dock"}, {"3", "Patrol"}, {3.0, "Patrol"}, {"PATROL", "Patrol"}, {"dock", "Idle"}, {4, "Idle"},
	} {
		cases = append(cases, nodeCase{
			name: fmt.Sprintf("mode %#v", c.mode), reg: withEnums, tree: root,
			bb:    map[string]any{"mode": c.mode},
			steps: ticks(Success, c.want),
		})
	}
	runNodeCases(t, cases)
}

// TestSwitchVariableOfAnyType: where btrobot deliberately differs from
// BT.CPP 4.10, which declares variable as a string port (see Switch). A
// node's typed output may produce the variable, before or after the Switch
// in the tree.
func TestSwitchVariableOfAnyType(t *testing.T) {
	withCounter := func(log *eventLog) *Registry {
		reg := testRegistry(log)
		reg.MustRegister(NodeType{
			ID: "Count", Kind: ActionKind,
			Ports: []PortSpec{OutputPort[int]("out", "a count")},
			New: func(*Config) (Node, error) {
				n := 0
				return NewAction(func(l *Leaf) (Status, error) {
					n++
					return Success, SetOutput(l, "out", n)
				}), nil
			},
		})
		return reg
	}
	sw := C("Switch2", []string{"variable", "{c}", "case_1", "1", "case_2", "2"}, S("One", "S"), S("Two", "S"), S("Other", "S"))
	count := N("Count", A("out", "{c}"))
	runNodeCases(t, []nodeCase{
		{
			name: "a typed port names the variable before the Switch", reg: withCounter,
			tree:   N("Sequence", nil, count, sw),
			steps:  ticks(Success, "One", Success, "Two", Success, "Other"),
			wantBB: map[string]any{"c": 3},
		},
		{
			name: "a typed port writes the variable after the Switch declared it", reg: withCounter,
			tree:   N("Sequence", nil, sw, count),
			steps:  ticks(Success, "Other", Success, "One", Success, "Two"),
			wantBB: map[string]any{"c": 3},
		},
	})
}

func TestSwitchMatches(t *testing.T) {
	enums := map[string]int{"RED": 1, "GREEN": 2}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"dock", "dock", true},
		{"dock", "Dock", false},
		{"", "", true},
		{"", "0", false},
		{"1", "1.0", true},
		{"1.000000", "1", true},
		{"0.5", ".5", true},
		{"2", "2.0000001", true},    // within float32 epsilon
		{"2", "2.000001", false},    // outside it
		{"-3", "-3.0", true},        // negative numbers
		{"+3", "3", false},          // from_chars takes no '+'
		{" 3", "3", false},          // nor spaces
		{"0x10", "16", false},       // nor hexadecimal
		{"1_000", "1000", false},    // nor underscores
		{"3000000000", "3e9", true}, // too big for an int, but a real
		{"RED", "1", true},
		{"GREEN", "2.0", true},
		{"RED", "GREEN", false},
		{"inf", "inf", true},
		{"nan", "NaN", false}, // NaN never equals
		{"1e400", "1e400", true},
		{"1e400", "2e400", false}, // out of range is not a number
	} {
		got := switchMatches(c.a, c.b, enums)
		assert.Equal(t, c.want, got, "switchMatches(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
	}
}

func TestSwitchText(t *testing.T) {
	type mode int
	type name string
	for _, c := range []struct {
		v    any
		want string
		ok   bool
	}{
		{"dock", "dock", true},
		{name("patrol"), "patrol", true},
		{42, "42", true},
		{int8(-3), "-3", true},
		{uint64(7), "7", true},
		{mode(2), "2", true},
		{true, "1", true},
		{false, "0", true},
		{0.5, "0.500000", true},
		{float32(1.25), "1.250000", true},
		{2.0, "2.000000", true},
		{struct{ X int }{1}, "", false},
		{[]int{1}, "", false},
	} {
		got, ok := switchText(c.v)
		assert.Equal(t, c.want, got, "switchText(%#v) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
		assert.Equal(t, c.ok, ok, "switchText(%#v) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
	}
}

func TestSwitchBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{
		{
			name: "a case and the default need N+1 children",
			tree: C("Switch2", []string{"variable", "1", "case_1", "1", "case_2", "2"}, S("A", "S"), S("B", "S")),
			want: "MainTree/Switch2: Switch2 (a control) takes exactly 3 children, has 2",
		},
		{
			name: "too many children",
			tree: C("Switch2", []string{"variable", "1", "case_1", "1", "case_2", "2"}, S("A", "S"), S("B", "S"), S("C", "S"), S("D", "S")),
			want: "MainTree/Switch2: Switch2 (a control) takes exactly 3 children, has 4",
		},
		{
			name: "variable is required",
			tree: C("Switch2", []string{"case_1", "1", "case_2", "2"}, S("A", "S"), S("B", "S"), S("C", "S")),
			want: "MainTree/Switch2: missing required input port \"variable\" (any): the value to match, usually a blackboard entry like {mode}",
		},
		{
			name: "a case beyond N",
			tree: C("Switch2", []string{"variable", "{v}", "case_1", "1", "case_2", "2", "case_3", "3"}, S("A", "S"), S("B", "S"), S("C", "S")),
			want: `MainTree/Switch2: Switch2 has no port "case_3" (did you mean case_1, case_2?)`,
		},
	})
}

// A case left out of the tree never matches, as in BehaviorTree.CPP.
func TestSwitchCaseLeftOut(t *testing.T) {
	runNodeCases(t, []nodeCase{
		{
			name:  "the value of the missing case falls to the default",
			tree:  C("Switch2", []string{"variable", "{v}", "case_1", "1"}, S("A", "S"), S("B", "S"), S("Default", "F")),
			bb:    map[string]any{"v": ""},
			steps: ticks(Failure, "Default"),
		},
		{
			name:  "the given case still matches",
			tree:  C("Switch2", []string{"variable", "{v}", "case_1", "1"}, S("A", "S"), S("B", "S"), S("Default", "F")),
			bb:    map[string]any{"v": 1},
			steps: ticks(Success, "A"),
		},
	})
}
