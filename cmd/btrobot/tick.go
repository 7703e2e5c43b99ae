package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

func tickCommand() *command {
	c := &command{
		name:    "tick",
		args:    "FILE --ticks N [--tree ID] [--set key=value]...",
		summary: "Tick a tree with no robot attached and print one JSON line per tick, then the blackboard.",
		example: "btrobot tick trees/missions/hello.xml --ticks 5 --set limit=3\n" +
			`{"tick":1,"status":"RUNNING"}` + "\n...\n" + `{"blackboard":{"count":3,"limit":3}}`,
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		n := fs.Int("ticks", 1, "how many times to tick (each tick is one tick-exactly-once)")
		treeID := fs.String("tree", "", "the tree to run (default: main_tree_to_execute)")
		seed := fs.Uint64("seed", 1, "seed of the random nodes")
		var sets multiFlag
		fs.Var(&sets, "set", "set a root blackboard entry before the first tick (repeatable): key=value")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) != 1 || *n < 0 {
			fs.Usage()
			return exitUsage
		}
		doc, err := trees.Load(pos[0])
		if err != nil {
			fmt.Fprintln(env.stderr, err)
			return exitUsage
		}
		// Entries are set before the tree is built, as BehaviorTree.CPP's
		// tools do, so port declarations meet the values' types.
		bb := runtime.NewBlackboard(nil)
		for _, kv := range sets {
			k, v, err := cliEntry(kv)
			if err == nil {
				err = bb.Set(k, v)
			}
			if err != nil {
				fmt.Fprintf(env.stderr, "--set %s: %v\n", kv, err)
				return exitUsage
			}
		}
		tree, err := runtime.Build(palette(), doc, runtime.BuildConf{Main: *treeID, Seed: *seed, Blackboard: bb})
		if err != nil {
			fmt.Fprintln(env.stderr, err)
			return exitUsage
		}
		enc := json.NewEncoder(env.stdout)
		for i := 1; i <= *n; i++ {
			st, err := tree.TickExactlyOnce()
			if err != nil {
				enc.Encode(struct {
					Tick  int    `json:"tick"`
					Error string `json:"error"`
				}{i, err.Error()})
				return exitFailed
			}
			enc.Encode(struct {
				Tick   int    `json:"tick"`
				Status string `json:"status"`
			}{i, st.String()})
		}
		if err := enc.Encode(struct {
			Blackboard map[string]any `json:"blackboard"`
		}{jsonSafe(tree.Blackboard().Snapshot())}); err != nil {
			fmt.Fprintln(env.stderr, err)
			return exitFailed
		}
		return exitOK
	}
	return c
}

// cliEntry reads key=value: an integer, a real, true or false, else a
// string; key:string=value keeps the text as a string.
func cliEntry(kv string) (string, any, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", nil, fmt.Errorf("write key=value")
	}
	if name, typ, typed := strings.Cut(k, ":"); typed {
		if typ != "string" {
			return "", nil, fmt.Errorf("unknown type %q: only key:string=value forces a type", typ)
		}
		return name, v, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return k, n, nil
	}
	if v == "true" || v == "false" {
		return k, v == "true", nil
	}
	if !strings.ContainsAny(v, "xXnN") { // no hex floats, inf or nan
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return k, f, nil
		}
	}
	return k, v, nil
}

// jsonSafe replaces values JSON cannot hold by text: infinities and NaN as
// BehaviorTree.CPP's tools print them ("inf", "-inf", "nan"), anything else
// (channels, funcs) as Go prints it.
func jsonSafe(m map[string]any) map[string]any {
	for k, v := range m {
		if f, ok := v.(float64); ok {
			switch {
			case math.IsInf(f, 1):
				m[k] = "inf"
			case math.IsInf(f, -1):
				m[k] = "-inf"
			case math.IsNaN(f):
				m[k] = "nan"
			}
			continue
		}
		if _, err := json.Marshal(v); err != nil {
			m[k] = fmt.Sprint(v)
		}
	}
	return m
}
