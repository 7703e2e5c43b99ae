package runtime

import "testing"

func TestPrecondition(t *testing.T) {
	pre := func(attrs []Attr, child *NodeSpec) *NodeSpec { return N("Precondition", attrs, child) }
	runNodeCases(t, []nodeCase{
		{name: "true ticks the child and returns its status",
			tree: pre(A("if", "go"), S("A", "S,F")), bb: map[string]any{"go": true},
			steps: ticks(Success, "A", Failure, "A")},
		{name: "false returns FAILURE by default without ticking the child",
			tree: pre(A("if", "go"), S("A", "S")), bb: map[string]any{"go": false},
			steps: ticks(Failure, "", Failure, "")},
		{name: "else SUCCESS", tree: pre(A("if", "false", "else", "SUCCESS"), S("A", "S")),
			steps: ticks(Success, "")},
		{name: "else SKIPPED", tree: pre(A("if", "1 > 2", "else", "SKIPPED"), S("A", "S")),
			steps: ticks(Skipped, "")},
		{name: "else RUNNING waits for the condition", tree: pre(A("if", "false", "else", "RUNNING"), S("A", "S")),
			steps: ticks(Running, "", Running, "")},
		{
			// The condition counts its evaluations in n: it is true only the
			// first time, yet the running child is resumed to completion.
			name: "once the child runs, the condition is not evaluated again until it completes",
			tree: pre(A("if", "n += 1; n == 1"), S("A", "R,R,S")), bb: map[string]any{"n": 0},
			steps:  ticks(Running, "A", Running, "A", Success, "A", Failure, ""),
			wantBB: map[string]any{"n": 2},
		},
		{name: "the script reads and writes the node's blackboard",
			tree: pre(A("if", "battery > 0.2 && !docked"), S("A", "S")),
			bb:   map[string]any{"battery": 0.5, "docked": false}, steps: ticks(Success, "A")},
		{
			name: "the condition is evaluated on every tick while the child is not running",
			tree: pre(A("if", "go"), S("A", "S")),
			bb:   map[string]any{"go": false},
			steps: []step{
				tick(Failure, ""),
				tick(Success, "A").writing("go", true),
				tick(Failure, "").writing("go", false),
			},
		},
		{
			name: "as in BT.CPP, a halt does not make it evaluate the condition again",
			tree: pre(A("if", "n += 1; n == 1"), S("A", "R,S")),
			bb:   map[string]any{"n": 0},
			steps: []step{
				tick(Running, "A"), halted("A!"), tick(Success, "A"),
			},
			wantBB: map[string]any{"n": 1},
		},
		{
			name:  "a script error at tick time fails the tick with the node's path",
			tree:  pre(A("if", "missing > 1"), S("A", "S")),
			steps: []step{fails(`MainTree/Precondition (Precondition): if: 1:1: unknown variable 'missing' (use := to create it)`)},
		},
		{
			name:   "the script may come from the blackboard",
			tree:   pre(A("if", "{rule}"), S("A", "S")),
			bb:     map[string]any{"rule": "x := 3; x > 2"},
			steps:  []step{tick(Success, "A"), tick(Failure, "").writing("rule", "x < 2")},
			wantBB: map[string]any{"x": 3},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "a script that does not parse", tree: pre(A("if", "a >"), S("A", "S")), want: `MainTree/Precondition: port "if": script does not parse: 1:4: expected an expression after '>', found end of script`},
		{name: "an empty script", tree: pre(A("if", ""), S("A", "S")), want: `MainTree/Precondition: port "if": script does not parse: 1:1: empty script: expected at least one statement`},
		{name: "else IDLE", tree: pre(A("if", "true", "else", "IDLE"), S("A", "S")), want: `MainTree/Precondition: port "else" is IDLE; want SUCCESS, FAILURE, RUNNING or SKIPPED`},
		{name: "else not a status", tree: pre(A("if", "true", "else", "MAYBE"), S("A", "S")), want: `MainTree/Precondition: port "else" (runtime.Status): "MAYBE" is not a valid runtime.Status: unknown status "MAYBE" (want one of IDLE, RUNNING, SUCCESS, FAILURE, SKIPPED)`},
		{name: "if missing", tree: pre(nil, S("A", "S")), want: `MainTree/Precondition: missing required input port "if" (string): A script: the child is ticked when it is true.`},
	})
}
