package runtime

import "testing"

func TestRunOnce(t *testing.T) {
	once := func(attrs []Attr, child *NodeSpec) *NodeSpec { return N("RunOnce", attrs, child) }
	runNodeCases(t, []nodeCase{
		{name: "runs once, then is SKIPPED forever", tree: once(nil, S("A", "S")),
			steps: ticks(Success, "A", Skipped, "", Skipped, "")},
		{name: "a RUNNING child is resumed until it completes", tree: once(nil, S("A", "R,R,F")),
			steps: ticks(Running, "A", Running, "A", Failure, "A", Skipped, "")},
		{name: "then_skip false repeats the first status without ticking the child",
			tree:  once(A("then_skip", "false"), S("A", "F,S")),
			steps: ticks(Failure, "A", Failure, "", Failure, "")},
		{name: "then_skip false after a success", tree: once(A("then_skip", "false"), S("A", "R,S,F")),
			steps: ticks(Running, "A", Success, "A", Success, "")},
		{name: "a skipped child does not count as the run", tree: once(nil, S("A", "K,S")),
			steps: ticks(Skipped, "A", Success, "A", Skipped, "")},
		{name: "then_skip from the blackboard", tree: once(A("then_skip", "{skip}"), S("A", "S")),
			bb: map[string]any{"skip": false}, steps: ticks(Success, "A", Success, "")},
		{name: "in a Sequence: initialisation once, the rest every time",
			tree:  N("Sequence", nil, once(nil, S("Init", "S")), S("B", "S")),
			steps: ticks(Success, "Init B", Success, "B")},
		{
			name: "halt halts the child; the run has not happened yet, so it starts again",
			tree: once(nil, S("A", "R,R,S")),
			steps: []step{
				tick(Running, "A"), halted("A!"),
				tick(Running, "A"), tick(Success, "A"), tick(Skipped, ""),
			},
		}, {
			name: "then_skip read on every tick",
			tree: once(A("then_skip", "{skip}"), S("A", "F")),
			bb:   map[string]any{"skip": true},
			steps: []step{
				tick(Failure, "A"), tick(Skipped, ""),
				tick(Failure, "").writing("skip", false),
			},
		}})
}
