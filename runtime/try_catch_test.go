package runtime

import "testing"

func TestTryCatch(t *testing.T) {
	tc := func(attrs []string, children ...*NodeSpec) *NodeSpec { return C("TryCatch", attrs, children...) }
	coh := []string{"catch_on_halt", "true"}
	runNodeCases(t, []nodeCase{
		{
			name:  "the try block succeeding is SUCCESS and the catch child is not ticked",
			tree:  tc(nil, S("A", "S"), S("B", "S"), S("Catch", "S")),
			steps: ticks(Success, "A B", Success, "A B"),
		},
		{
			name:  "a try child failing ticks the catch child in the same tick, then FAILURE",
			tree:  tc(nil, S("A", "S"), S("B", "F"), S("C", "S"), S("Catch", "S")),
			steps: ticks(Failure, "A B Catch", Failure, "A B Catch"),
		},
		{
			name:  "the catch child's own failure is still FAILURE",
			tree:  tc(nil, S("A", "F"), S("Catch", "F")),
			steps: ticks(Failure, "A Catch"),
		},
		{
			name:  "a running catch child keeps TryCatch RUNNING; the try block is not ticked again",
			tree:  tc(nil, S("A", "F,S"), S("Catch", "R,R,S")),
			steps: ticks(Running, "A Catch", Running, "Catch", Failure, "Catch", Success, "A"),
		},
		{
			name:  "a running try child is resumed",
			tree:  tc(nil, S("A", "S"), S("B", "R,S"), S("Catch", "S")),
			steps: ticks(Running, "A B", Success, "B", Success, "A B"),
		},
		{
			name:  "a running try child that fails enters the catch block",
			tree:  tc(nil, S("A", "R,F"), S("Catch", "S")),
			steps: ticks(Running, "A", Failure, "A Catch"),
		},
		{
			name:  "all try children skipped is SKIPPED, the catch child is not ticked",
			tree:  tc(nil, S("A", "K"), S("B", "K"), S("Catch", "S")),
			steps: ticks(Skipped, "A B"),
		},
		{
			name:  "skipped try children are passed over",
			tree:  tc(nil, S("A", "K"), S("B", "S"), S("Catch", "S")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "by default a halt during the try block only halts it",
			tree:  tc(nil, S("A", "S"), S("B", "R"), S("Catch", "S")),
			steps: ticks(Running, "A B", halted("B!")),
		},
		{
			name:  "catch_on_halt: a halt during the try block halts it, then ticks the catch child once",
			tree:  tc(coh, S("A", "S"), S("B", "R"), S("Catch", "S")),
			steps: ticks(Running, "A B", halted("B! Catch")),
		},
		{
			name:  "catch_on_halt: a catch child that keeps running is halted at once",
			tree:  tc(coh, S("A", "R"), S("Catch", "R")),
			steps: ticks(Running, "A", halted("A! Catch Catch!")),
		},
		{
			name:  "catch_on_halt: a halt during the catch block only halts it",
			tree:  tc(coh, S("A", "F"), S("Catch", "R")),
			steps: ticks(Running, "A Catch", halted("Catch!")),
		},
		{
			name:  "catch_on_halt from the blackboard",
			tree:  tc([]string{"catch_on_halt", "{cleanup}"}, S("A", "R"), S("Catch", "S")),
			bb:    map[string]any{"cleanup": true},
			steps: ticks(Running, "A", halted("A! Catch")),
		},
	})
}

func TestTryCatchHaltRewinds(t *testing.T) {
	runNodeCases(t, []nodeCase{
		{
			name:  "a halt in the try block",
			tree:  C("TryCatch", nil, S("A", "S"), S("B", "R"), S("Catch", "S")),
			steps: ticks(Running, "A B", halted("B!"), Running, "A B"),
		},
		{
			name:  "a halt in the catch block",
			tree:  C("TryCatch", nil, S("A", "F,S"), S("Catch", "R")),
			steps: ticks(Running, "A Catch", halted("Catch!"), Success, "A"),
		},
	})
}

func TestTryCatchBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{
		{
			name: "one child",
			tree: C("TryCatch", nil, S("A", "S")),
			want: "MainTree/TryCatch: TryCatch (a control) takes at least 2 children, has 1",
		},
		{
			name: "catch_on_halt not a bool",
			tree: C("TryCatch", []string{"catch_on_halt", "maybe"}, S("A", "S"), S("B", "S")),
			want: `MainTree/TryCatch: port "catch_on_halt" (bool): "maybe" is not a bool (write true or false)`,
		},
	})
}
