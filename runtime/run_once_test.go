package runtime

import "testing"

func TestRunOnce(t *testing.T) {
	once := func(attrs []Attr, child *NodeSpec) *NodeSpec { return N("RunOnce", attrs, child) }
	runNodeCases(t, []nodeCase{
		{name: "runs once, then is SKIPPED forever", tree: once(nil, S("A", "S")),
			ticks: ticks(Success, "A", Skipped, "", Skipped, "")},
		{name: "a RUNNING child is resumed until it completes", tree: once(nil, S("A", "R,R,F")),
			ticks: ticks(Running, "A", Running, "A", Failure, "A", Skipped, "")},
		{name: "then_skip false repeats the first status without ticking the child",
			tree:  once(A("then_skip", "false"), S("A", "F,S")),
			ticks: ticks(Failure, "A", Failure, "", Failure, "")},
		{name: "then_skip false after a success", tree: once(A("then_skip", "false"), S("A", "R,S,F")),
			ticks: ticks(Running, "A", Success, "A", Success, "")},
		{name: "a skipped child does not count as the run", tree: once(nil, S("A", "K,S")),
			ticks: ticks(Skipped, "A", Success, "A", Skipped, "")},
		{name: "then_skip from the blackboard", tree: once(A("then_skip", "{skip}"), S("A", "S")),
			bb: map[string]any{"skip": false}, ticks: ticks(Success, "A", Success, "")},
		{name: "in a Sequence: initialisation once, the rest every time",
			tree:  N("Sequence", nil, once(nil, S("Init", "S")), S("B", "S")),
			ticks: ticks(Success, "Init B", Success, "B")},
	})
	runPlayCases(t, []playCase{{
		name: "halt halts the child; the run has not happened yet, so it starts again",
		tree: once(nil, S("A", "R,R,S")),
		steps: []playStep{
			tickP(Running, "A"), haltP("A!"),
			tickP(Running, "A"), tickP(Success, "A"), tickP(Skipped, ""),
		},
	}, {
		name: "then_skip read on every tick",
		tree: once(A("then_skip", "{skip}"), S("A", "F")),
		bb:   map[string]any{"skip": true},
		steps: []playStep{
			tickP(Failure, "A"), tickP(Skipped, ""),
			tickP(Failure, "").writing("skip", false),
		},
	}})
}
