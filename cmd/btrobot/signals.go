package main

import (
	"context"
	"io"

	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/mission"
)

// interruptContext is cli.InterruptContext, exiting with exitFailed when
// a second signal finds the program still stopping after cli.HurryExit.
func interruptContext(stderr io.Writer) (ctx context.Context, stop func()) {
	return cli.InterruptContext(stderr, exitFailed)
}

// joinMaster is mission.JoinMaster, saying on stderr what it did.
func joinMaster(ctx context.Context, env *cmdEnv, who, flagURI, envURI string) (string, func(), error) {
	return mission.JoinMaster(ctx, env.Stderr, who, flagURI, envURI)
}
