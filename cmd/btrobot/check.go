package main

import (
	"fmt"

	"github.com/btrobot/btrobot/hil"
	"github.com/btrobot/btrobot/internal/english"
	"github.com/btrobot/btrobot/mission"
)

func checkCommand() *command {
	c := &command{
		Name:    "check",
		Args:    "FILE...",
		Summary: "Validate trees (.xml), robot profiles (.yaml) and scenarios (.scenario.yaml): every error found, each with file:line:col, the node path and what would be right.",
		Example: "btrobot check trees/missions/*.xml robots/sim.yaml\n" +
			"patrol.xml:12:7: Main/Patrol/NavigateTo: missing required input port \"goal\" (string)",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) == 0 {
			fs.Usage()
			return exitUsage
		}
		reg := mission.Nodes()
		code, problems := exitOK, 0
		for _, path := range pos {
			c := mission.CheckFile(reg, path)
			if hil.IsScenario(path) {
				c = hil.CheckFile(path)
			}
			for _, p := range c.Problems {
				fmt.Fprintln(env.Stdout, p)
			}
			for _, w := range c.Warnings { // not well-formed XML, though btrobot reads it
				fmt.Fprintln(env.Stdout, w)
			}
			problems += len(c.Problems)
			switch {
			case c.Unreadable:
				code = exitUsage
			case len(c.Problems) > 0 && code == exitOK:
				code = exitFailed
			}
		}
		if problems > 0 {
			fmt.Fprintf(env.Stderr, "%d %s in %d %s\n", problems, english.Plural(problems, "problem", "problems"), len(pos), english.Plural(len(pos), "file", "files"))
		}
		return code
	}
	return c
}
