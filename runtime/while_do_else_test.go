package runtime

import "testing"

func TestWhileDoElse(t *testing.T) {
	wde := func(children ...*NodeSpec) *NodeSpec { return N("WhileDoElse", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "the condition is ticked on every tick while the do-branch runs",
			tree:  wde(S("While", "S"), S("Do", "R,R,S"), S("Else", "S")),
			steps: ticks(Running, "While Do", Running, "While Do", Success, "While Do", Success, "While Do"),
		},
		{
			name:  "the condition turning false halts the do-branch, then starts the else-branch",
			tree:  wde(S("While", "S,F,S"), S("Do", "R"), S("Else", "R")),
			steps: ticks(Running, "While Do", Running, "While Do! Else", Running, "While Else! Do"),
		},
		{
			name:  "a running condition leaves the branches alone",
			tree:  wde(S("While", "S,R,S"), S("Do", "R,R,S"), S("Else", "S")),
			steps: ticks(Running, "While Do", Running, "While", Running, "While Do"),
		},
		{
			name:  "the else-branch's status is returned",
			tree:  wde(S("While", "F"), S("Do", "S"), S("Else", "F,S")),
			steps: ticks(Failure, "While Else", Success, "While Else"),
		},
		{
			name:  "with two children a false condition is FAILURE and halts the do-branch",
			tree:  wde(S("While", "S,F"), S("Do", "R")),
			steps: ticks(Running, "While Do", Failure, "While Do!"),
		},
		{
			name:  "a skipped branch makes WhileDoElse SKIPPED",
			tree:  wde(S("While", "S"), S("Do", "K")),
			steps: ticks(Skipped, "While Do"),
		},
		{
			name:  "halt halts the running branch",
			tree:  wde(S("While", "S"), S("Do", "R"), S("Else", "S")),
			steps: ticks(Running, "While Do", halted("Do!")),
		},
	})
}

func TestWhileDoElseSkippedConditionIsAnError(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name: "a skipped condition",
		tree: N("WhileDoElse", nil, S("While", "K"), S("Do", "S")),
		steps: []step{{events: "While",
			err: "MainTree/WhileDoElse (WhileDoElse): the condition (first child) returned SKIPPED; a WhileDoElse condition must succeed or fail (in BehaviorTree.CPP the node then returns IDLE, which is an error too)"}},
	}})
}

func TestWhileDoElseBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{{
		name: "one child",
		tree: N("WhileDoElse", nil, S("While", "S")),
		want: "MainTree/WhileDoElse: WhileDoElse (a control) takes 2 to 3 children, has 1",
	}})
}
