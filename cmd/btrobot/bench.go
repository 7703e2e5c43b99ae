package main

import (
	"encoding/json"
	"fmt"
	"github.com/btrobot/btrobot/mission"
	goruntime "runtime"
	"time"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

func benchCommand() *command {
	c := &command{
		name:    "bench",
		args:    "FILE [--ticks N]",
		summary: "Load a tree and time its ticks with no robot attached; print one JSON line.",
		example: "btrobot bench trees/testdata/bench/wide.xml\n" +
			`{"nodes":1001,"load_ms":1.2,"ns_per_tick":21000,"ns_per_node":21,"allocs_per_tick":0}`,
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		n := fs.Int("ticks", 0, "ticks to time (default: as many as fit in about one second)")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) != 1 || *n < 0 {
			fs.Usage()
			return exitUsage
		}
		res, err := benchFile(pos[0], *n)
		if err != nil {
			fmt.Fprintln(env.stderr, err)
			return exitUsage
		}
		json.NewEncoder(env.stdout).Encode(res)
		return exitOK
	}
	return c
}

type benchResult struct {
	Nodes         int     `json:"nodes"`
	LoadMS        float64 `json:"load_ms"`
	Ticks         int     `json:"ticks"`
	NsPerTick     float64 `json:"ns_per_tick"`
	NsPerNode     float64 `json:"ns_per_node"`
	AllocsPerTick float64 `json:"allocs_per_tick"`
}

func benchFile(path string, ticks int) (*benchResult, error) {
	reg := mission.Nodes() // the palette is built once per process, not per load
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
	return &benchResult{
		Nodes:         nodes,
		LoadMS:        float64(load.Microseconds()) / 1000,
		Ticks:         ticks,
		NsPerTick:     round1(perTick),
		NsPerNode:     round1(perTick / float64(nodes)),
		AllocsPerTick: round1(float64(after.Mallocs-before.Mallocs) / float64(ticks)),
	}, nil
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
