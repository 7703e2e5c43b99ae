package runtime

import "testing"

func TestUntil(t *testing.T) {
	us := func(attrs []Attr, child *NodeSpec) *NodeSpec { return N("UntilSuccess", attrs, child) }
	uf := func(attrs []Attr, child *NodeSpec) *NodeSpec { return N("UntilFailure", attrs, child) }
	runNodeCases(t, []nodeCase{
		{name: "UntilSuccess: one attempt per tick, RUNNING in between, SUCCESS at last",
			tree:  us(nil, S("A", "F,F,S")),
			steps: ticks(Running, "A", Running, "A", Success, "A")},
		{name: "UntilSuccess: a RUNNING child is resumed", tree: us(nil, S("A", "R,F,R,S")),
			steps: ticks(Running, "A", Running, "A", Running, "A", Success, "A")},
		{name: "UntilSuccess: max_attempts gives up with FAILURE and starts afresh",
			tree:  us(A("max_attempts", "3"), S("A", "F")),
			steps: ticks(Running, "A", Running, "A", Failure, "A", Running, "A")},
		{name: "UntilSuccess: without a cap it never gives up", tree: us(nil, S("A", "F")),
			steps: ticks(Running, "A", Running, "A", Running, "A", Running, "A")},
		{name: "UntilSuccess: a success restarts the count", tree: us(A("max_attempts", "2"), S("A", "F,S,F,F")),
			steps: ticks(Running, "A", Success, "A", Running, "A", Failure, "A")},
		{name: "UntilSuccess: a skipped child skips the node and is no attempt",
			tree:  us(A("max_attempts", "2"), S("A", "F,K,F")),
			steps: ticks(Running, "A", Skipped, "A", Failure, "A")},
		{name: "UntilFailure: RUNNING while the child succeeds, SUCCESS when it fails",
			tree:  uf(nil, S("A", "S,S,F")),
			steps: ticks(Running, "A", Running, "A", Success, "A")},
		{name: "UntilFailure: max_attempts gives up with FAILURE when the child kept succeeding",
			tree:  uf(A("max_attempts", "2"), S("A", "S")),
			steps: ticks(Running, "A", Failure, "A")},
		{name: "max_attempts from the blackboard", tree: us(A("max_attempts", "{cap}"), S("A", "F")),
			bb: map[string]any{"cap": 1}, steps: ticks(Failure, "A")},
		{
			name:  "never a loop inside a tick, and no early wake-up between attempts",
			tree:  us(nil, S("A", "F")),
			steps: []step{tick(Running, "A").woken(false), tick(Running, "A").woken(false)},
		},
		{
			name: "halt restarts the count",
			tree: us(A("max_attempts", "2"), S("A", "F,R,F")),
			steps: []step{
				tick(Running, "A"), tick(Running, "A"), halted("A!"),
				tick(Running, "A"), tick(Failure, "A"),
			},
		},
		{
			name:  "a bad max_attempts entry is a tick error",
			tree:  us(A("max_attempts", "{cap}"), S("A", "F")),
			bb:    map[string]any{"cap": 0},
			steps: []step{fails(`MainTree/UntilSuccess (UntilSuccess): max_attempts is 0; want -1 (no limit) or a count >= 1`)},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "max_attempts 0", tree: us(A("max_attempts", "0"), S("A", "S")), want: `MainTree/UntilSuccess: max_attempts is 0; want -1 (no limit) or a count >= 1`},
		{name: "max_attempts below -1", tree: uf(A("max_attempts", "-2"), S("A", "S")), want: `MainTree/UntilFailure: max_attempts is -2; want -1 (no limit) or a count >= 1`},
	})
}
