package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWeightedSelector(t *testing.T) {
	ws := func(weights string, children ...*NodeSpec) *NodeSpec {
		return C("WeightedSelector", []string{"weights", weights}, children...)
	}
	runNodeCases(t, []nodeCase{
		{
			name:  "all fail: every child is tried once per activation, in weighted random order (seed 42)",
			tree:  ws("3;1;1", S("A", "F"), S("B", "F"), S("C", "F")),
			steps: ticks(Failure, "A B C", Failure, "A B C", Failure, "A C B", Failure, "C A B"),
		},
		{
			name:  "the first child drawn that succeeds wins (seed 42)",
			tree:  ws("3;1;1", S("A", "S"), S("B", "S"), S("C", "S")),
			steps: ticks(Success, "A", Success, "C", Success, "B", Success, "A"),
		},
		{
			name:  "a running child is resumed on the next tick without a new draw",
			tree:  ws("1;1;1", S("A", "R,S"), S("B", "R,S"), S("C", "R,S")),
			steps: ticks(Running, "B", Success, "B", Running, "C", Success, "C"),
		},
		{
			name:  "failed and skipped children are not drawn again in the activation",
			tree:  ws("1;2;4", S("A", "F"), S("B", "K"), S("C", "S")),
			steps: ticks(Success, "C", Success, "C", Success, "C", Success, "B C"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  ws("1;2", S("A", "K"), S("B", "K")),
			steps: ticks(Skipped, "B A", Skipped, "B A"),
		},
		{
			name:  "some skipped, the rest failing, is FAILURE",
			tree:  ws("1;1", S("A", "K"), S("B", "F")),
			steps: ticks(Failure, "A B"),
		},
		{
			name:  "halt halts the running child",
			tree:  ws("1;1;1", S("A", "R"), S("B", "R"), S("C", "R")),
			steps: ticks(Running, "B", halted("B!")),
		},
		{
			name:  "weights from the blackboard, written as text",
			tree:  ws("{w}", S("A", "F"), S("B", "S")),
			bb:    map[string]any{"w": "1;1"},
			steps: ticks(Success, "A B", Success, "B"),
		},
	})
}

func TestWeightedSelectorHaltEndsTheActivation(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		// Seed 42 draws A (which fails) then C (which runs).
		name:  "after the halt every child is untried again, and the next tick draws afresh",
		tree:  C("WeightedSelector", []string{"weights", "8;4;1"}, S("A", "F"), S("B", "R"), S("C", "R")),
		steps: ticks(Running, "A C", halted("C!")),
		check: func(t *testing.T, tree *Tree) {
			ws := tree.Root().(*WeightedSelector)
			assert.False(t, ws.active, "active")
			assert.Equal(t, -1, ws.running, "running")
			assert.NotContains(t, ws.tried, true, "tried")
		},
	}})
}

func TestWeightedSelectorFollowsTheWeights(t *testing.T) {
	// 5,000 activations with weights 3;1;1: the first child drawn is A about
	// 3,000 times, B and C about 1,000 each.
	runs := activations(t, C("WeightedSelector", []string{"weights", "3;1;1"}, S("A", "S"), S("B", "S"), S("C", "S")), 42, 5000)
	count := map[string]int{}
	for _, r := range runs {
		count[r]++
	}
	for child, want := range map[string]int{"A": 3000, "B": 1000, "C": 1000} {
		n := count[child]
		assert.GreaterOrEqual(t, n, want-150, "%s drawn first %d times in 5000, want about %d (%v)", child, n, want, count)
		assert.LessOrEqual(t, n, want+150, "%s drawn first %d times in 5000, want about %d (%v)", child, n, want, count)
	}
	// After A fails, B and C are equally likely (the weights renormalize).
	runs = activations(t, C("WeightedSelector", []string{"weights", "3;1;1"}, S("A", "F"), S("B", "S"), S("C", "S")), 42, 4000)
	count = map[string]int{}
	for _, r := range runs {
		count[strings.TrimPrefix(r, "A ")]++
	}
	b, c := count["B"], count["C"]
	assert.GreaterOrEqual(t, b, 1850, "after A: B %d, C %d of 4000; want about 2000 each", b, c)
	assert.GreaterOrEqual(t, c, 1850, "after A: B %d, C %d of 4000; want about 2000 each", b, c)
	assert.Equal(t, 4000, b+c, "after A: B %d, C %d of 4000; want about 2000 each", b, c)
}

func TestWeightedSelectorBlackboardWeightsChecked(t *testing.T) {
	root := C("WeightedSelector", []string{"weights", "{w}"}, S("A", "F"), S("B", "S"))
	runNodeCases(t, []nodeCase{
		{
			name: "too few weights", tree: root, bb: map[string]any{"w": []int{1}},
			steps: []step{{events: "", err: `MainTree/WeightedSelector (WeightedSelector): weights has 1 value for 2 children: give one weight per child, like "3;1;1"`}},
		},
		{
			name: "a zero weight", tree: root, bb: map[string]any{"w": []int{2, 0}},
			steps: []step{{events: "", err: `MainTree/WeightedSelector (WeightedSelector): weights: the weight of child 2 is 0; every weight must be at least 1`}},
		},
		{
			name: "weights unset", tree: root,
			steps: []step{{events: "", err: `MainTree/WeightedSelector (WeightedSelector): input port "weights": blackboard entry "w" is not set`}},
		},
	})
}

func TestWeightedSelectorBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{
		{
			name: "fewer weights than children",
			tree: C("WeightedSelector", []string{"weights", "3;1"}, S("A", "S"), S("B", "S"), S("C", "S")),
			want: `MainTree/WeightedSelector: weights has 2 values for 3 children: give one weight per child, like "3;1;1"`,
		},
		{
			name: "more weights than children",
			tree: C("WeightedSelector", []string{"weights", "3;1;1"}, S("A", "S")),
			want: `MainTree/WeightedSelector: weights has 3 values for 1 child: give one weight per child, like "3;1;1"`,
		},
		{
			name: "a zero weight",
			tree: C("WeightedSelector", []string{"weights", "3;0"}, S("A", "S"), S("B", "S")),
			want: `MainTree/WeightedSelector: weights: the weight of child 2 is 0; every weight must be at least 1`,
		},
		{
			name: "a negative weight",
			tree: C("WeightedSelector", []string{"weights", "-1;1"}, S("A", "S"), S("B", "S")),
			want: `MainTree/WeightedSelector: weights: the weight of child 1 is -1; every weight must be at least 1`,
		},
		{
			name: "weights too large to add up",
			tree: C("WeightedSelector", []string{"weights", "9223372036854775807;1"}, S("A", "S"), S("B", "S")),
			want: `MainTree/WeightedSelector: weights: the weights add up to more than 9223372036854775807`,
		},
		{
			name: "not integers",
			tree: C("WeightedSelector", []string{"weights", "3;0.5"}, S("A", "S"), S("B", "S")),
			want: `MainTree/WeightedSelector: port "weights" ([]int): element 2: "0.5" is not an integer that fits int`,
		},
		{
			name: "no weights",
			tree: C("WeightedSelector", nil, S("A", "S")),
			want: `MainTree/WeightedSelector: missing required input port "weights" ([]int): one weight per child, each at least 1, separated by ';' (like "3;1;1")`,
		},
	})
}
