package runtime

import "testing"

func TestInverter(t *testing.T) {
	inv := func(child *NodeSpec) *NodeSpec { return N("Inverter", nil, child) }
	runNodeCases(t, []nodeCase{
		{name: "SUCCESS becomes FAILURE", tree: inv(S("A", "S")), steps: ticks(Failure, "A", Failure, "A")},
		{name: "FAILURE becomes SUCCESS", tree: inv(S("A", "F")), steps: ticks(Success, "A", Success, "A")},
		{name: "RUNNING passes through and the child is resumed", tree: inv(S("A", "R,R,F")),
			steps: ticks(Running, "A", Running, "A", Success, "A")},
		{name: "SKIPPED passes through", tree: inv(S("A", "K,S")), steps: ticks(Skipped, "A", Failure, "A")},
		{name: "halt halts the running child", tree: inv(S("A", "R")),
			steps: ticks(Running, "A", halted("A!"))},
		{name: "inside a Sequence a failure stops it",
			tree:  N("Sequence", nil, inv(S("A", "S")), S("B", "S")),
			steps: ticks(Failure, "A", Failure, "A")},
	})
}
