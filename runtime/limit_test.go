package runtime

import "testing"

func TestLimit(t *testing.T) {
	limit := func(n string, child *NodeSpec) *NodeSpec { return N("Limit", A("max_runs", n), child) }
	runNodeCases(t, []nodeCase{
		{name: "max_runs runs, then FAILURE without ticking the child", tree: limit("2", S("A", "S,F,S")),
			ticks: ticks(Success, "A", Failure, "A", Failure, "", Failure, "")},
		{name: "a run in progress completes even when it is the last", tree: limit("1", S("A", "R,R,S")),
			ticks: ticks(Running, "A", Running, "A", Success, "A", Failure, "")},
		{name: "a skipped child is no run", tree: limit("1", S("A", "K,S")),
			ticks: ticks(Skipped, "A", Success, "A", Failure, "")},
		{name: "max_runs 0 never runs the child", tree: limit("0", S("A", "S")),
			ticks: ticks(Failure, "")},
		{name: "max_runs from the blackboard", tree: limit("{n}", S("A", "S")), bb: map[string]any{"n": 1},
			ticks: ticks(Success, "A", Failure, "")},
	})
	runPlayCases(t, []playCase{{
		name: "a run cut short by a halt still counts",
		tree: limit("1", S("A", "R")),
		steps: []playStep{
			tickP(Running, "A"), haltP("A!"), tickP(Failure, ""),
		},
	}, {
		name: "raising max_runs lets the child run again",
		tree: limit("{n}", S("A", "S")), bb: map[string]any{"n": 1},
		steps: []playStep{
			tickP(Success, "A"), tickP(Failure, ""), tickP(Success, "A").writing("n", 2),
		},
	}})
	runDecoBuildErrors(t, []decoBuildError{
		{"negative max_runs", limit("-1", S("A", "S")), `MainTree/Limit: max_runs is -1; want a count >= 0`},
		{"max_runs missing", N("Limit", nil, S("A", "S")), `MainTree/Limit: missing required input port "max_runs" (int)`},
	})
}
