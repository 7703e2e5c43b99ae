package main

import (
	"fmt"

	"github.com/btrobot/btrobot/studio"
)

func studioCommand() *command {
	c := &command{
		Name: "studio",
		Args: "[DIR] [--ui ADDR] [--allow-control]",
		Summary: "Serve the browser studio on DIR (default: the current directory): its recordings (.db3, .btlog), each\n" +
			"one's tree, statuses, reasons and blackboard at any instant, played at a speed or sought; and its XML\n" +
			"trees in the editor (palette, inspector, checked as you type against a robot profile and a world,\n" +
			"saved as BT.CPP v4 XML; nothing outside DIR but the shipped profiles and worlds), and Run: the edited\n" +
			"mission on the simulator in this process (its own ROS master on loopback; no --allow-control needed),\n" +
			"shown live until Stop. Runs show live with --ui on run, demo, hil and replay. Serves until interrupted.",
		Example: "btrobot demo --record /tmp/rec/demo.db3 --speed 0 --headless && btrobot studio /tmp/rec",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		var ui studio.Flags
		ui.Add(fs)
		pos, err := parseArgs(fs, studio.FlagArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if len(pos) > 1 {
			fs.Usage()
			return exitUsage
		}
		dir := "."
		if len(pos) == 1 {
			dir = pos[0]
		}
		files, err := studio.RecordingsIn(dir)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot studio: %v\n", err)
			return exitUsage
		}
		if ui.Addr == "" {
			ui.Addr = studio.DefaultAddr
		}
		ui.Dir = dir
		srv, err := ui.Start(env.Stderr, "btrobot studio "+dir)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot studio: %v\n", err)
			return exitFailed
		}
		defer srv.Close()
		// Interrupting while the recordings load ends the program as it
		// would later: the server closed, its pages told.
		ctx, stop := interruptContext(env.Stderr)
		defer stop()
		for _, f := range files {
			if ctx.Err() != nil {
				return exitOK
			}
			if err := srv.AddRecording(f); err != nil {
				fmt.Fprintf(env.Stderr, "btrobot studio: %v (left out)\n", err)
				continue
			}
			fmt.Fprintf(env.Stderr, "studio: %s\n", f)
		}
		<-ctx.Done()
		return exitOK
	}
	return c
}
