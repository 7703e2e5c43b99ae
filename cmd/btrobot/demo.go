package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/view"
)

func demoCommand() *command {
	c := &command{
		Name: "demo",
		Args: "[--rounds N] [--speed X] [--battery F] [--headless] [--picture FILE.png] [--record FILE] [--groot [HOST:]PORT] [--diagnostics=false] [--transitions TOPIC] [--ui [ADDR]] [--allow-control]",
		Summary: "Patrol the simulated office with charging: btrobot's own ROS master, the simulator and the\n" +
			"patrol_with_charging mission, shown live at several times real time, until the robot has done its\n" +
			"rounds; then a summary and a picture of the trajectory. Needs nothing but a checkout of btrobot.",
		Example: "go run ./cmd/btrobot demo\n" +
			"btrobot demo --rounds 1 --speed 0 --headless   # as fast as the machine allows, plain lines (CI)",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		rounds := fs.Int("rounds", 2, "patrol rounds to do (each visits the office's six places)")
		speed := fs.Float64("speed", 10, "simulated seconds per wall second; 0: as fast as the machine allows")
		battery := fs.Float64("battery", 0.3, "the battery's charge at the start, 0 to 1 (0.3 runs low during the first round)")
		headless := fs.Bool("headless", false, "plain lines instead of the live tree (the default when the output is not a terminal)")
		picture := fs.String("picture", filepath.Join(os.TempDir(), "btrobot-demo.png"), "where to draw the trajectory (.png or .svg)")
		seed := fs.Uint64("seed", 1, "seed of the simulator's random draws")
		var watch mission.WatchFlags
		watch.Add(fs, true)
		var ui studio.Flags
		ui.Add(fs)
		pos, err := parseArgs(fs, studio.FlagArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.Check(); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot demo: %v\n", err)
			return exitUsage
		}
		var problems []string
		if len(pos) > 0 {
			problems = append(problems, fmt.Sprintf("unexpected arguments %q", pos))
		}
		conf := mission.DemoConf{Rounds: *rounds, Speed: *speed, Battery: *battery, Seed: *seed}
		if *headless {
			conf.Progress = env.Stderr
		}
		for _, p := range conf.Problems() {
			problems = append(problems, "--"+p)
		}
		if l := strings.ToLower(*picture); !strings.HasSuffix(l, ".png") && !strings.HasSuffix(l, ".svg") {
			problems = append(problems, fmt.Sprintf("--picture %s: the file name must end in .png or .svg", *picture))
		}
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintf(env.Stderr, "btrobot demo: %s\n", p)
			}
			return exitUsage
		}
		ctx, stopSignals := interruptContext(env.Stderr)
		defer stopSignals()
		var backlog mission.Backlog // the simulator's lines before the view runs
		conf.OnEvent = func(at time.Duration, line string) { backlog.Println(view.ClockText(at) + " sim: " + line) }
		conf.MasterLog = func(msg string) { backlog.Println("ROS master: " + msg) }
		dm, err := mission.StartDemo(conf)
		var le *mission.LoadError
		switch {
		case errors.As(err, &le):
			fmt.Fprintln(env.Stderr, err)
			return exitUsage
		case err != nil:
			fmt.Fprintf(env.Stderr, "btrobot demo: %v\n", err)
			return exitFailed
		}
		defer dm.Close()
		title := dm.Title()
		rc := dm.Run
		rc.Log = func(line string) { fmt.Fprintln(env.Stderr, line) }
		rc.Display = backlog.Show(mission.LiveView(mission.LiveViewConf{Out: env.Stdout,
			Keys: mission.DemoKeys, Title: title, Headless: *headless}))
		watch.Apply(&rc)
		srv, err := ui.Start(env.Stderr, title)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot demo: --ui: %v\n", err)
			return exitUsage
		}
		if srv != nil {
			defer srv.Close()
		}
		srv.Attach(&rc, studio.LiveConf{Name: "robot1 · office", Map: dm.Sim.Node.WriteSVG, Master: dm.Sim.URI()})
		wallStart := time.Now()
		code, rep := runMission(ctx, env, "btrobot demo", rc, false, stopSignals)
		if rep.Tree == nil {
			return code // it did not start; the run said why
		}
		fmt.Fprintln(env.Stdout)
		dm.Summary(rep, time.Since(wallStart)).Write(env.Stdout)
		if err := dm.Picture(env.Stdout, *picture); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot demo: the picture: %v\n", err)
		}
		return code
	}
	return c
}
