package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
)

// interruptContext returns a context that SIGINT and SIGTERM cancel, with
// the signal as its cause ("interrupted by SIGINT": what the run's report
// says). After the first signal the default handling is back, so a second
// Ctrl-C ends the program at once if stopping ever hangs; stop does the
// same once the run has ended.
func interruptContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigc:
			signal.Stop(sigc)
			name := "SIGINT"
			if s == syscall.SIGTERM {
				name = "SIGTERM"
			}
			cancel(errors.New("interrupted by " + name))
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigc)
			close(done)
			cancel(nil)
		})
	}
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
