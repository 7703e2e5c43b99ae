package mission

import (
	goruntime "runtime"
	"time"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// BenchResult is how fast a tree ticks with no robot attached.
type BenchResult struct {
	Nodes         int     `json:"nodes"`
	LoadMS        float64 `json:"load_ms"`
	Ticks         int     `json:"ticks"`
	NsPerTick     float64 `json:"ns_per_tick"`
	NsPerNode     float64 `json:"ns_per_node"`
	AllocsPerTick float64 `json:"allocs_per_tick"`
}

// Bench loads a tree against the palette wired to no robot and times its
// ticks: ticks of them, or as many as fit in about a second when ticks is
// 0, after ten to warm up. Loading is timed apart, the palette built
// before the clock starts. A tree that cannot be loaded or built, or a
// tick's error, is returned as it is.
func Bench(path string, ticks int) (*BenchResult, error) {
	reg := Nodes()
	start := time.Now()
	doc, err := trees.Load(path)
	if err != nil {
		return nil, err
	}
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Seed: 1})
	if err != nil {
		return nil, err
	}
	load := time.Since(start)
	tick := func() error { _, err := tree.TickExactlyOnce(); return err }
	// Warm up: the first ticks allocate what steady state reuses.
	for i := 0; i < 10; i++ {
		if err := tick(); err != nil {
			return nil, err
		}
	}
	if ticks == 0 {
		t0, k := time.Now(), 0
		for time.Since(t0) < 50*time.Millisecond {
			if err := tick(); err != nil {
				return nil, err
			}
			k++
		}
		ticks = max(10, int(float64(k)*float64(time.Second)/float64(time.Since(t0))))
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	t0 := time.Now()
	for i := 0; i < ticks; i++ {
		if err := tick(); err != nil {
			return nil, err
		}
	}
	elapsed := time.Since(t0)
	goruntime.ReadMemStats(&after)
	nodes := len(tree.Nodes())
	perTick := float64(elapsed.Nanoseconds()) / float64(ticks)
	return &BenchResult{
		Nodes:         nodes,
		LoadMS:        float64(load.Microseconds()) / 1000,
		Ticks:         ticks,
		NsPerTick:     round1(perTick),
		NsPerNode:     round1(perTick / float64(nodes)),
		AllocsPerTick: round1(float64(after.Mallocs-before.Mallocs) / float64(ticks)),
	}, nil
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
