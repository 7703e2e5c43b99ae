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
			ticks: ticks(Running, "A", Running, "B", Success, "C", Running, "A"),
		},
		{
			name:  "a child that was running does not yield; earlier children are not re-ticked",
			tree:  swm(S("A", "S"), S("B", "R,R,S"), S("C", "S")),
			ticks: ticks(Running, "A", Running, "B", Running, "B", Success, "B C", Running, "A"),
		},
		{
			name:  "failure keeps the position: the next tick retries the failed child only",
			tree:  swm(S("A", "S"), S("B", "F,F,S"), S("C", "S")),
			ticks: ticks(Running, "A", Failure, "B", Failure, "B", Running, "B", Success, "C", Running, "A"),
		},
		{
			name:  "a running child that fails is retried, not restarted from the first",
			tree:  swm(S("A", "S"), S("B", "R,F,S"), S("C", "S")),
			ticks: ticks(Running, "A", Running, "B", Failure, "B", Running, "B", Success, "C"),
		},
		{
			name:  "all skipped is SKIPPED, every time",
			tree:  swm(S("A", "K"), S("B", "K")),
			ticks: ticks(Skipped, "A B", Skipped, "A B"),
		},
		{
			name:  "skipped children are passed over without yielding; some skipped is SUCCESS",
			tree:  swm(S("A", "K"), S("B", "S")),
			ticks: ticks(Success, "A B"),
		},
		{
			name:  "failure of the first child",
			tree:  swm(S("A", "F,S"), S("B", "S")),
			ticks: ticks(Failure, "A", Running, "A", Success, "B"),
		},
		{
			name:  "halt halts the running child",
			tree:  swm(S("A", "S"), S("B", "R")),
			ticks: ticks(Running, "A", Running, "B"),
			halt:  true, after: []string{"B!"},
		},
	})
}

func TestSequenceWithMemoryHaltKeepsPosition(t *testing.T) {
	// As in BT.CPP 4.10 (differential tree sequence_with_memory_halted): a
	// halted SequenceWithMemory resumes at the child it had reached.
	root := N("SequenceWithMemory", nil, S("A", "S"), S("B", "R,R,S"), S("C", "S"))
	runSteps(t, root, nil,
		tk(Running, "A"),
		tk(Running, "B"),
		haltStep("B!"),
		tk(Running, "B"),
		tk(Success, "B C"),
		tk(Running, "A"),
	)
}

func TestSequenceWithMemoryYieldWakesTheTree(t *testing.T) {
	tree := runSteps(t, N("SequenceWithMemory", nil, S("A", "S"), S("B", "S")), nil, tk(Running, "A"))
	select {
	case <-tree.WakeC():
	default:
		t.Error("no wake-up after yielding")
	}
}
