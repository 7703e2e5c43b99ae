package runtime

import "testing"

func TestParallel(t *testing.T) {
	par := func(attrs []string, children ...*NodeSpec) *NodeSpec { return C("Parallel", attrs, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "by default all must succeed; finished children are not ticked again",
			tree:  par(nil, S("A", "S"), S("B", "R,S"), S("C", "R,R,S")),
			steps: ticks(Running, "A B C", Running, "B C", Success, "C", Success, "A B C"),
		},
		{
			name:  "by default one failure fails: running siblings are halted, later ones not ticked",
			tree:  par(nil, S("A", "R"), S("B", "F"), S("C", "R")),
			steps: ticks(Failure, "A B A!", Failure, "A B A!"),
		},
		{
			name:  "success_count=1 (RequireOne): the first success wins and the others are halted in order",
			tree:  par([]string{"success_count", "1"}, S("A", "R"), S("B", "R,S"), S("C", "R")),
			steps: ticks(Running, "A B C", Success, "A B A! C!"),
		},
		{
			name:  "failure_count=-1 (RequireAll): fails only when every child failed",
			tree:  par([]string{"success_count", "1", "failure_count", "-1"}, S("A", "F"), S("B", "R,F")),
			steps: ticks(Running, "A B", Failure, "B"),
		},
		{
			name:  "success_count=-2 needs all children but one",
			tree:  par([]string{"success_count", "-2"}, S("A", "S"), S("B", "R"), S("C", "S")),
			steps: ticks(Success, "A B C B!"),
		},
		{
			name:  "fails as soon as too few children are left to succeed, before ticking the rest",
			tree:  par([]string{"success_count", "3", "failure_count", "3"}, S("A", "F"), S("B", "S"), S("C", "F"), S("D", "S")),
			steps: ticks(Failure, "A B C"),
		},
		{
			name:  "failure_count=2 tolerates one failure",
			tree:  par([]string{"success_count", "1", "failure_count", "2"}, S("A", "F"), S("B", "R,S"), S("C", "R")),
			steps: ticks(Running, "A B C", Success, "B C!"),
		},
		{
			name:  "with success_count=-1 one failure makes success impossible, whatever failure_count says",
			tree:  par([]string{"failure_count", "2"}, S("A", "F"), S("B", "R")),
			steps: ticks(Failure, "A"),
		},
		{
			name:  "with a negative success_count, children skipped in this tick count as successes",
			tree:  par(nil, S("A", "K"), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "with a negative success_count, all skipped is SUCCESS (as BT.CPP), not SKIPPED",
			tree:  par(nil, S("A", "K"), S("B", "K")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "with a positive success_count, skipped children do not count and are ticked again",
			tree:  par([]string{"success_count", "2"}, S("A", "S"), S("B", "K,S")),
			steps: ticks(Running, "A B", Success, "B"),
		},
		{
			name:  "with a positive success_count, all skipped in this tick is SKIPPED",
			tree:  par([]string{"success_count", "1"}, S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B", Skipped, "A B"),
		},
		{
			name:  "success_count=0 is met after the first child, as in BT.CPP",
			tree:  par([]string{"success_count", "0"}, S("A", "R"), S("B", "R")),
			steps: ticks(Success, "A A!"),
		},
		{
			name:  "failure_count=0 is met after the first child that does not succeed the Parallel",
			tree:  par([]string{"failure_count", "0"}, S("A", "S"), S("B", "S")),
			steps: ticks(Failure, "A"),
		},
		{
			name:  "success is checked before failure after each child",
			tree:  par([]string{"success_count", "1", "failure_count", "1"}, S("A", "S"), S("B", "F")),
			steps: ticks(Success, "A"),
		},
		{
			name:  "halt halts every running child in order",
			tree:  par(nil, S("A", "R"), S("B", "S"), S("C", "R")),
			steps: ticks(Running, "A B C", halted("A! C!")),
		},
		{
			name:  "thresholds from the blackboard",
			tree:  par([]string{"success_count", "{need}"}, S("A", "R"), S("B", "S")),
			bb:    map[string]any{"need": 1},
			steps: ticks(Success, "A B A!"),
		},
	})
}

func TestParallelHaltForgetsFinishedChildren(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "after a halt every child runs again",
		tree:  C("Parallel", nil, S("A", "S"), S("B", "R")),
		steps: ticks(Running, "A B", Running, "B", halted("B!"), Running, "A B"),
	}})
}

func TestParallelThresholdsReadEveryTick(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name: "thresholds from the blackboard, checked on every tick",
		tree: C("Parallel", []string{"success_count", "{need}", "failure_count", "{fails}"},
			S("A", "R"), S("B", "S"), S("C", "R")),
		bb: map[string]any{"need": 3, "fails": 1},
		steps: []step{
			tick(Running, "A B C"),
			tick(Success, "A A! C!").writing("need", 1),
			{set: map[string]any{"need": 4}, events: "",
				err: "MainTree/Parallel (Parallel): success_count=4 can never be met: the Parallel has only 3 children, so it could never succeed (use -1 for all of them)"},
			{set: map[string]any{"need": -1, "fails": 5}, events: "",
				err: "MainTree/Parallel (Parallel): failure_count=5 can never be met: the Parallel has only 3 children, so it could never fail (use -1 for all of them)"},
		},
	}})
}

func TestParallelBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{
		{
			name: "more successes than children",
			tree: C("Parallel", []string{"success_count", "3"}, S("A", "S"), S("B", "S")),
			want: "MainTree/Parallel: success_count=3 can never be met: the Parallel has only 2 children, so it could never succeed (use -1 for all of them)",
		},
		{
			name: "more failures than children",
			tree: C("Parallel", []string{"name", "watch", "failure_count", "2"}, S("A", "S")),
			want: "MainTree/watch: failure_count=2 can never be met: the Parallel has only 1 child, so it could never fail (use -1 for all of them)",
		},
		{
			name: "not a number",
			tree: C("Parallel", []string{"success_count", "all"}, S("A", "S")),
			want: `MainTree/Parallel: port "success_count" (int): "all" is not an integer that fits int`,
		},
	})
}
