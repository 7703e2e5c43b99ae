package runtime

import "testing"

func TestForce(t *testing.T) {
	fs := func(child *NodeSpec) *NodeSpec { return N("ForceSuccess", nil, child) }
	ff := func(child *NodeSpec) *NodeSpec { return N("ForceFailure", nil, child) }
	runNodeCases(t, []nodeCase{
		{name: "ForceSuccess: SUCCESS stays SUCCESS", tree: fs(S("A", "S")), steps: ticks(Success, "A")},
		{name: "ForceSuccess: FAILURE becomes SUCCESS", tree: fs(S("A", "F")), steps: ticks(Success, "A", Success, "A")},
		{name: "ForceSuccess: RUNNING passes through", tree: fs(S("A", "R,F")), steps: ticks(Running, "A", Success, "A")},
		{name: "ForceSuccess: SKIPPED passes through", tree: fs(S("A", "K")), steps: ticks(Skipped, "A")},
		{name: "ForceFailure: SUCCESS becomes FAILURE", tree: ff(S("A", "S")), steps: ticks(Failure, "A")},
		{name: "ForceFailure: FAILURE stays FAILURE", tree: ff(S("A", "F")), steps: ticks(Failure, "A")},
		{name: "ForceFailure: RUNNING passes through", tree: ff(S("A", "R,S")), steps: ticks(Running, "A", Failure, "A")},
		{name: "ForceFailure: SKIPPED passes through", tree: ff(S("A", "K")), steps: ticks(Skipped, "A")},
		{name: "ForceSuccess keeps a Sequence going past a failure",
			tree:  N("Sequence", nil, fs(S("A", "F")), S("B", "S")),
			steps: ticks(Success, "A B")},
		{name: "halt halts the running child", tree: ff(S("A", "R")),
			steps: ticks(Running, "A", halted("A!"))},
	})
}
