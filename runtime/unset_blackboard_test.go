package runtime

import "testing"

func TestUnsetBlackboard(t *testing.T) {
	unset := func(key string) *NodeSpec { return N("UnsetBlackboard", A("key", key)) }
	gone := func(key string) func(*testing.T, *Tree) {
		return func(t *testing.T, tree *Tree) {
			if e := tree.Blackboard().Entry(key); e != nil {
				t.Errorf("entry %q still exists", key)
			}
		}
	}
	runPlayCases(t, []playCase{
		{
			name: "removes the entry and succeeds", tree: unset("goal"),
			bb: map[string]any{"goal": 1}, steps: []playStep{tickP(Success, "")}, check: gone("goal"),
		},
		{
			name: "a missing entry is not an error", tree: unset("nothing"),
			steps: []playStep{tickP(Success, ""), tickP(Success, "")},
		},
		{
			name: "key {k} removes the entry whose name k holds", tree: unset("{k}"),
			bb:    map[string]any{"k": "goal", "goal": 1},
			steps: []playStep{tickP(Success, "")}, check: gone("goal"),
		},
		{
			name: "a removed entry is not updated, even when it was written just before",
			tree: N("Sequence", nil, unset("goal"), N("WasEntryUpdated", A("entry", "goal"))),
			bb:   map[string]any{"goal": 1},
			steps: []playStep{
				tickP(Failure, ""),
				tickP(Failure, "").writing("goal", 2),
			},
		},
	})
}
