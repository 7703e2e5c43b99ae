package runtime

import "testing"

func TestWasEntryUpdated(t *testing.T) {
	was := func(entry string) *NodeSpec { return N("WasEntryUpdated", A("entry", entry)) }
	runNodeCases(t, []nodeCase{
		{
			name: "SUCCESS once per write, as {key}",
			tree: was("{goal}"), bb: map[string]any{"goal": 1},
			steps: []step{
				tick(Success, ""), tick(Failure, ""),
				tick(Success, "").writing("goal", 2), tick(Failure, ""),
			},
		},
		{
			name: "the bare key works too",
			tree: was("goal"), bb: map[string]any{"goal": "a"},
			steps: []step{
				tick(Success, ""), tick(Failure, ""), tick(Success, "").writing("goal", "b"),
			},
		},
		{
			name: "two writes between ticks are one update",
			tree: was("goal"), bb: map[string]any{"goal": 1},
			steps: []step{
				tick(Success, ""),
				tick(Success, "").writing("goal", 2).writing("goal", 3),
			},
		},
		{
			name:  "a missing entry was not updated",
			tree:  was("nothing"),
			steps: []step{tick(Failure, ""), tick(Success, "").writing("nothing", 1)},
		},
		{
			name:  "an entry declared but never written was not updated",
			tree:  was("{declared}"),
			steps: []step{tick(Failure, ""), tick(Failure, "")},
		},
		{
			name: "each node remembers what it saw",
			tree: N("Sequence", nil, N("ForceSuccess", nil, was("goal")), was("goal")),
			bb:   map[string]any{"goal": 1},
			steps: []step{
				tick(Success, ""), tick(Failure, ""),
			},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "an empty entry", tree: was(""), want: `MainTree/WasEntryUpdated: port "entry" is empty; name a blackboard entry, as {key} or key`},
		{name: "no entry", tree: N("WasEntryUpdated", nil), want: `MainTree/WasEntryUpdated: missing required input port "entry" (any): Entry to check: {key} or key`},
	})
}

func TestSkipUnlessUpdated(t *testing.T) {
	skip := func(child *NodeSpec) *NodeSpec { return N("SkipUnlessUpdated", A("entry", "{goal}"), child) }
	runNodeCases(t, []nodeCase{
		{
			name: "ticks the child after a write, else SKIPPED",
			tree: skip(S("A", "S,F")), bb: map[string]any{"goal": 1},
			steps: []step{
				tick(Success, "A"), tick(Skipped, ""), tick(Skipped, ""),
				tick(Failure, "A").writing("goal", 2), tick(Skipped, ""),
			},
		},
		{
			name: "a RUNNING child is resumed without looking at the entry",
			tree: skip(S("A", "R,R,S")), bb: map[string]any{"goal": 1},
			steps: []step{
				tick(Running, "A"), tick(Running, "A"), tick(Success, "A"), tick(Skipped, ""),
			},
		},
		{
			name: "a write while the child runs counts after it completes",
			tree: skip(S("A", "R,S")), bb: map[string]any{"goal": 1},
			steps: []step{
				tick(Running, "A"), tick(Success, "A").writing("goal", 2), tick(Success, "A"),
			},
		},
		{
			name: "halt halts the running child; the next tick looks at the entry again",
			tree: skip(S("A", "R")), bb: map[string]any{"goal": 1},
			steps: []step{
				tick(Running, "A"), halted("A!"), tick(Skipped, ""),
			},
		},
		{
			name:  "never written: SKIPPED",
			tree:  skip(S("A", "S")),
			steps: []step{tick(Skipped, "")},
		},
	})
}

func TestWaitValueUpdate(t *testing.T) {
	wait := func(child *NodeSpec) *NodeSpec { return N("WaitValueUpdate", A("entry", "goal"), child) }
	runNodeCases(t, []nodeCase{
		{
			name: "RUNNING until the entry is written, then the child's status",
			tree: wait(S("A", "S")),
			steps: []step{
				tick(Running, ""), tick(Running, ""),
				tick(Success, "A").writing("goal", 1),
				tick(Running, ""),
			},
		},
		{
			name: "a RUNNING child is resumed without looking at the entry",
			tree: wait(S("A", "R,F")), bb: map[string]any{"goal": 1},
			steps: []step{tick(Running, "A"), tick(Failure, "A"), tick(Running, "")},
		},
		{
			name:  "halt while waiting has no child to halt",
			tree:  wait(S("A", "S")),
			steps: []step{tick(Running, ""), halted(""), tick(Success, "A").writing("goal", 1)},
		},
	})
}
