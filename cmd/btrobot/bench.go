package main

import (
	"encoding/json"
	"fmt"

	"github.com/btrobot/btrobot/mission"
)

func benchCommand() *command {
	c := &command{
		Name:    "bench",
		Args:    "FILE [--ticks N]",
		Summary: "Load a tree and time its ticks with no robot attached; print one JSON line.",
		Example: "btrobot bench trees/testdata/bench/wide.xml\n" +
			`{"nodes":1001,"load_ms":1.2,"ns_per_tick":21000,"ns_per_node":21,"allocs_per_tick":0}`,
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		n := fs.Int("ticks", 0, "ticks to time (default: as many as fit in about one second)")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if *n < 0 {
			fmt.Fprintf(env.Stderr, "btrobot bench: --ticks %d: want 0 (about a second's worth) or more\n", *n)
			return exitUsage
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitUsage
		}
		res, err := mission.Bench(pos[0], *n)
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			return exitUsage
		}
		json.NewEncoder(env.Stdout).Encode(res)
		return exitOK
	}
	return c
}
