package main

import (
	"context"
	"fmt"
	"io"

	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
)

// interruptContext is cli.InterruptContext, exiting with exitFailed when
// a second signal finds the program still stopping after cli.HurryExit.
func interruptContext(stderr io.Writer) (ctx context.Context, stop func()) {
	return cli.InterruptContext(stderr, exitFailed)
}

// joinMaster returns the master URI to use: --master's, else the one from
// the environment and ROS arguments. With --master auto, a master that
// answers there is used, else btrobot's own is started in its place (who
// says so on stderr, where the master's own lines go too: a shutdown call,
// a refused request); the returned function stops it.
func joinMaster(ctx context.Context, env *cmdEnv, who, flagURI, envURI string) (string, func(), error) {
	uri := envURI
	if uri == "" {
		uri = ros.DefaultMasterURI
	}
	nothing := func() {}
	switch flagURI {
	case "":
		return uri, nothing, nil
	case "auto":
	default:
		return flagURI, nothing, nil
	}
	if master.Probe(ctx, uri) == nil {
		return uri, nothing, nil
	}
	got, closer, err := master.Auto(ctx, uri, master.AutoConf{
		OnLog: func(msg string) { fmt.Fprintf(env.stderr, "%s's ROS master: %s\n", who, msg) },
	})
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintf(env.stderr, "%s: no ROS master answered at %s; started btrobot's own at %s\n", who, uri, got)
	return got, func() { closer() }, nil
}
