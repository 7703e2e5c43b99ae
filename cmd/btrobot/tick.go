package main

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/view"
)

func tickCommand() *command {
	c := &command{
		Name:    "tick",
		Args:    "FILE --ticks N [--tree ID] [--set key=value]... [--substitute RULES.json] [--record FILE]",
		Summary: "Tick a tree with no robot attached and print one JSON line per tick, then the blackboard.",
		Example: "btrobot tick trees/missions/hello.xml --ticks 5 --set limit=3\n" +
			`{"tick":1,"status":"RUNNING"}` + "\n...\n" + `{"blackboard":{"count":3,"limit":3}}`,
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		n := fs.Int("ticks", 1, "how many times to tick (each tick is one tick-exactly-once)")
		treeID := fs.String("tree", "", "the tree to run (default: main_tree_to_execute)")
		seed := fs.Uint64("seed", 1, "seed of the random nodes")
		var sets multiFlag
		fs.Var(&sets, "set", "set a root blackboard entry before the first tick (repeatable): key=value")
		substitute := fs.String("substitute", "", "replace nodes as BehaviorTree.CPP's substitution rules in this JSON file say (test nodes or other types)")
		var watch mission.WatchFlags
		watch.Add(fs, false)
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if *n < 0 {
			fmt.Fprintf(env.Stderr, "btrobot tick: --ticks %d: want 0 or more\n", *n)
			return exitUsage
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitUsage
		}
		rep, err := mission.Tick(env.Stdout, mission.TickConf{File: pos[0], Main: *treeID, Ticks: *n, Seed: *seed, Set: sets, Record: watch.Record, Substitute: *substitute})
		var le *mission.LoadError
		switch {
		case errors.As(err, &le):
			fmt.Fprintln(env.Stderr, err)
			return exitUsage
		case err != nil:
			fmt.Fprintln(env.Stderr, err)
			return exitFailed
		case rep.Err != nil:
			return exitFailed
		}
		if rep.Status == runtime.Failure && len(rep.Explanation) > 0 {
			fmt.Fprintln(env.Stderr, "why:")
			view.Explanation(env.Stderr, rep.Explanation, "  ")
		}
		return exitOK
	}
	return c
}
