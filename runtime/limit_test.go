package runtime

import "testing"

func TestLimit(t *testing.T) {
	limit := func(n string, child *NodeSpec) *NodeSpec { return N("Limit", A("max_runs", n), child) }
	runNodeCases(t, []nodeCase{
		{name: "max_runs runs, then FAILURE without ticking the child", tree: limit("2", S("A", "S,F,S")),
			steps: ticks(Success, "A", Failure, "A", Failure, "", Failure, "")},
		{name: "a run in progress completes even when it is the last", tree: limit("1", S("A", "R,R,S")),
			steps: ticks(Running, "A", Running, "A", Success, "A", Failure, "")},
		{name: "a skipped child is no run", tree: limit("1", S("A", "K,S")),
			steps: ticks(Skipped, "A", Success, "A", Failure, "")},
		{name: "max_runs 0 never runs the child", tree: limit("0", S("A", "S")),
			steps: ticks(Failure, "")},
		{name: "max_runs from the blackboard", tree: limit("{n}", S("A", "S")), bb: map[string]any{"n": 1},
			steps: ticks(Success, "A", Failure, "")},
		{
			name: "a run cut short by a halt still counts",
			tree: limit("1", S("A", "R")),
			steps: []step{
				tick(Running, "A"), halted("A!"), tick(Failure, ""),
			},
		}, {
			name: "raising max_runs lets the child run again",
			tree: limit("{n}", S("A", "S")), bb: map[string]any{"n": 1},
			steps: []step{
				tick(Success, "A"), tick(Failure, ""), tick(Success, "A").writing("n", 2),
			},
		}})
	runBuildErrors(t, []buildErrorCase{
		{name: "negative max_runs", tree: limit("-1", S("A", "S")), want: `MainTree/Limit: max_runs is -1; want a count >= 0`},
		{name: "max_runs missing", tree: N("Limit", nil, S("A", "S")), want: `MainTree/Limit: missing required input port "max_runs" (int): How many runs of the child may start in the life of the tree.`},
	})
}
