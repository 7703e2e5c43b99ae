package runtime

import (
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/internal/cputime"
)

// BenchmarkTickCPU times the engine benchmark's trees (bench_test.go) in
// CPU time of the ticking thread rather than wall time: on a machine
// shared with other work, wall time swings by tens of percent between
// runs, the thread's CPU time by about one. That is what measured the cost
// of explanations against the engine before them (BENCHMARKS.md): this
// file, copied into a checkout of the earlier commit, runs there too.
//
//	go test -run '^$' -bench TickCPU ./runtime/
func BenchmarkTickCPU(b *testing.B) {
	for _, tc := range []struct {
		name string
		root *NodeSpec
	}{
		{"wide", wideSpec(1000)},
		{"binary", binarySpec(10)},
		{"parallel", parallelSpec(100, 10)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			d := &Document{Trees: []*TreeSpec{{ID: "Bench", Root: tc.root}}}
			tree, err := Build(NewRegistry(), d, BuildConf{Seed: 1})
			require.NoError(b, err)
			for i := 0; i < 10; i++ { // reach steady state
				_, err := tree.TickExactlyOnce()
				require.NoError(b, err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := cputime.Thread()
			for i := 0; i < b.N; i++ {
				_, err := tree.TickExactlyOnce()
				if err != nil { // testify only on failure: its Helper call and reflection would be timed with the tick
					require.NoError(b, err)
				}
			}
			b.ReportMetric(float64(cputime.Thread()-start)/float64(b.N), "cpu-ns/tick")
		})
	}
}
