package runtime

import "testing"

func TestSequence(t *testing.T) {
	seq := func(typ string, children ...*NodeSpec) *NodeSpec { return N(typ, nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "all succeed in one tick, then start again",
			tree:  seq("Sequence", S("A", "S"), S("B", "S")),
			steps: ticks(Success, "A B", Success, "A B"),
		},
		{
			name:  "running child is resumed, earlier children are not re-ticked",
			tree:  seq("Sequence", S("A", "S"), S("B", "R,R,S"), S("C", "S")),
			steps: ticks(Running, "A B", Running, "B", Success, "B C", Success, "A B C"),
		},
		{
			name:  "failure resets and restarts from the first child",
			tree:  seq("Sequence", S("A", "S"), S("B", "F,S"), S("C", "S")),
			steps: ticks(Failure, "A B", Success, "A B C"),
		},
		{
			name:  "skipped children are passed over; all skipped is SKIPPED",
			tree:  seq("Sequence", S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B"),
		},
		{
			name:  "some skipped is SUCCESS",
			tree:  seq("Sequence", S("A", "K"), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "halt halts the running child",
			tree:  seq("Sequence", S("A", "S"), S("B", "R")),
			steps: ticks(Running, "A B", halted("B!")),
		},
		{
			name:  "AsyncSequence yields after each child that succeeded at once",
			tree:  seq("AsyncSequence", S("A", "S"), S("B", "S"), S("C", "S")),
			steps: ticks(Running, "A", Running, "B", Success, "C", Running, "A"),
		},
		{
			name:  "AsyncSequence does not yield after a child that was running",
			tree:  seq("AsyncSequence", S("A", "R,S"), S("B", "S")),
			steps: ticks(Running, "A", Success, "A B", Running, "A"),
		},
	})
}
