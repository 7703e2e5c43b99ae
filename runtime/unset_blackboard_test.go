package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnsetBlackboard(t *testing.T) {
	unset := func(key string) *NodeSpec { return N("UnsetBlackboard", A("key", key)) }
	subtreeDoc := func(attrs []Attr, inner ...*NodeSpec) *Document {
		return &Document{Main: "MainTree", Trees: []*TreeSpec{
			{ID: "MainTree", Root: N("SubTree", append(A("ID", "Cleaner"), attrs...))},
			{ID: "Cleaner", Root: N("Sequence", nil, inner...)},
		}}
	}
	t.Run("inside a subtree only the subtree's own entries go", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			doc   *Document
			key   string
			stays bool
		}{
			{"a remapped key stays", subtreeDoc(A("alias", "{kept}"), unset("alias")), "kept", true},
			{"an @ key stays", subtreeDoc(nil, unset("@kept")), "kept", true},
			{"an autoremapped key stays", subtreeDoc(A("_autoremap", "true"), unset("kept")), "kept", true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tree, err := Build(testRegistry(&eventLog{}), tc.doc, BuildConf{Clock: NewManualClock(testEpoch)})
				require.NoError(t, err)
				err = tree.Blackboard().Set("kept", "parent")
				require.NoError(t, err)
				st, err := tree.TickExactlyOnce()
				require.NoError(t, err, "tick = %v, %v", st, err)
				require.Equal(t, Success, st, "tick = %v, %v", st, err)
				_, ok := tree.Blackboard().Get(tc.key)
				assert.Equal(t, tc.stays, ok, "%q present = %v, want %v", tc.key, ok, tc.stays)
			})
		}
	})
	t.Run("inside a subtree its own entry goes", func(t *testing.T) {
		doc := subtreeDoc(nil, N("Script", A("code", "mine := 1")), unset("mine"), N("ScriptCondition", A("code", "mine == 1")))
		tree, err := Build(testRegistry(&eventLog{}), doc, BuildConf{Clock: NewManualClock(testEpoch)})
		require.NoError(t, err)
		_, err = tree.TickExactlyOnce()
		assert.ErrorContains(t, err, "unknown variable 'mine'", "tick error %v, want the removed entry to be unknown", err)
	})

	gone := func(key string) func(*testing.T, *Tree) {
		return func(t *testing.T, tree *Tree) {
			e := tree.Blackboard().Entry(key)
			assert.Nil(t, e, "entry %q still exists", key)
		}
	}
	runNodeCases(t, []nodeCase{
		{
			name: "removes the entry and succeeds", tree: unset("goal"),
			bb: map[string]any{"goal": 1}, steps: []step{tick(Success, "")}, check: gone("goal"),
		},
		{
			name: "a missing entry is not an error", tree: unset("nothing"),
			steps: []step{tick(Success, ""), tick(Success, "")},
		},
		{
			name: "key {k} removes the entry whose name k holds", tree: unset("{k}"),
			bb:    map[string]any{"k": "goal", "goal": 1},
			steps: []step{tick(Success, "")}, check: gone("goal"),
		},
		{
			name: "a removed entry is not updated, even when it was written just before",
			tree: N("Sequence", nil, unset("goal"), N("WasEntryUpdated", A("entry", "goal"))),
			bb:   map[string]any{"goal": 1},
			steps: []step{
				tick(Failure, ""),
				tick(Failure, "").writing("goal", 2),
			},
		},
	})
}
