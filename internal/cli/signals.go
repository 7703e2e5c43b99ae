package cli

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
)

// InterruptContext returns a context that SIGINT and SIGTERM cancel, with
// the signal as its cause ("interrupted by SIGINT": what a run's report
// says). A signal that comes while the program stops (a second Ctrl-C, a
// supervisor's SIGTERM sent twice) never skips the stop: the robot is
// stopped first, whatever the signals, and the program says so on stderr;
// the stop is bounded, and if the program is still there HurryExit after
// a second signal it exits with exitCode, saying so. SIGKILL is the one
// signal that ends it at once. After stop (the run has ended and the robot
// is stopped) the default handling is back.
func InterruptContext(stderr io.Writer, exitCode int) (ctx context.Context, stop func()) {
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
					cancel(errors.New("interrupted by " + SignalName(s)))
					continue
				}
				if hurry == nil {
					hurry = time.After(HurryExit)
				}
				fmt.Fprintf(stderr, "btrobot: %s again: stopping the robot first, then exiting (at most %v; SIGKILL ends the program at once)\n", SignalName(s), HurryExit)
			case <-hurry:
				fmt.Fprintf(stderr, "btrobot: still stopping %v after the second signal: exiting without waiting further\n", HurryExit)
				os.Exit(exitCode)
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

// HurryExit bounds how long the program may still take to stop once a
// second signal came. Stopping is bounded on its own (the zero velocity
// waits a second at most, goal cancels half a second, the master's
// unregistrations their own bound): this is the last resort.
const HurryExit = 10 * time.Second

// SignalName names SIGTERM and SIGINT as a person writes them.
func SignalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}
