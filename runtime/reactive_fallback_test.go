package runtime

import "testing"

func TestReactiveFallback(t *testing.T) {
	rf := func(children ...*NodeSpec) *NodeSpec { return N("ReactiveFallback", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "the first success wins",
			tree:  rf(S("A", "F"), S("B", "S"), S("C", "S")),
			steps: ticks(Success, "A B", Success, "A B"),
		},
		{
			name:  "all fail is FAILURE",
			tree:  rf(S("A", "F"), S("B", "F")),
			steps: ticks(Failure, "A B", Failure, "A B"),
		},
		{
			name:  "every tick starts again at the first child; the running child keeps running",
			tree:  rf(S("A", "F"), S("B", "R,R,F")),
			steps: ticks(Running, "A B", Running, "A B", Failure, "A B"),
		},
		{
			name:  "a higher-priority child succeeding halts the running one",
			tree:  rf(S("A", "F,F,S"), S("B", "R")),
			steps: ticks(Running, "A B", Running, "A B", Success, "A B!"),
		},
		{
			name:  "an earlier child turning RUNNING halts the running later one",
			tree:  rf(S("A", "F,R"), S("B", "R")),
			steps: ticks(Running, "A B", Running, "A B!"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  rf(S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B"),
		},
		{
			name:  "skipped children are passed over; the rest failing is FAILURE",
			tree:  rf(S("A", "K"), S("B", "F")),
			steps: ticks(Failure, "A B"),
		},
		{
			name:  "skipped children are passed over; a success wins",
			tree:  rf(S("A", "K"), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "halt halts the running child",
			tree:  rf(S("A", "F"), S("B", "R")),
			steps: ticks(Running, "A B", halted("B!")),
		},
	})
}
