package main

import (
	"fmt"
	"io"

	"github.com/btrobot/btrobot/hil"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
)

func hilCommand() *command {
	c := &command{
		name:    "hil",
		args:    "SCENARIO|DIR... [-j N] [--junit FILE] [-v] [--ui [ADDR]] [--allow-control]",
		summary: "Run scenarios (*.scenario.yaml: robots, missions, faults, expectations) against the simulator in this process, in lockstep; exit 1 when an expectation failed (docs/hil.md).",
		example: "btrobot hil scenarios/ -j 2 --junit hil.xml\n" +
			"patrol happy path  1  pass  0/7  1m27s  1.2s",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		jobs := fs.Int("j", 1, "scenarios run at once (each on its own master)")
		junit := fs.String("junit", "", "also write the results as JUnit XML to `FILE`")
		verbose := fs.Bool("v", false, "print the simulator's events and the missions' warnings as they happen")
		var ui uiFlags
		ui.addFlags(fs)
		pos, err := parseArgs(fs, uiArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.check(); err != nil {
			fmt.Fprintf(env.stderr, "btrobot hil: %v\n", err)
			return exitUsage
		}
		if len(pos) == 0 || *jobs < 1 {
			fs.Usage()
			return exitUsage
		}
		scenarios, err := hil.CheckAll(pos) // every scenario checked before any runs
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot hil: %v\n", err)
			return exitUsage
		}
		ctx, stop := interruptContext()
		defer stop()
		conf := hil.CampaignConf{Scenarios: scenarios, Jobs: *jobs}
		if *verbose {
			conf.Log = func(s *hil.Scenario, line string) { fmt.Fprintf(env.stderr, "%s: %s\n", s.Name, line) }
		}
		srv, err := ui.start(env, "btrobot hil")
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot hil: --ui: %v\n", err)
			return exitUsage
		}
		if srv != nil {
			defer srv.Close()
			conf.Debugger = func(name string, world func(io.Writer) error) func(mission.Shown) mission.Debugger {
				return srv.Debugger(studio.LiveConf{Name: name, Map: world})
			}
		}
		cases := hil.RunCampaign(ctx, conf)
		err = hil.WriteTable(env.stdout, cases)
		if err == nil && *junit != "" {
			err = hil.WriteJUnitFile(*junit, cases)
		}
		switch {
		case err != nil:
			fmt.Fprintf(env.stderr, "btrobot hil: %v\n", err)
			return exitFailed
		case !hil.AllPassed(cases):
			return exitFailed
		}
		return exitOK
	}
	return c
}
