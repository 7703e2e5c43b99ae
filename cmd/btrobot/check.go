package main

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/trees"
)

func checkCommand() *command {
	c := &command{
		name:    "check",
		args:    "FILE...",
		summary: "Validate trees: every error found, each with file:line:col, the node path and what would be right.",
		example: "btrobot check trees/missions/*.xml\n" +
			"patrol.xml:12:7: Main/Patrol/NavigateTo: missing required input port \"goal\" (string)",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) == 0 {
			fs.Usage()
			return exitUsage
		}
		reg := palette()
		code, problems := exitOK, 0
		for _, path := range pos {
			err := trees.CheckFile(reg, path)
			if err == nil {
				continue
			}
			var le *trees.LoadError
			if errors.As(err, &le) {
				for _, e := range le.Errs {
					fmt.Fprintln(env.stdout, e)
				}
				problems += len(le.Errs)
				if le.Unreadable {
					code = exitUsage
				} else if code == exitOK {
					code = exitFailed
				}
				continue
			}
			fmt.Fprintf(env.stdout, "%s: %v\n", path, err)
			problems++
			code = exitUsage
		}
		if problems > 0 {
			fmt.Fprintf(env.stderr, "%d %s in %d %s\n", problems, plural(problems, "problem", "problems"), len(pos), plural(len(pos), "file", "files"))
		}
		return code
	}
	return c
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
