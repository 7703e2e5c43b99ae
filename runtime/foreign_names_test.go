package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestForeignNames: a name from BT.CPP v3, the literature or another engine
// is answered with what to write instead, whatever its spelling distance
// to the palette's names.
func TestForeignNames(t *testing.T) {
	child := func() *NodeSpec { return N("AlwaysSuccess", nil) }
	runBuildErrors(t, []buildErrorCase{
		{name: "Selector", tree: N("Selector", nil, child()),
			want: `MainTree/Selector: unknown node type "Selector" (write Fallback: Selector is the older literature's name for BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick))`},
		{name: "Priority", tree: N("Priority", nil, child()),
			want: `MainTree/Priority: unknown node type "Priority" (write Fallback: a priority selector is BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick))`},
		{name: "MemSequence", tree: N("MemSequence", nil, child()),
			want: `MainTree/MemSequence: unknown node type "MemSequence" (write SequenceWithMemory: MemSequence is BT.CPP's SequenceWithMemory)`},
		{name: "MemSelector", tree: N("MemSelector", nil, child()),
			want: `MainTree/MemSelector: unknown node type "MemSelector" (write Fallback: BT.CPP's Fallback is the one that remembers (it resumes at the RUNNING child and does not re-tick the children that failed); ReactiveFallback is the one that does not)`},
		{name: "Wait", tree: N("Wait", A("msec", "100")),
			want: `MainTree/Wait: unknown node type "Wait" (write Sleep (msec): BT.CPP's name for waiting; Delay (delay_msec) waits before ticking its child)`},
		{name: "Repeater", tree: N("Repeater", nil, child()),
			want: `MainTree/Repeater: unknown node type "Repeater" (write Repeat (num_cycles="-1" repeats for ever): Repeater is the literature's name for BT.CPP's Repeat)`},
		{name: "UntilFail", tree: N("UntilFail", nil, child()),
			want: `MainTree/UntilFail: unknown node type "UntilFail" (write UntilFailure: the literature's UntilFail (runs its child again until it fails, then succeeds))`},
		{name: "Succeeder as a decorator", tree: N("Succeeder", nil, child()),
			want: `MainTree/Succeeder: unknown node type "Succeeder" (write ForceSuccess: the literature's Succeeder is BT.CPP's ForceSuccess)`},
		{name: "Succeeder as a leaf", tree: N("Succeeder", nil),
			want: `MainTree/Succeeder: unknown node type "Succeeder" (write AlwaysSuccess: a Succeeder without a child is BT.CPP's AlwaysSuccess)`},
		{name: "Failer as a decorator", tree: N("Failer", nil, child()),
			want: `MainTree/Failer: unknown node type "Failer" (write ForceFailure: the literature's Failer is BT.CPP's ForceFailure)`},
		{name: "AlwaysSuccess as a decorator", tree: N("AlwaysSuccess", nil, S("A", "F")),
			want: `MainTree/AlwaysSuccess: AlwaysSuccess (an action) takes no children, has 1 (to make a child's result SUCCESS, wrap it in ForceSuccess; AlwaysSuccess is a leaf in BT.CPP)`},
		{name: "AlwaysFailure as a decorator", tree: N("AlwaysFailure", nil, S("A", "S")),
			want: `MainTree/AlwaysFailure: AlwaysFailure (an action) takes no children, has 1 (to make a child's result FAILURE, wrap it in ForceFailure; AlwaysFailure is a leaf in BT.CPP)`},
		{name: "a BT.CPP v3 name", tree: N("SequenceStar", nil, child()),
			want: `MainTree/SequenceStar: unknown node type "SequenceStar" (BT.CPP v4 renamed it SequenceWithMemory)`},
	})
}

// TestForeignNamesAreNotNodeTypes: a foreign name that became a node type
// would hide the type behind a hint that says to write something else.
func TestForeignNamesAreNotNodeTypes(t *testing.T) {
	reg := NewRegistry()
	for name := range foreignNames {
		_, ok := reg.Lookup(name)
		require.False(t, ok, "%s is registered and in foreignNames", name)
	}
	for name := range foreignDecoratorsAndLeaves {
		_, ok := reg.Lookup(name)
		require.False(t, ok, "%s is registered and in foreignDecoratorsAndLeaves", name)
	}
}
