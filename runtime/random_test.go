package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With BuildConf.Seed 42 the first three shuffles of four children are
// D B C A, then B A D C, then D A B C: the tables below pin them, so that a
// change in how the order is drawn shows up as a failing test.

func TestRandomSequence(t *testing.T) {
	rs := func(children ...*NodeSpec) *NodeSpec { return N("RandomSequence", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "every child in a new order on each activation (seed 42)",
			tree:  rs(S("A", "S"), S("B", "S"), S("C", "S"), S("D", "S")),
			steps: ticks(Success, "D B C A", Success, "B A D C", Success, "D A B C"),
		},
		{
			name:  "a failure ends the activation with FAILURE",
			tree:  rs(S("A", "S"), S("B", "F"), S("C", "S"), S("D", "S")),
			steps: ticks(Failure, "D B", Failure, "B", Failure, "D A B"),
		},
		{
			name:  "a running child is resumed and the activation goes on in the same order",
			tree:  rs(S("A", "S"), S("B", "S"), S("C", "R,S"), S("D", "S")),
			steps: ticks(Running, "D B C", Success, "C A", Success, "B A D C"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  rs(S("A", "K"), S("B", "K"), S("C", "K"), S("D", "K")),
			steps: ticks(Skipped, "D B C A"),
		},
		{
			name:  "some skipped is SUCCESS",
			tree:  rs(S("A", "K"), S("B", "S"), S("C", "K"), S("D", "S")),
			steps: ticks(Success, "D B C A"),
		},
		{
			name:  "halt halts the running child",
			tree:  rs(S("A", "S"), S("B", "S"), S("C", "R"), S("D", "S")),
			steps: ticks(Running, "D B C", halted("C!")),
		},
	})
}

func TestRandomSelector(t *testing.T) {
	rs := func(children ...*NodeSpec) *NodeSpec { return N("RandomSelector", nil, children...) }
	runNodeCases(t, []nodeCase{
		{
			name:  "all fail, in a new order on each activation (seed 42)",
			tree:  rs(S("A", "F"), S("B", "F"), S("C", "F"), S("D", "F")),
			steps: ticks(Failure, "D B C A", Failure, "B A D C", Failure, "D A B C"),
		},
		{
			name:  "the first child to succeed ends the activation with SUCCESS",
			tree:  rs(S("A", "F"), S("B", "F"), S("C", "S"), S("D", "F")),
			steps: ticks(Success, "D B C", Success, "B A D C", Success, "D A B C"),
		},
		{
			name:  "a running child is resumed and the activation goes on in the same order",
			tree:  rs(S("A", "F"), S("B", "F"), S("C", "R,F"), S("D", "F")),
			steps: ticks(Running, "D B C", Failure, "C A", Failure, "B A D C"),
		},
		{
			name:  "all skipped is SKIPPED",
			tree:  rs(S("A", "K"), S("B", "K"), S("C", "K"), S("D", "K")),
			steps: ticks(Skipped, "D B C A"),
		},
		{
			name:  "some skipped, the rest failing, is FAILURE",
			tree:  rs(S("A", "K"), S("B", "F"), S("C", "K"), S("D", "F")),
			steps: ticks(Failure, "D B C A"),
		},
		{
			name:  "halt halts the running child",
			tree:  rs(S("A", "F"), S("B", "R"), S("C", "F"), S("D", "F")),
			steps: ticks(Running, "D B", halted("B!")),
		},
	})
}

func TestRandomHaltEndsTheActivation(t *testing.T) {
	runNodeCases(t, []nodeCase{{
		name:  "after a halt the next tick draws a new order (the second shuffle)",
		tree:  N("RandomSequence", nil, S("A", "S"), S("B", "S"), S("C", "R"), S("D", "S")),
		steps: ticks(Running, "D B C", halted("C!"), Running, "B A D C", Running, "C"),
	}})
}

// activations ticks a tree built with seed and returns the Step events of
// each tick.
func activations(t *testing.T, root *NodeSpec, seed uint64, n int) []string {
	t.Helper()
	log := &eventLog{}
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
	tree, err := Build(testRegistry(log), doc, BuildConf{Clock: NewManualClock(testEpoch), Seed: seed})
	require.NoError(t, err)
	out := make([]string, n)
	for i := range out {
		_, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		out[i] = strings.Join(log.take(), " ")
	}
	return out
}

func TestRandomOrderIsReproducible(t *testing.T) {
	for _, typ := range []string{"RandomSequence", "RandomSelector", "WeightedSelector"} {
		t.Run(typ, func(t *testing.T) {
			st := "S"
			if typ != "RandomSequence" {
				st = "F"
			}
			var attrs []string
			if typ == "WeightedSelector" {
				attrs = []string{"weights", "1;2;3;4"}
			}
			root := func() *NodeSpec {
				return C(typ, attrs, S("A", st), S("B", st), S("C", st), S("D", st))
			}
			first := activations(t, root(), 42, 20)
			second := activations(t, root(), 42, 20)
			assert.Equal(t, second, first, "seed 42 gave\n%v\nthen\n%v", first, second)
			other := activations(t, root(), 7, 20)
			assert.NotEqual(t, first, other, "seeds 42 and 7 gave the same 20 orders %v", first)
		})
	}
}

func TestRandomShuffleIsUniform(t *testing.T) {
	// 2,400 activations of 4 children: each of the 24 orders is expected 100
	// times; a biased shuffle (the classic off-by-one) would leave some out
	// or skew them far beyond this band.
	runs := activations(t, N("RandomSequence", nil, S("A", "S"), S("B", "S"), S("C", "S"), S("D", "S")), 42, 2400)
	count := map[string]int{}
	for _, r := range runs {
		count[r]++
	}
	require.Len(t, count, 24, "%d distinct orders, want 24: %v", len(count), count)
	for order, n := range count {
		assert.GreaterOrEqual(t, n, 60, "order %s came %d times in 2400, want about 100", order, n)
		assert.LessOrEqual(t, n, 140, "order %s came %d times in 2400, want about 100", order, n)
	}
}
