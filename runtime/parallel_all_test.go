package runtime

import "testing"

func TestParallelAll(t *testing.T) {
	pa := func(attrs []string, children ...*NodeSpec) *NodeSpec { return C("ParallelAll", attrs, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "waits for every child, finished ones are not ticked again; one failure fails",
			tree:  pa(nil, S("A", "R,S"), S("B", "F")),
			steps: ticks(Running, "A B", Failure, "A", Failure, "A B"),
		},
		{
			name:  "a failure does not halt the running children",
			tree:  pa(nil, S("A", "F"), S("B", "R,R,S")),
			steps: ticks(Running, "A B", Running, "B", Failure, "B"),
		},
		{
			name:  "all succeed",
			tree:  pa(nil, S("A", "S"), S("B", "R,S")),
			steps: ticks(Running, "A B", Success, "B", Success, "A B"),
		},
		{
			name:  "max_failures=2 fails with two failures",
			tree:  pa([]string{"max_failures", "2"}, S("A", "F"), S("B", "S"), S("C", "F")),
			steps: ticks(Failure, "A B C"),
		},
		{
			name:  "max_failures=2 succeeds with one failure",
			tree:  pa([]string{"max_failures", "2"}, S("A", "F"), S("B", "S"), S("C", "S")),
			steps: ticks(Success, "A B C"),
		},
		{
			name:  "max_failures=-1 fails only when every child failed",
			tree:  pa([]string{"max_failures", "-1"}, S("A", "F"), S("B", "F,S"), S("C", "F")),
			steps: ticks(Failure, "A B C", Success, "A B C"),
		},
		{
			name:  "max_failures=0 always fails, as in BT.CPP",
			tree:  pa([]string{"max_failures", "0"}, S("A", "S")),
			steps: ticks(Failure, "A"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  pa(nil, S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B"),
		},
		{
			name:  "skipped children count as done for this tick and are ticked again on the next",
			tree:  pa(nil, S("A", "K"), S("B", "R,S")),
			steps: ticks(Running, "A B", Success, "A B"),
		},
		{
			name:  "halt halts the running children",
			tree:  pa(nil, S("A", "R"), S("B", "S"), S("C", "R")),
			steps: ticks(Running, "A B C", halted("A! C!")),
		},
		{
			name:  "max_failures from the blackboard",
			tree:  pa([]string{"max_failures", "{tolerated}"}, S("A", "F"), S("B", "S")),
			bb:    map[string]any{"tolerated": 2},
			steps: ticks(Success, "A B"),
		},
	})
}

func TestParallelAllHaltForgetsFinishedChildren(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "after a halt every child runs again",
		tree:  C("ParallelAll", nil, S("A", "F"), S("B", "R")),
		steps: ticks(Running, "A B", halted("B!"), Running, "A B"),
	}})
}

func TestParallelAllBlackboardThresholdError(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name: "max_failures from the blackboard beyond the children",
		tree: C("ParallelAll", []string{"max_failures", "{tolerated}"}, S("A", "F")),
		bb:   map[string]any{"tolerated": 2},
		steps: []step{{events: "",
			err: "MainTree/ParallelAll (ParallelAll): max_failures=2 can never be met: the ParallelAll has only 1 child, so it could never fail (use -1 for all of them)"}},
	}})
}

func TestParallelAllBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{{
		name: "more failures than children",
		tree: C("ParallelAll", []string{"max_failures", "3"}, S("A", "S"), S("B", "S")),
		want: "MainTree/ParallelAll: max_failures=3 can never be met: the ParallelAll has only 2 children, so it could never fail (use -1 for all of them)",
	}})
}
