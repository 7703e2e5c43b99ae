package runtime

import "testing"

func TestScript(t *testing.T) {
	script := func(code string) *NodeSpec { return N("Script", A("code", code)) }
	cond := func(code string) *NodeSpec { return N("ScriptCondition", A("code", code)) }
	runNodeCases(t, []nodeCase{
		{name: "Script writes the blackboard and succeeds",
			tree: script("x := 1; y := x + 2; msg := 'at ' .. 'dock'"), steps: ticks(Success, "", Success, ""),
			wantBB: map[string]any{"x": 1, "y": 3.0, "msg": "at dock"}}, // arithmetic gives reals, as in BT.CPP,
		{name: "Script succeeds whatever its value", tree: script("false"), steps: ticks(Success, "")},
		{name: "an empty Script does nothing and succeeds, as in BT.CPP", tree: script(""), steps: ticks(Success, "", Success, "")},
		{name: "Script runs on every tick", tree: script("n += 1"), bb: map[string]any{"n": 0},
			steps: ticks(Success, "", Success, "", Success, ""), wantBB: map[string]any{"n": 3}},
		{name: "ScriptCondition true is SUCCESS", tree: cond("battery > 0.2"), bb: map[string]any{"battery": 0.5},
			steps: ticks(Success, "")},
		{name: "ScriptCondition false is FAILURE", tree: cond("battery > 0.2"), bb: map[string]any{"battery": 0.1},
			steps: ticks(Failure, "")},
		{name: "ScriptCondition may assign too", tree: cond("n += 1; n < 3"), bb: map[string]any{"n": 0},
			steps: ticks(Success, "", Success, "", Failure, ""), wantBB: map[string]any{"n": 3}},
		{name: "code from the blackboard", tree: script("{prog}"), bb: map[string]any{"prog": "x := 5"},
			steps: ticks(Success, ""), wantBB: map[string]any{"x": 5}},
		{name: "in a Sequence, scripts see each other's writes",
			tree:  N("Sequence", nil, script("a := 2"), cond("a == 2"), script("b := a * 10")),
			steps: ticks(Success, ""), wantBB: map[string]any{"b": 20.0}},
		{
			name:  "an unknown variable is a tick error naming the node",
			tree:  script("y = 1"),
			steps: []step{fails(`MainTree/Script (Script): code: 1:1: unknown variable "y": the blackboard has no such entry yet (use := to create it)`)},
		},
		{
			name:  "a value that is not a condition is a tick error",
			tree:  cond("'abc'"),
			steps: []step{fails(`MainTree/ScriptCondition (ScriptCondition): code: string 'abc' cannot be used as a condition: strings do not convert to bool`)},
		},
		{
			name:   "assignments before an error stay made",
			tree:   script("a := 1; b = 2"),
			steps:  []step{fails(`MainTree/Script (Script): code: 1:9: unknown variable "b": the blackboard has no such entry yet (use := to create it)`)},
			wantBB: map[string]any{"a": 1},
		},
		{
			name:  "a blackboard script that does not parse is a tick error",
			tree:  script("{prog}"),
			bb:    map[string]any{"prog": "x :="},
			steps: []step{fails(`MainTree/Script (Script): port "code": script does not parse: 1:5: expected an expression after ':=', found end of script`)},
		},
		{
			name: "a blackboard script is parsed again when it changes",
			tree: cond("{rule}"),
			bb:   map[string]any{"rule": "true"},
			steps: []step{
				tick(Success, ""), tick(Failure, "").writing("rule", "false"), tick(Failure, ""),
			},
		},
	})
	// A script that doubles a string on every cycle of a Repeat stops with
	// a tick error (which halts the tree) once the string would pass
	// script.MaxStringLen (2^20 bytes): after 20 doublings of one byte.
	doubling := func(pos string) []step {
		steps := make([]step, 0, 21)
		for range 20 {
			steps = append(steps, tick(Running, ""))
		}
		return append(steps, fails("MainTree/Repeat/Script (Script): code: "+pos+": the joined string would be 2097152 bytes, more than the 1048576 (1 MiB) a script may make"))
	}
	runNodeCases(t, []nodeCase{
		{name: "s = s .. s in a Repeat is a tick error, not a crash",
			tree: N("Repeat", A("num_cycles", "-1"), script("s = s .. s")), bb: map[string]any{"s": "x"},
			steps: doubling("1:7")},
		{name: "s += s in a Repeat is a tick error, not a crash",
			tree: N("Repeat", A("num_cycles", "-1"), script("s += s")), bb: map[string]any{"s": "x"},
			steps: doubling("1:1")},
		{name: "s = s + s in a Repeat is a tick error, not a crash",
			tree: N("Repeat", A("num_cycles", "-1"), script("s = s + s")), bb: map[string]any{"s": "x"},
			steps: doubling("1:7")},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "a script that does not parse", tree: script("x := "), want: `MainTree/Script: port "code": script does not parse: 1:6: expected an expression after ':=', found end of script`},
		{name: "a script of blanks", tree: script("  "), want: `MainTree/Script: port "code": script does not parse: 1:1: empty script: expected at least one statement`},
		{name: "an empty condition", tree: cond(""), want: `MainTree/ScriptCondition: port "code": script does not parse: 1:1: empty script: expected at least one statement`},
		{name: "a condition that does not parse", tree: cond("a >"), want: `MainTree/ScriptCondition: port "code": script does not parse: 1:4: expected an expression after '>', found end of script`},
		{name: "code missing", tree: N("Script", nil), want: `MainTree/Script: missing required input port "code" (string): Piece of code that can be parsed`},
	})
}
