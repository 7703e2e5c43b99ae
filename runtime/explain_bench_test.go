package runtime

import (
	"fmt"
	"testing"
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
	d := &Document{Trees: []*TreeSpec{{ID: "Bench", Root: reasonSpec(n)}}}
	tree, err := Build(NewRegistry(), d, BuildConf{Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range map[string]any{"battery_pct": 0.12, "limit": 0.15} {
		if err := tree.Blackboard().Set(k, v); err != nil {
			tb.Fatal(err)
		}
	}
	tree.SetExplaining(explaining)
	for i := 0; i < 10; i++ { // reach steady state
		if _, err := tree.TickExactlyOnce(); err != nil {
			tb.Fatal(err)
		}
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
				if st, err := tree.TickExactlyOnce(); err != nil || st != Success {
					b.Fatalf("tick: %v %v", st, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/401, "ns/node")
		})
	}
}

// TestReasonsOffAllocateNothing keeps the promise that a tree nobody asks
// why costs no allocation for its reasons, and checks that the same tree
// explains itself when asked.
func TestReasonsOffAllocateNothing(t *testing.T) {
	cases := []struct {
		name       string
		explaining bool
		wantAllocs bool
	}{
		{name: "explaining off", explaining: false, wantAllocs: false},
		{name: "explaining on", explaining: true, wantAllocs: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := reasonTree(t, 10, tc.explaining)
			allocs := testing.AllocsPerRun(100, func() { _, _ = tree.TickExactlyOnce() })
			if tc.wantAllocs {
				if allocs == 0 {
					t.Errorf("no allocations with explaining on: are the reasons formatted?")
				}
			} else if allocs != 0 {
				t.Errorf("%.1f allocations per tick with explaining off, want 0", allocs)
			}
			chain := tree.Explain()
			if len(chain) != 3 {
				t.Fatalf("chain %v, want Sequence → last Fallback → its AlwaysSuccess", chain)
			}
		})
	}
}
