package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/mission"
)

// runFleet runs the mission of rc on every robot namespace at once, in
// this process, each with its own connection, tree, blackboard and loop.
// Each robot's lines (plain, since one terminal cannot hold several live
// frames) and its end are prefixed with its name; the exit code is 0 when
// every robot's mission succeeded.
func runFleet(ctx context.Context, env *cmdEnv, rc mission.RunConf, namespaces []string, keys []string, quiet bool) int {
	var mu sync.Mutex // one line at a time, whole, from every robot
	confs := make([]mission.RunConf, len(namespaces))
	outs := make([]io.Writer, len(namespaces))
	for i, ns := range namespaces {
		name := path.Base("/" + strings.Trim(ns, "/"))
		out := &cli.Prefixed{Mu: &mu, W: env.stdout, Prefix: name + "| "}
		errs := &cli.Prefixed{Mu: &mu, W: env.stderr, Prefix: name + "| "}
		c := rc
		c.ROS.Namespace = ns
		c.Log = func(line string) { fmt.Fprintln(errs, line) }
		if !quiet {
			c.Display = mission.LiveView(mission.LiveViewConf{Out: out, Keys: keys, Headless: true})
		}
		confs[i], outs[i] = c, out
	}
	reps, err := mission.RunFleet(ctx, confs)
	var le *mission.LoadError
	switch {
	case errors.As(err, &le):
		fmt.Fprintln(env.stderr, err)
		return exitUsage
	case err != nil && reps == nil:
		fmt.Fprintf(env.stderr, "btrobot run: %v\n", err)
		return exitUsage // two missions in one namespace
	case err != nil:
		fmt.Fprintf(env.stderr, "btrobot run: %v\n", err)
	}
	code := exitOK
	if err != nil {
		code = exitFailed
	}
	for i, rep := range reps {
		if rep.Tree == nil {
			continue // it did not start: the error said why
		}
		rep.WriteEnd(outs[i], quiet)
		if !rep.OK() {
			code = exitFailed
		}
	}
	return code
}
