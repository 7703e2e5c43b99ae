package main

import (
	"encoding/json"
	"fmt"

	"github.com/btrobot/btrobot/mission"
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
		if *n < 0 {
			fmt.Fprintf(env.stderr, "btrobot bench: --ticks %d: want 0 (about a second's worth) or more\n", *n)
			return exitUsage
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitUsage
		}
		res, err := mission.Bench(pos[0], *n)
		if err != nil {
			fmt.Fprintln(env.stderr, err)
			return exitUsage
		}
		json.NewEncoder(env.stdout).Encode(res)
		return exitOK
	}
	return c
}
