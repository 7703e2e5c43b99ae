package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/internal/cputime"
)

// BenchmarkBuild100kCPU is the engine's share of loading a 100,000-node
// tree (trees.BenchmarkLoad100kCPU parses the file too): Build of a
// Sequence of 100,000 AlwaysSuccess, in the CPU time of the whole process
// (the garbage collector's threads included), which a loaded machine
// disturbs far less than wall time.
//
//	go test -run '^$' -bench Build100kCPU -benchtime 20x -benchmem ./runtime/
func BenchmarkBuild100kCPU(b *testing.B) {
	d := &Document{Trees: []*TreeSpec{{ID: "Bench", Root: wideSpec(100_000)}}}
	reg := NewRegistry()
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		_, err := Build(reg, d, BuildConf{Seed: 1})
		require.NoError(b, err)
	}
	b.ReportMetric(float64(cputime.Process()-start)/1e6/float64(b.N), "cpu-ms/op")
}
