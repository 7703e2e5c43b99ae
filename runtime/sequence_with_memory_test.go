package runtime

import "testing"

func TestSequenceWithMemory(t *testing.T) {
	swm := func(children ...*NodeSpec) *NodeSpec { return N("SequenceWithMemory", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			// BT.CPP 4.10 yields after every child that succeeded at once,
			// like AsyncSequence (see the node's contract).
			name:  "yields after each child that succeeded in the tick it started",
			tree:  swm(S("A", "S"), S("B", "S"), S("C", "S")),
			steps: ticks(Running, "A", Running, "B", Success, "C", Running, "A"),
		},
		{
			name:  "a child that was running does not yield; earlier children are not re-ticked",
			tree:  swm(S("A", "S"), S("B", "R,R,S"), S("C", "S")),
			steps: ticks(Running, "A", Running, "B", Running, "B", Success, "B C", Running, "A"),
		},
		{
			name:  "failure keeps the position: the next tick retries the failed child only",
			tree:  swm(S("A", "S"), S("B", "F,F,S"), S("C", "S")),
			steps: ticks(Running, "A", Failure, "B", Failure, "B", Running, "B", Success, "C", Running, "A"),
		},
		{
			name:  "a running child that fails is retried, not restarted from the first",
			tree:  swm(S("A", "S"), S("B", "R,F,S"), S("C", "S")),
			steps: ticks(Running, "A", Running, "B", Failure, "B", Running, "B", Success, "C"),
		},
		{
			name:  "all skipped is SKIPPED, every time",
			tree:  swm(S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "A B", Skipped, "A B"),
		},
		{
			name:  "skipped children are passed over without yielding; some skipped is SUCCESS",
			tree:  swm(S("A", "K"), S("B", "S")),
			steps: ticks(Success, "A B"),
		},
		{
			name:  "failure of the first child",
			tree:  swm(S("A", "F,S"), S("B", "S")),
			steps: ticks(Failure, "A", Running, "A", Success, "B"),
		},
		{
			name:  "halt halts the running child",
			tree:  swm(S("A", "S"), S("B", "R")),
			steps: ticks(Running, "A", Running, "B", halted("B!")),
		},
	})
}

func TestSequenceWithMemoryHaltKeepsPosition(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		// As in BT.CPP 4.10 (differential tree sequence_with_memory_halted).
		name:  "a halted SequenceWithMemory resumes at the child it had reached",
		tree:  N("SequenceWithMemory", nil, S("A", "S"), S("B", "R,R,S"), S("C", "S")),
		steps: ticks(Running, "A", Running, "B", halted("B!"), Running, "B", Success, "B C", Running, "A"),
	}})
}

func TestSequenceWithMemoryYieldWakesTheTree(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "yielding after a child succeeded asks for a tick",
		tree:  N("SequenceWithMemory", nil, S("A", "S"), S("B", "S")),
		steps: []step{tick(Running, "A").woken(true)},
	}})
}
