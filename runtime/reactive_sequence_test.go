package runtime

import "testing"

func TestReactiveSequence(t *testing.T) {
	rs := func(children ...*NodeSpec) *NodeSpec { return N("ReactiveSequence", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "all succeed",
			tree:  rs(S("A", "S"), S("B", "S")),
			steps: ticks(Success, "A B", Success, "A B"),
		},
		{
			name:  "every tick starts again at the first child; the running child keeps running",
			tree:  rs(S("A", "S"), S("B", "R,R,S")),
			steps: ticks(Running, "A B", Running, "A B", Success, "A B"),
		},
		{
			name:  "a condition failing halts the running child",
			tree:  rs(S("A", "S,S,F"), S("B", "R")),
			steps: ticks(Running, "A B", Running, "A B", Failure, "A B!"),
		},
		{
			name:  "an earlier child turning RUNNING halts the running later one",
			tree:  rs(S("A", "S,R"), S("B", "R")),
			steps: ticks(Running, "A B", Running, "A B!"),
		},
		{
			name:  "RUNNING halts every other running child, in child order",
			tree:  rs(S("A", "S,S,R"), S("B", "S,R"), S("C", "R")),
			steps: ticks(Running, "A B C", Running, "A B C!", Running, "A B!"),
		},
		{
			name:  "a later child failing is FAILURE",
			tree:  rs(S("A", "S"), S("B", "F")),
			steps: ticks(Failure, "A B"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  rs(S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B"),
		},
		{
			name:  "skipped children are passed over; some skipped is SUCCESS",
			tree:  rs(S("A", "K"), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "halt halts the running child",
			tree:  rs(S("A", "S"), S("B", "R")),
			steps: ticks(Running, "A B", halted("B!")),
		},
		{
			name:  "one AsyncSequence child is allowed",
			tree:  rs(N("AsyncSequence", nil, S("A", "S")), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
	})
}

func TestReactiveSequenceBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{{
		name: "two AsyncSequence children, as BT.CPP's loader rejects",
		tree: N("ReactiveSequence", nil, N("AsyncSequence", nil, S("A", "S")), N("AsyncSequence", nil, S("B", "S"))),
		want: "MainTree/ReactiveSequence: a ReactiveSequence may have at most one asynchronous child, this one has 2 AsyncSequence children (BehaviorTree.CPP rejects this tree too); use Sequence for all but one",
	}})
}
