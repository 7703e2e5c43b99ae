package runtime

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What reasons cost. With explaining off (the default) a tick costs what
// it cost before reasons existed and allocates nothing, even in a tree
// whose nodes fail and would state reasons; with it on, the nodes that
// complete format theirs. Run with
//
//	go test -run '^$' -bench 'Tick' -benchmem ./runtime/
//
// BENCHMARKS.md holds the figures, side by side with the engine before
// reasons.

// reasonSpec is a Sequence of n Fallbacks whose every child completes and
// states a reason on every tick: a ScriptCondition that is false (its
// expression and the values it read), an Inverter over AlwaysSuccess (a
// constant reason), then AlwaysSuccess. 4n+1 nodes.
func reasonSpec(n int) *NodeSpec {
	root := N("Sequence", nil)
	for i := 0; i < n; i++ {
		root.Children = append(root.Children, N("Fallback", nil,
			N("ScriptCondition", A("code", "battery_pct > limit")),
			N("Inverter", nil, N("AlwaysSuccess", nil)),
			N("AlwaysSuccess", nil)))
	}
	return root
}

func reasonTree(tb testing.TB, n int, explaining bool) *Tree {
	return steadyTree(tb, reasonSpec(n), explaining, (*Tree).TickExactlyOnce)
}

// steadyTree builds root with the entries its scripts read, explaining or
// not, and ticks it (with tick) to a steady state.
func steadyTree(tb testing.TB, root *NodeSpec, explaining bool, tick func(*Tree) (Status, error)) *Tree {
	d := &Document{Trees: []*TreeSpec{{ID: "Bench", Root: root}}}
	tree, err := Build(NewRegistry(), d, BuildConf{Seed: 1})
	require.NoError(tb, err)
	for k, v := range map[string]any{"battery_pct": 0.12, "limit": 0.15} {
		err := tree.Blackboard().Set(k, v)
		require.NoError(tb, err)
	}
	tree.SetExplaining(explaining)
	for i := 0; i < 10; i++ { // reach steady state
		_, err := tick(tree)
		require.NoError(tb, err)
	}
	return tree
}

// BenchmarkTickReasons ticks reasonSpec(100) (401 nodes) with explaining
// off and on.
func BenchmarkTickReasons(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("explaining=%v", on), func(b *testing.B) {
			tree := reasonTree(b, 100, on)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := tree.TickExactlyOnce()
				if err != nil || st != Success { // testify only on failure: its Helper call and reflection would be timed with the tick
					require.Failf(b, "tick", "tick: %v %v", st, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/401, "ns/node")
		})
	}
}

// alternativesSpec is a Sequence of n ForceSuccess, each over a node that
// fails only once all its alternatives did: a ReactiveFallback, a
// RandomSelector, a WeightedSelector and a RetryUntilSuccessful (3
// attempts, each one tick) of a Fallback, every leaf failing (a false
// ScriptCondition, AlwaysFailure). Explaining, each would keep every
// alternative's chain; not explaining, none. 1 + 21n nodes.
func alternativesSpec(n int) *NodeSpec {
	alts := func(id string, attrs []Attr) *NodeSpec {
		return N("ForceSuccess", nil, N(id, attrs,
			N("ScriptCondition", A("code", "battery_pct > limit")),
			N("AlwaysFailure", nil)))
	}
	root := N("Sequence", nil)
	for i := 0; i < n; i++ {
		root.Children = append(root.Children,
			alts("ReactiveFallback", nil),
			alts("RandomSelector", nil),
			alts("WeightedSelector", A("weights", "1;2")),
			N("ForceSuccess", nil, N("RetryUntilSuccessful", A("num_attempts", "3"), alts("Fallback", nil).Children[0])))
	}
	return root
}

func alternativesTree(tb testing.TB, n int, explaining bool) *Tree {
	return steadyTree(tb, alternativesSpec(n), explaining, (*Tree).TickOnce)
}

// BenchmarkTickAlternatives ticks alternativesSpec(25) (526 nodes) to
// completion (TickOnce: the retries' attempts take a tick each) with
// explaining off and on: off, a tick allocates nothing for the
// alternatives either.
func BenchmarkTickAlternatives(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("explaining=%v", on), func(b *testing.B) {
			tree := alternativesTree(b, 25, on)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := tree.TickOnce()
				if err != nil || st != Success { // testify only on failure: its Helper call and reflection would be timed with the tick
					require.Failf(b, "tick", "tick: %v %v", st, err)
				}
			}
		})
	}
}

// TestReasonsOffAllocateNothing keeps the promise that a tree nobody asks
// why costs no allocation for its reasons, nor for the alternatives its
// Fallbacks and retries tried, and checks that the same tree explains
// itself when asked.
func TestReasonsOffAllocateNothing(t *testing.T) {
	cases := []struct {
		name       string
		tree       func(testing.TB, int, bool) *Tree
		explaining bool
		wantAllocs bool
		chain      int // Explain's main chain
	}{
		{name: "reasons, explaining off", tree: reasonTree, explaining: false, wantAllocs: false, chain: 3},
		{name: "reasons, explaining on", tree: reasonTree, explaining: true, wantAllocs: true, chain: 3},
		{name: "alternatives, explaining off", tree: alternativesTree, explaining: false, wantAllocs: false, chain: 5},
		{name: "alternatives, explaining on", tree: alternativesTree, explaining: true, wantAllocs: true, chain: 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := tc.tree(t, 10, tc.explaining)
			allocs := testing.AllocsPerRun(100, func() { _, _ = tree.TickOnce() })
			if tc.wantAllocs {
				assert.NotZero(t, allocs, "no allocations with explaining on: are the reasons formatted?")
			} else if allocs != 0 {
				assert.Fail(t, fmt.Sprintf("%.1f allocations per tick with explaining off, want 0", allocs))
			}
			chain := tree.Explain()
			require.Len(t, chain, tc.chain, "chain %v, want %d links", chain, tc.chain)
		})
	}
}
