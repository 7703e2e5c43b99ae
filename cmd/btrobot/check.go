package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

func checkCommand() *command {
	c := &command{
		name:    "check",
		args:    "FILE...",
		summary: "Validate trees (.xml) and robot profiles (.yaml): every error found, each with file:line:col, the node path and what would be right.",
		example: "btrobot check trees/missions/*.xml robots/sim.yaml\n" +
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
			if isYAML(path) {
				n, unreadable := checkProfile(env, path)
				problems += n
				if unreadable {
					code = exitUsage
				} else if n > 0 && code == exitOK {
					code = exitFailed
				}
				continue
			}
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

func isYAML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// checkProfile prints the problems of a robot profile and counts them;
// unreadable is set when the file cannot be read or is not YAML.
func checkProfile(env *cmdEnv, path string) (problems int, unreadable bool) {
	data, err := input.ReadFile(path, input.Profile)
	if err != nil {
		fmt.Fprintln(env.stdout, err)
		return 1, true
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		unreadable = true
	}
	_, err = ros.ParseProfile(data, path, nil)
	var list runtime.ErrorList
	switch {
	case err == nil:
		return 0, unreadable
	case errors.As(err, &list):
		for _, e := range list {
			fmt.Fprintln(env.stdout, e)
		}
		return len(list), unreadable
	default:
		fmt.Fprintf(env.stdout, "%s: %v\n", path, err)
		return 1, unreadable
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
