package runtime

import "testing"

func TestScript(t *testing.T) {
	script := func(code string) *NodeSpec { return N("Script", A("code", code)) }
	cond := func(code string) *NodeSpec { return N("ScriptCondition", A("code", code)) }
	runNodeCases(t, []nodeCase{
		{name: "Script writes the blackboard and succeeds",
			tree: script("x := 1; y := x + 2; msg := 'at ' .. 'dock'"), ticks: ticks(Success, "", Success, ""),
			wantBB: map[string]any{"x": 1, "y": 3, "msg": "at dock"}},
		{name: "Script succeeds whatever its value", tree: script("false"), ticks: ticks(Success, "")},
		{name: "an empty Script does nothing and succeeds, as in BT.CPP", tree: script(""), ticks: ticks(Success, "", Success, "")},
		{name: "Script runs on every tick", tree: script("n += 1"), bb: map[string]any{"n": 0},
			ticks: ticks(Success, "", Success, "", Success, ""), wantBB: map[string]any{"n": 3}},
		{name: "ScriptCondition true is SUCCESS", tree: cond("battery > 0.2"), bb: map[string]any{"battery": 0.5},
			ticks: ticks(Success, "")},
		{name: "ScriptCondition false is FAILURE", tree: cond("battery > 0.2"), bb: map[string]any{"battery": 0.1},
			ticks: ticks(Failure, "")},
		{name: "ScriptCondition may assign too", tree: cond("n += 1; n < 3"), bb: map[string]any{"n": 0},
			ticks: ticks(Success, "", Success, "", Failure, ""), wantBB: map[string]any{"n": 3}},
		{name: "code from the blackboard", tree: script("{prog}"), bb: map[string]any{"prog": "x := 5"},
			ticks: ticks(Success, ""), wantBB: map[string]any{"x": 5}},
		{name: "in a Sequence, scripts see each other's writes",
			tree:  N("Sequence", nil, script("a := 2"), cond("a == 2"), script("b := a * 10")),
			ticks: ticks(Success, ""), wantBB: map[string]any{"b": 20}},
	})
	runPlayCases(t, []playCase{
		{
			name:  "an unknown variable is a tick error naming the node",
			tree:  script("y = 1"),
			steps: []playStep{errP(`MainTree/Script (Script): code: 1:1: unknown variable "y": the blackboard has no such entry yet (use := to create it)`)},
		},
		{
			name:  "a value that is not a condition is a tick error",
			tree:  cond("'abc'"),
			steps: []playStep{errP(`MainTree/ScriptCondition (ScriptCondition): code: string 'abc' cannot be used as a condition`)},
		},
		{
			name:   "assignments before an error stay made",
			tree:   script("a := 1; b = 2"),
			steps:  []playStep{errP(`code: 1:9: unknown variable "b"`)},
			wantBB: map[string]any{"a": 1},
		},
		{
			name:  "a blackboard script that does not parse is a tick error",
			tree:  script("{prog}"),
			bb:    map[string]any{"prog": "x :="},
			steps: []playStep{errP(`MainTree/Script (Script): port "code": script does not parse: 1:5:`)},
		},
		{
			name: "a blackboard script is parsed again when it changes",
			tree: cond("{rule}"),
			bb:   map[string]any{"rule": "true"},
			steps: []playStep{
				tickP(Success, ""), tickP(Failure, "").writing("rule", "false"), tickP(Failure, ""),
			},
		},
	})
	// A script that doubles a string on every cycle of a Repeat stops with
	// a tick error (which halts the tree) once the string would pass
	// script.MaxStringLen (2^20 bytes): after 20 doublings of one byte.
	doubling := func(code string) []playStep {
		steps := make([]playStep, 0, 21)
		for range 20 {
			steps = append(steps, tickP(Running, ""))
		}
		return append(steps, errP(code+": the joined string would be 2097152 bytes, more than the 1048576 (1 MiB) a script may make"))
	}
	runPlayCases(t, []playCase{
		{name: "s = s .. s in a Repeat is a tick error, not a crash",
			tree: N("Repeat", A("num_cycles", "-1"), script("s = s .. s")), bb: map[string]any{"s": "x"},
			steps: doubling("code: 1:7")},
		{name: "s += s in a Repeat is a tick error, not a crash",
			tree: N("Repeat", A("num_cycles", "-1"), script("s += s")), bb: map[string]any{"s": "x"},
			steps: doubling("code: 1:1")},
		{name: "s = s + s in a Repeat is a tick error, not a crash",
			tree: N("Repeat", A("num_cycles", "-1"), script("s = s + s")), bb: map[string]any{"s": "x"},
			steps: doubling("code: 1:7")},
	})
	runDecoBuildErrors(t, []decoBuildError{
		{"a script that does not parse", script("x := "), `MainTree/Script: port "code": script does not parse: 1:6: expected an expression after ':='`},
		{"a script of blanks", script("  "), `MainTree/Script: port "code": script does not parse: 1:1: empty script`},
		{"an empty condition", cond(""), `MainTree/ScriptCondition: port "code": script does not parse: 1:1: empty script`},
		{"a condition that does not parse", cond("a >"), `MainTree/ScriptCondition: port "code": script does not parse: 1:4:`},
		{"code missing", N("Script", nil), `MainTree/Script: missing required input port "code" (string)`},
	})
}
