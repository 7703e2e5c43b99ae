package runtime

import "testing"

func TestKeepRunningUntilFailure(t *testing.T) {
	krf := func(child *NodeSpec) *NodeSpec { return N("KeepRunningUntilFailure", nil, child) }
	runNodeCases(t, []nodeCase{
		{name: "a success runs the child again on the next tick, a failure ends it",
			tree:  krf(S("A", "S,S,F,S")),
			steps: ticks(Running, "A", Running, "A", Failure, "A", Running, "A")},
		{name: "a running child is resumed", tree: krf(S("A", "R,R,F")),
			steps: ticks(Running, "A", Running, "A", Failure, "A")},
		{name: "a skipped child leaves it RUNNING, as BT.CPP", tree: krf(S("A", "K,K,F")),
			steps: ticks(Running, "A", Running, "A", Failure, "A")},
		{name: "halt halts the running child", tree: krf(S("A", "S,R")),
			steps: ticks(Running, "A", Running, "A", halted("A!"))},
		{
			name:  "no wake-up between runs: the next run waits for the next tick",
			tree:  krf(S("A", "S")),
			steps: []step{tick(Running, "A").woken(false)},
		}})
}
