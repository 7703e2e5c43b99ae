package main

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/studio"
)

func replayCommand() *command {
	c := &command{
		Name: "replay",
		Args: "FILE [--speed X] [--from T] [--until T] [--headless] | FILE --ui [ADDR] | FILE --at T --json",
		Summary: "Play a recording (--record FILE of run, demo, tick: .btlog or .db3) through the live view: the tree,\n" +
			"statuses, reasons and the blackboard as they were. T is seconds since the start (12.5), a duration (1m30s)\n" +
			"or an RFC 3339 time. With --at T --json, print the state at that instant as one JSON object instead.\n" +
			"Exit 2 for a file that is not a recording, or is corrupt, or was cut short (after playing or printing\n" +
			"what comes before the cut); the message on stderr names the file.",
		Example: "btrobot demo --record /tmp/demo.db3 && btrobot replay /tmp/demo.db3 --speed 10\n" +
			"btrobot replay /tmp/demo.db3 --at 42 --json | jq '.nodes[] | select(.status==\"RUNNING\") | .path'",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		rc := mission.ReplayConf{}
		fs.Float64Var(&rc.Speed, "speed", 1, "recorded seconds per wall second; a negative speed plays as fast as possible")
		fs.StringVar(&rc.From, "from", "", "start at this instant (default: the start)")
		fs.StringVar(&rc.Until, "until", "", "end at this instant (default: the last event)")
		headless := fs.Bool("headless", false, "plain lines instead of the live tree (the default when the output is not a terminal)")
		at := fs.String("at", "", "with --json: the instant whose state is printed")
		asJSON := fs.Bool("json", false, "print the state at --at as JSON and exit")
		var ui studio.Flags
		ui.Add(fs)
		pos, err := parseArgs(fs, studio.FlagArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.Check(); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot replay: %v\n", err)
			return exitUsage
		}
		if len(pos) != 1 || *asJSON != (*at != "") || rc.Speed == 0 {
			fs.Usage()
			return exitUsage
		}
		ctx, stop := interruptContext(env.Stderr)
		defer stop()
		rc.File = pos[0]
		if ui.Addr != "" {
			// The recording in the studio, played from the page, until
			// interrupted.
			srv, err := ui.Start(env.Stderr, "btrobot replay "+rc.File)
			if err == nil {
				defer srv.Close()
				err = srv.AddRecording(rc.File)
			}
			if err != nil {
				fmt.Fprintf(env.Stderr, "btrobot replay: %v\n", err)
				return replayExit(err)
			}
			srv.ServeUntil(ctx, env.Stderr)
			return exitOK
		}
		rc.Display = func(s mission.Shown, title string, keys []string) mission.Display {
			return mission.LiveView(mission.LiveViewConf{Out: env.Stdout, Keys: keys, Title: title, Headless: *headless})(s)
		}
		if *headless {
			rc.Progress = env.Stderr
		}
		if *asJSON {
			err = mission.ReplayAt(ctx, env.Stdout, pos[0], *at)
		} else {
			err = mission.Replay(ctx, rc)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot replay: %v\n", err)
			return replayExit(err)
		}
		return exitOK
	}
	return c
}

// replayExit is the exit code of a replay that failed: 2 (bad input) for
// a file that is not a recording, or is corrupt, or was cut short (what
// came before the cut was played or printed), 1 for the rest (a file
// that cannot be read, an interrupted --json).
func replayExit(err error) int {
	var fe *record.FormatError
	var nr *record.NotRecordingError
	var many *record.TooManyEventsError
	if errors.As(err, &fe) || errors.As(err, &nr) || errors.As(err, &many) {
		return exitUsage
	}
	return exitFailed
}
