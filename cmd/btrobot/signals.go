package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
)

// interruptContext returns a context that SIGINT and SIGTERM cancel, with
// the signal as its cause ("interrupted by SIGINT": what the run's report
// says). A signal that comes while the program stops (a second Ctrl-C, a
// supervisor's SIGTERM sent twice) never skips the stop: the robot is
// stopped first, whatever the signals, and the program says so on stderr;
// the stop is bounded, and if the program is still there hurryExit after
// a second signal it exits with exitFailed, saying so. SIGKILL is the one
// signal that ends it at once. After stop (the run has ended and the robot
// is stopped) the default handling is back.
func interruptContext(stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		var hurry <-chan time.Time
		n := 0
		for {
			select {
			case s := <-sigc:
				n++
				if n == 1 {
					cancel(errors.New("interrupted by " + signalName(s)))
					continue
				}
				if hurry == nil {
					hurry = time.After(hurryExit)
				}
				fmt.Fprintf(stderr, "btrobot: %s again: stopping the robot first, then exiting (at most %v; SIGKILL ends the program at once)\n", signalName(s), hurryExit)
			case <-hurry:
				fmt.Fprintf(stderr, "btrobot: still stopping %v after the second signal: exiting without waiting further\n", hurryExit)
				os.Exit(exitFailed)
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigc)
			close(done)
			<-ended
			cancel(nil)
		})
	}
}

// hurryExit bounds how long the program may still take to stop once a
// second signal came. Stopping is bounded on its own (the zero velocity
// waits a second at most, goal cancels half a second, the master's
// unregistrations their own bound): this is the last resort.
const hurryExit = 10 * time.Second

func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
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
