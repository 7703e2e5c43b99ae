package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/mission"
)

// runFleet runs the mission of rc on every robot namespace at once, in
// this process (mission.RunFleetLines); the exit code is 0 when every
// robot's mission succeeded.
func runFleet(ctx context.Context, env *cmdEnv, rc mission.RunConf, namespaces []string, keys []string, quiet bool) int {
	reps, err := mission.RunFleetLines(ctx, rc, namespaces, mission.FleetLines{Out: env.Stdout, Err: env.Stderr, Keys: keys, Quiet: quiet})
	var le *mission.LoadError
	switch {
	case errors.As(err, &le):
		fmt.Fprintln(env.Stderr, err)
		return exitUsage
	case err != nil && reps == nil:
		fmt.Fprintf(env.Stderr, "btrobot run: %v\n", err)
		return exitUsage // two missions in one namespace
	case err != nil:
		fmt.Fprintf(env.Stderr, "btrobot run: %v\n", err)
		return exitFailed
	}
	for _, rep := range reps {
		if rep.Tree != nil && !rep.OK() {
			return exitFailed
		}
	}
	return exitOK
}
