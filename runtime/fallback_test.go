package runtime

import "testing"

func TestFallback(t *testing.T) {
	fb := func(typ string, children ...*NodeSpec) *NodeSpec { return N(typ, nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "the first child that succeeds wins, then start again",
			tree:  fb("Fallback", S("A", "F"), S("B", "S"), S("C", "S")),
			steps: ticks(Success, "A B", Success, "A B"),
		},
		{
			name:  "running child is resumed, earlier children are not re-ticked",
			tree:  fb("Fallback", S("A", "F"), S("B", "R,R,F"), S("C", "S")),
			steps: ticks(Running, "A B", Running, "B", Success, "B C", Success, "A B C"),
		},
		{
			name:  "all fail is FAILURE and restarts from the first child",
			tree:  fb("Fallback", S("A", "F"), S("B", "F")),
			steps: ticks(Failure, "A B", Failure, "A B"),
		},
		{
			name:  "success resets: a running child that succeeds restarts the next activation at the first",
			tree:  fb("Fallback", S("A", "F"), S("B", "R,S,R")),
			steps: ticks(Running, "A B", Success, "B", Running, "A B"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  fb("Fallback", S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B"),
		},
		{
			name:  "skipped children are passed over; the rest failing is FAILURE",
			tree:  fb("Fallback", S("A", "K"), S("B", "F")),
			steps: ticks(Failure, "A B"),
		},
		{
			name:  "halt halts the running child",
			tree:  fb("Fallback", S("A", "F"), S("B", "R")),
			steps: ticks(Running, "A B", halted("B!")),
		},
		{
			name:  "AsyncFallback yields after each child that failed at once",
			tree:  fb("AsyncFallback", S("A", "F"), S("B", "F"), S("C", "S")),
			steps: ticks(Running, "A", Running, "B", Success, "C", Running, "A"),
		},
		{
			name:  "AsyncFallback does not yield after a child that was running, nor after the last",
			tree:  fb("AsyncFallback", S("A", "R,F"), S("B", "F")),
			steps: ticks(Running, "A", Failure, "A B", Running, "A"),
		},
		{
			name:  "AsyncFallback does not yield after a skipped child",
			tree:  fb("AsyncFallback", S("A", "K"), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
	})
}

func TestFallbackHaltRewinds(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "the next tick after a halt starts at the first child",
		tree:  N("Fallback", nil, S("A", "F"), S("B", "R")),
		steps: ticks(Running, "A B", halted("B!"), Running, "A B"),
	}})
}

func TestAsyncFallbackYieldWakesTheTree(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "yielding after a failed child asks for a tick",
		tree:  N("AsyncFallback", nil, S("A", "F"), S("B", "S")),
		steps: []step{tick(Running, "A").woken(true)},
	}})
}
