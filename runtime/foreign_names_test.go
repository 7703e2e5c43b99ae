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
	cases := []struct {
		name string
		node *NodeSpec
		want string
	}{
		{"Selector", N("Selector", nil, child()),
			`Main/Selector: unknown node type "Selector" (write Fallback: Selector is the older literature's name for BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick))`},
		{"Priority", N("Priority", nil, child()),
			`Main/Priority: unknown node type "Priority" (write Fallback: a priority selector is BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick))`},
		{"MemSequence", N("MemSequence", nil, child()),
			`Main/MemSequence: unknown node type "MemSequence" (write SequenceWithMemory: MemSequence is BT.CPP's SequenceWithMemory)`},
		{"MemSelector", N("MemSelector", nil, child()),
			`Main/MemSelector: unknown node type "MemSelector" (write Fallback: BT.CPP's Fallback is the one that remembers (it resumes at the RUNNING child and does not re-tick the children that failed); ReactiveFallback is the one that does not)`},
		{"Wait", N("Wait", A("msec", "100")),
			`Main/Wait: unknown node type "Wait" (write Sleep (msec): BT.CPP's name for waiting; Delay (delay_msec) waits before ticking its child)`},
		{"Repeater", N("Repeater", nil, child()),
			`Main/Repeater: unknown node type "Repeater" (write Repeat (num_cycles="-1" repeats for ever): Repeater is the literature's name for BT.CPP's Repeat)`},
		{"UntilFail", N("UntilFail", nil, child()),
			`Main/UntilFail: unknown node type "UntilFail" (write UntilFailure: the literature's UntilFail (runs its child again until it fails, then succeeds))`},
		{"Succeeder as a decorator", N("Succeeder", nil, child()),
			`Main/Succeeder: unknown node type "Succeeder" (write ForceSuccess: the literature's Succeeder is BT.CPP's ForceSuccess)`},
		{"Succeeder as a leaf", N("Succeeder", nil),
			`Main/Succeeder: unknown node type "Succeeder" (write AlwaysSuccess: a Succeeder without a child is BT.CPP's AlwaysSuccess)`},
		{"Failer as a decorator", N("Failer", nil, child()),
			`Main/Failer: unknown node type "Failer" (write ForceFailure: the literature's Failer is BT.CPP's ForceFailure)`},
		{"AlwaysSuccess as a decorator", N("AlwaysSuccess", nil, S("A", "F")),
			`Main/AlwaysSuccess: AlwaysSuccess (an action) takes no children, has 1 (to make a child's result SUCCESS, wrap it in ForceSuccess; AlwaysSuccess is a leaf in BT.CPP)`},
		{"AlwaysFailure as a decorator", N("AlwaysFailure", nil, S("A", "S")),
			`Main/AlwaysFailure: AlwaysFailure (an action) takes no children, has 1 (to make a child's result FAILURE, wrap it in ForceFailure; AlwaysFailure is a leaf in BT.CPP)`},
		{"a BT.CPP v3 name", N("SequenceStar", nil, child()),
			`Main/SequenceStar: unknown node type "SequenceStar" (BT.CPP v4 renamed it SequenceWithMemory)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, check := range []bool{false, true} {
				d := doc(tree("Main", tc.node))
				var err error
				if check {
					err = Check(testRegistry(&eventLog{}), d, BuildConf{})
				} else {
					_, err = Build(testRegistry(&eventLog{}), d, BuildConf{})
				}
				require.Error(t, err)
				require.Equal(t, tc.want, err.Error(), "check mode %v", check)
			}
		})
	}
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
