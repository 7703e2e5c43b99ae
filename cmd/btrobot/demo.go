package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/view"
)

func demoCommand() *command {
	c := &command{
		name: "demo",
		args: "[--rounds N] [--speed X] [--battery F] [--headless] [--picture FILE.png] [--record FILE] [--groot [HOST:]PORT] [--diagnostics=false] [--transitions TOPIC] [--ui [ADDR]] [--allow-control]",
		summary: "Patrol the simulated office with charging: btrobot's own ROS master, the simulator and the\n" +
			"patrol_with_charging mission, shown live at several times real time, until the robot has done its\n" +
			"rounds; then a summary and a picture of the trajectory. Needs nothing but a checkout of btrobot.",
		example: "go run ./cmd/btrobot demo\n" +
			"btrobot demo --rounds 1 --speed 0 --headless   # as fast as the machine allows, plain lines (CI)",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		rounds := fs.Int("rounds", 2, "patrol rounds to do (each visits the office's six places)")
		speed := fs.Float64("speed", 10, "simulated seconds per wall second; 0: as fast as the machine allows")
		battery := fs.Float64("battery", 0.3, "the battery's charge at the start, 0 to 1 (0.3 runs low during the first round)")
		headless := fs.Bool("headless", false, "plain lines instead of the live tree (the default when the output is not a terminal)")
		picture := fs.String("picture", filepath.Join(os.TempDir(), "btrobot-demo.png"), "where to draw the trajectory (.png or .svg)")
		seed := fs.Uint64("seed", 1, "seed of the simulator's random draws")
		var watch watchFlags
		watch.addFlags(fs, true)
		var ui uiFlags
		ui.addFlags(fs)
		pos, err := parseArgs(fs, uiArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.check(); err != nil {
			fmt.Fprintf(env.stderr, "btrobot demo: %v\n", err)
			return exitUsage
		}
		var problems []string
		if len(pos) > 0 {
			problems = append(problems, fmt.Sprintf("unexpected arguments %q", pos))
		}
		if *rounds < 1 {
			problems = append(problems, fmt.Sprintf("--rounds %d: want at least 1", *rounds))
		}
		if !(*speed >= 0) || *speed > 1000 {
			problems = append(problems, fmt.Sprintf("--speed %v: want 0 (as fast as possible) or a factor of real time up to 1000", *speed))
		}
		if !(*battery > 0.05 && *battery <= 1) {
			problems = append(problems, fmt.Sprintf("--battery %v: want a charge above 0.05 and at most 1", *battery))
		}
		if l := strings.ToLower(*picture); !strings.HasSuffix(l, ".png") && !strings.HasSuffix(l, ".svg") {
			problems = append(problems, fmt.Sprintf("--picture %s: the file name must end in .png or .svg", *picture))
		}
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintf(env.stderr, "btrobot demo: %s\n", p)
			}
			return exitUsage
		}
		d := &demo{env: env, rounds: *rounds, speed: *speed, battery: *battery, headless: *headless, picture: *picture, seed: *seed, watch: watch, ui: ui}
		return d.run()
	}
	return c
}

// demo is one run of btrobot demo: mission.Demo shown live.
type demo struct {
	env      *cmdEnv
	rounds   int
	speed    float64
	battery  float64
	headless bool
	picture  string
	seed     uint64
	watch    watchFlags
	ui       uiFlags

	logMu  sync.Mutex
	logTo  func(string) // the live view's log, once it runs
	events []string     // events before the view runs
}

func (d *demo) run() int {
	env := d.env
	ctx, stopSignals := interruptContext(env.stderr)
	defer stopSignals()
	dm, err := mission.StartDemo(mission.DemoConf{Rounds: d.rounds, Speed: d.speed, Battery: d.battery, Seed: d.seed,
		OnEvent: d.event, MasterLog: func(msg string) { d.show("ROS master: " + msg) }})
	var le *mission.LoadError
	switch {
	case errors.As(err, &le):
		fmt.Fprintln(env.stderr, err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(env.stderr, "btrobot demo: %v\n", err)
		return exitFailed
	}
	defer dm.Close()
	pace := fmt.Sprintf("×%g", d.speed)
	if d.speed == 0 {
		pace = "as fast as possible"
	}
	title := fmt.Sprintf("btrobot demo · office · patrol with charging · %d %s · %s", d.rounds, plural(d.rounds, "round", "rounds"), pace)
	show := liveDisplay(env, viewConf{
		keys:  []string{"rounds", "visits", "charges", "recoveries", "skipped", "target", "battery_pct"},
		title: title, headless: d.headless,
	})
	rc := dm.Run
	rc.Log = func(line string) { fmt.Fprintln(env.stderr, line) }
	rc.Display = func(s mission.Shown) mission.Display {
		v := show(s)
		d.setLog(v.Log)
		return v
	}
	d.watch.apply(&rc)
	srv, err := d.ui.start(env, title)
	if err != nil {
		fmt.Fprintf(env.stderr, "btrobot demo: --ui: %v\n", err)
		return exitUsage
	}
	if srv != nil {
		defer srv.Close()
		attachStudio(srv, &rc, studio.LiveConf{Name: "robot1 · office", Map: dm.Sim.Node.WriteSVG, Master: dm.Sim.URI()})
	}
	wallStart := time.Now()
	code, rep := runMission(ctx, env, "btrobot demo", rc, false, stopSignals)
	if rep.Tree == nil {
		return code // it did not start; the run said why
	}
	fmt.Fprintln(env.stdout)
	dm.Summary(rep, time.Since(wallStart)).Write(env.stdout)
	if err := dm.Picture(env.stdout, d.picture); err != nil {
		fmt.Fprintf(env.stderr, "btrobot demo: the picture: %v\n", err)
	}
	return code
}

// event shows a simulator event in the live view.
func (d *demo) event(at time.Duration, line string) {
	d.show(fmt.Sprintf("%s sim: %s", view.ClockText(at), line))
}

// show writes a line in the live view's log, or keeps it until the view
// runs; safe from any goroutine.
func (d *demo) show(text string) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	if d.logTo == nil {
		d.events = append(d.events, text)
		return
	}
	d.logTo(text)
}

// setLog receives the live view's log once the run has started.
func (d *demo) setLog(show func(string)) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	d.logTo = show
	for _, e := range d.events {
		show(e)
	}
	d.events = nil
}
