package runtime

import "testing"

func TestIfThenElse(t *testing.T) {
	ite := func(children ...*NodeSpec) *NodeSpec { return N("IfThenElse", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "condition SUCCESS ticks the then-branch in the same tick",
			tree:  ite(S("If", "S"), S("Then", "S"), S("Else", "S")),
			steps: ticks(Success, "If Then", Success, "If Then"),
		},
		{
			name:  "condition FAILURE ticks the else-branch, whose status is returned",
			tree:  ite(S("If", "F"), S("Then", "S"), S("Else", "F,S")),
			steps: ticks(Failure, "If Else", Success, "If Else"),
		},
		{
			name:  "with two children a failing condition is FAILURE",
			tree:  ite(S("If", "F"), S("Then", "S")),
			steps: ticks(Failure, "If", Failure, "If"),
		},
		{
			name:  "a running condition is ticked again",
			tree:  ite(S("If", "R,S"), S("Then", "S")),
			steps: ticks(Running, "If", Success, "If Then"),
		},
		{
			name:  "not reactive: a running branch is resumed without ticking the condition",
			tree:  ite(S("If", "S,F"), S("Then", "R,R,S"), S("Else", "S")),
			steps: ticks(Running, "If Then", Running, "Then", Success, "Then", Success, "If Else"),
		},
		{
			name:  "a skipped branch makes IfThenElse SKIPPED",
			tree:  ite(S("If", "S"), S("Then", "K")),
			steps: ticks(Skipped, "If Then"),
		},
		{
			name:  "halt halts the running branch",
			tree:  ite(S("If", "S"), S("Then", "R"), S("Else", "S")),
			steps: ticks(Running, "If Then", halted("Then!")),
		},
		{
			name:  "halt halts a running condition",
			tree:  ite(S("If", "R"), S("Then", "S")),
			steps: ticks(Running, "If", halted("If!")),
		},
	})
}

func TestIfThenElseHaltForgetsTheBranch(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "after a halt the condition is ticked again",
		tree:  N("IfThenElse", nil, S("If", "S,F"), S("Then", "R"), S("Else", "S")),
		steps: ticks(Running, "If Then", halted("Then!"), Success, "If Else"),
	}})
}

func TestIfThenElseSkippedConditionIsAnError(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name: "a skipped condition",
		tree: N("IfThenElse", nil, S("If", "K"), S("Then", "S")),
		steps: []step{{events: "If",
			err: "MainTree/IfThenElse (IfThenElse): the condition (first child) returned SKIPPED; an IfThenElse condition must succeed or fail (BehaviorTree.CPP throws here too)"}},
	}})
}

func TestIfThenElseBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{
		{
			name: "one child",
			tree: N("IfThenElse", nil, S("If", "S")),
			want: "MainTree/IfThenElse: IfThenElse (a control) takes 2 to 3 children, has 1",
		},
		{
			name: "four children",
			tree: N("IfThenElse", nil, S("A", "S"), S("B", "S"), S("C", "S"), S("D", "S")),
			want: "MainTree/IfThenElse: IfThenElse (a control) takes 2 to 3 children, has 4",
		},
	})
}
