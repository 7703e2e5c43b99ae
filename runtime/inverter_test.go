package runtime

import "testing"

func TestInverter(t *testing.T) {
	inv := func(child *NodeSpec) *NodeSpec { return N("Inverter", nil, child) }
	runNodeCases(t, []nodeCase{
		{name: "SUCCESS becomes FAILURE", tree: inv(S("A", "S")), ticks: ticks(Failure, "A", Failure, "A")},
		{name: "FAILURE becomes SUCCESS", tree: inv(S("A", "F")), ticks: ticks(Success, "A", Success, "A")},
		{name: "RUNNING passes through and the child is resumed", tree: inv(S("A", "R,R,F")),
			ticks: ticks(Running, "A", Running, "A", Success, "A")},
		{name: "SKIPPED passes through", tree: inv(S("A", "K,S")), ticks: ticks(Skipped, "A", Failure, "A")},
		{name: "halt halts the running child", tree: inv(S("A", "R")),
			ticks: ticks(Running, "A"), halt: true, after: []string{"A!"}},
		{name: "inside a Sequence a failure stops it",
			tree:  N("Sequence", nil, inv(S("A", "S")), S("B", "S")),
			ticks: ticks(Failure, "A", Failure, "A")},
	})
}
