package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDecoratorsResetCompletedChild: every decorator leaves a child that
// completed IDLE, as BehaviorTree.CPP's DecoratorNode does after each tick.
func TestDecoratorsResetCompletedChild(t *testing.T) {
	var cases []nodeCase
	for _, c := range []struct {
		spec *NodeSpec
		want Status
	}{
		{N("Inverter", nil, S("A", "S")), Failure},
		{N("ForceSuccess", nil, S("A", "F")), Success},
		{N("ForceFailure", nil, S("A", "S")), Failure},
		{N("Repeat", A("num_cycles", "1"), S("A", "S")), Success},
		{N("RetryUntilSuccessful", A("num_attempts", "1"), S("A", "F")), Failure},
		{N("KeepRunningUntilFailure", nil, S("A", "S")), Running},
		{N("Timeout", A("msec", "100"), S("A", "S")), Success},
		{N("RunOnce", nil, S("A", "S")), Success},
		{N("Precondition", A("if", "true"), S("A", "S")), Success},
		{N("SkipUnlessUpdated", A("entry", "k"), S("A", "S")), Success},
		{N("WaitValueUpdate", A("entry", "k"), S("A", "S")), Success},
		{N("UntilSuccess", nil, S("A", "F")), Running},
		{N("UntilFailure", nil, S("A", "S")), Running},
		{N("Cooldown", A("period", "1s"), S("A", "S")), Success},
		{N("Limit", A("max_runs", "1"), S("A", "S")), Success},
		{N("RateController", nil, S("A", "S")), Success},
	} {
		cases = append(cases, nodeCase{
			name: c.spec.Type, tree: c.spec,
			bb:    map[string]any{"k": 1},
			steps: ticks(c.want, "A"),
			check: func(t *testing.T, tree *Tree) {
				child := NodeOf(tree.Root()).Children()[0]
				assert.Equal(t, Idle, NodeOf(child).Status(), "the child after completing")
			},
		})
	}
	runNodeCases(t, cases)
}

// TestDecoratorsHaltRunningChild: halting any decorator halts its RUNNING
// child and leaves the whole tree IDLE.
func TestDecoratorsHaltRunningChild(t *testing.T) {
	var cases []nodeCase
	for _, spec := range []*NodeSpec{
		N("Inverter", nil, S("A", "R")),
		N("ForceSuccess", nil, S("A", "R")),
		N("ForceFailure", nil, S("A", "R")),
		N("Repeat", A("num_cycles", "2"), S("A", "R")),
		N("RetryUntilSuccessful", A("num_attempts", "2"), S("A", "R")),
		N("KeepRunningUntilFailure", nil, S("A", "R")),
		N("Timeout", A("msec", "100"), S("A", "R")),
		N("RunOnce", nil, S("A", "R")),
		N("Precondition", A("if", "true"), S("A", "R")),
		N("UntilSuccess", nil, S("A", "R")),
		N("UntilFailure", nil, S("A", "R")),
		N("Cooldown", A("period", "1s"), S("A", "R")),
		N("Limit", A("max_runs", "1"), S("A", "R")),
		N("RateController", nil, S("A", "R")),
	} {
		cases = append(cases, nodeCase{
			name: spec.Type, tree: spec,
			steps: ticks(Running, "A", halted("A!")),
		})
	}
	runNodeCases(t, cases)
}
