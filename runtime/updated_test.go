package runtime

import "testing"

func TestWasEntryUpdated(t *testing.T) {
	was := func(entry string) *NodeSpec { return N("WasEntryUpdated", A("entry", entry)) }
	runPlayCases(t, []playCase{
		{
			name: "SUCCESS once per write, as {key}",
			tree: was("{goal}"), bb: map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Success, ""), tickP(Failure, ""),
				tickP(Success, "").writing("goal", 2), tickP(Failure, ""),
			},
		},
		{
			name: "the bare key works too",
			tree: was("goal"), bb: map[string]any{"goal": "a"},
			steps: []playStep{
				tickP(Success, ""), tickP(Failure, ""), tickP(Success, "").writing("goal", "b"),
			},
		},
		{
			name: "two writes between ticks are one update",
			tree: was("goal"), bb: map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Success, ""),
				tickP(Success, "").writing("goal", 2).writing("goal", 3),
			},
		},
		{
			name:  "a missing entry was not updated",
			tree:  was("nothing"),
			steps: []playStep{tickP(Failure, ""), tickP(Success, "").writing("nothing", 1)},
		},
		{
			name:  "an entry declared but never written was not updated",
			tree:  was("{declared}"),
			steps: []playStep{tickP(Failure, ""), tickP(Failure, "")},
		},
		{
			name: "each node remembers what it saw",
			tree: N("Sequence", nil, N("ForceSuccess", nil, was("goal")), was("goal")),
			bb:   map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Success, ""), tickP(Failure, ""),
			},
		},
	})
	runDecoBuildErrors(t, []decoBuildError{
		{"an empty entry", was(""), `MainTree/WasEntryUpdated: port "entry" is empty; name a blackboard entry, as {key} or key`},
		{"no entry", N("WasEntryUpdated", nil), `MainTree/WasEntryUpdated: missing required input port "entry" (any)`},
	})
}

func TestSkipUnlessUpdated(t *testing.T) {
	skip := func(child *NodeSpec) *NodeSpec { return N("SkipUnlessUpdated", A("entry", "{goal}"), child) }
	runPlayCases(t, []playCase{
		{
			name: "ticks the child after a write, else SKIPPED",
			tree: skip(S("A", "S,F")), bb: map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Success, "A"), tickP(Skipped, ""), tickP(Skipped, ""),
				tickP(Failure, "A").writing("goal", 2), tickP(Skipped, ""),
			},
		},
		{
			name: "a RUNNING child is resumed without looking at the entry",
			tree: skip(S("A", "R,R,S")), bb: map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Running, "A"), tickP(Running, "A"), tickP(Success, "A"), tickP(Skipped, ""),
			},
		},
		{
			name: "a write while the child runs counts after it completes",
			tree: skip(S("A", "R,S")), bb: map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Running, "A"), tickP(Success, "A").writing("goal", 2), tickP(Success, "A"),
			},
		},
		{
			name: "halt halts the running child; the next tick looks at the entry again",
			tree: skip(S("A", "R")), bb: map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Running, "A"), haltP("A!"), tickP(Skipped, ""),
			},
		},
		{
			name:  "never written: SKIPPED",
			tree:  skip(S("A", "S")),
			steps: []playStep{tickP(Skipped, "")},
		},
	})
}

func TestWaitValueUpdate(t *testing.T) {
	wait := func(child *NodeSpec) *NodeSpec { return N("WaitValueUpdate", A("entry", "goal"), child) }
	runPlayCases(t, []playCase{
		{
			name: "RUNNING until the entry is written, then the child's status",
			tree: wait(S("A", "S")),
			steps: []playStep{
				tickP(Running, ""), tickP(Running, ""),
				tickP(Success, "A").writing("goal", 1),
				tickP(Running, ""),
			},
		},
		{
			name: "a RUNNING child is resumed without looking at the entry",
			tree: wait(S("A", "R,F")), bb: map[string]any{"goal": 1},
			steps: []playStep{tickP(Running, "A"), tickP(Failure, "A"), tickP(Running, "")},
		},
		{
			name:  "halt while waiting has no child to halt",
			tree:  wait(S("A", "S")),
			steps: []playStep{tickP(Running, ""), haltP(""), tickP(Success, "A").writing("goal", 1)},
		},
	})
}
