package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The engine's speed targets (issue: at most 30 ns per node per tick, no
// allocations in steady state) on three trees of built-in nodes. Run with
//
//	go test -run '^$' -bench Tick -benchmem ./runtime/
//
// BENCHMARKS.md holds the figures and BehaviorTree.CPP's side by side.

// wideSpec is a Sequence of n AlwaysSuccess.
func wideSpec(n int) *NodeSpec {
	root := N("Sequence", nil)
	for i := 0; i < n; i++ {
		root.Children = append(root.Children, N("AlwaysSuccess", nil))
	}
	return root
}

// binarySpec is a complete tree of the given depth whose levels alternate
// Sequence (at even levels, the root first) and Fallback, with an Inverter
// over each Fallback's first child; depth 10 gives 1,023 controls, 1,024
// leaves and 682 Inverters: 2,729 nodes.
func binarySpec(depth int) *NodeSpec {
	var build func(level int) *NodeSpec
	build = func(level int) *NodeSpec {
		if level == depth {
			return N("AlwaysSuccess", nil)
		}
		if level%2 == 0 {
			return N("Sequence", nil, build(level+1), build(level+1))
		}
		return N("Fallback", nil, N("Inverter", nil, build(level+1)), build(level+1))
	}
	return build(0)
}

// parallelSpec is a Parallel (success_count -1) of n Sequences of m
// AlwaysSuccess.
func parallelSpec(n, m int) *NodeSpec {
	root := N("Parallel", A("success_count", "-1"))
	for i := 0; i < n; i++ {
		root.Children = append(root.Children, wideSpec(m))
	}
	return root
}

func benchTree(b *testing.B, root *NodeSpec, wantNodes int) {
	d := &Document{Trees: []*TreeSpec{{ID: "Bench", Root: root}}}
	tree, err := Build(NewRegistry(), d, BuildConf{Seed: 1})
	require.NoError(b, err)
	n := len(tree.Nodes())
	require.Equal(b, wantNodes, n, "tree has %d nodes, want %d", n, wantNodes)
	for i := 0; i < 10; i++ { // reach steady state
		_, err := tree.TickExactlyOnce()
		require.NoError(b, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := tree.TickExactlyOnce()
		if err != nil || st != Success { // testify only on failure: its Helper call and reflection would be timed with the tick
			require.Failf(b, "tick", "tick: %v %v", st, err)
		}
	}
	b.StopTimer()
	nsPerTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(nsPerTick/float64(wantNodes), "ns/node")
}

func BenchmarkTickWide(b *testing.B)     { benchTree(b, wideSpec(1000), 1001) }
func BenchmarkTickBinary(b *testing.B)   { benchTree(b, binarySpec(10), 2729) }
func BenchmarkTickParallel(b *testing.B) { benchTree(b, parallelSpec(100, 10), 1101) }

// TestTickAllocatesNothingInSteadyState keeps the zero-allocation target
// from regressing unnoticed.
func TestTickAllocatesNothingInSteadyState(t *testing.T) {
	for name, root := range map[string]*NodeSpec{
		"wide": wideSpec(100), "binary": binarySpec(6), "parallel": parallelSpec(10, 10),
	} {
		d := &Document{Trees: []*TreeSpec{{ID: "T", Root: root}}}
		tree, err := Build(NewRegistry(), d, BuildConf{Seed: 1})
		require.NoError(t, err)
		tree.TickExactlyOnce()
		a := testing.AllocsPerRun(100, func() { tree.TickExactlyOnce() })
		assert.Equal(t, float64(0), a, "%s: %.1f allocations per tick, want 0", name, a)
	}
}
