package main

import (
	"fmt"
	"os"

	"github.com/btrobot/btrobot/hil"
)

func hilCommand() *command {
	c := &command{
		name:    "hil",
		args:    "SCENARIO|DIR... [-j N] [--junit FILE] [-v]",
		summary: "Run scenarios (*.scenario.yaml: robots, missions, faults, expectations) against the simulator in this process, in lockstep; exit 1 when an expectation failed (docs/hil.md).",
		example: "btrobot hil scenarios/ -j 2 --junit hil.xml\n" +
			"patrol happy path  1  pass  0/7  1m27s  1.2s",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		jobs := fs.Int("j", 1, "scenarios run at once (each on its own master)")
		junit := fs.String("junit", "", "also write the results as JUnit XML to `FILE`")
		verbose := fs.Bool("v", false, "print the simulator's events and the missions' warnings as they happen")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) == 0 || *jobs < 1 {
			fs.Usage()
			return exitUsage
		}
		files, err := hil.Files(pos)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot hil: %v\n", err)
			return exitUsage
		}
		// Every scenario is checked, with its missions, before any runs.
		var scenarios []*hil.Scenario
		bad := 0
		for _, f := range files {
			s, err := hil.Check(f)
			if err != nil {
				fmt.Fprintln(env.stderr, err)
				bad++
				continue
			}
			scenarios = append(scenarios, s)
		}
		if bad > 0 {
			fmt.Fprintf(env.stderr, "btrobot hil: %d bad %s; nothing ran\n", bad, plural(bad, "scenario", "scenarios"))
			return exitUsage
		}
		ctx, stop := interruptContext()
		defer stop()
		conf := hil.CampaignConf{Scenarios: scenarios, Jobs: *jobs}
		if *verbose {
			conf.Log = func(s *hil.Scenario, line string) { fmt.Fprintf(env.stderr, "%s: %s\n", s.Name, line) }
		}
		cases := hil.RunCampaign(ctx, conf)
		if err := hil.WriteTable(env.stdout, cases); err != nil {
			fmt.Fprintf(env.stderr, "btrobot hil: %v\n", err)
			return exitFailed
		}
		if *junit != "" {
			if err := writeJUnit(*junit, cases); err != nil {
				fmt.Fprintf(env.stderr, "btrobot hil: %v\n", err)
				return exitFailed
			}
		}
		for _, c := range cases {
			if !c.Passed() {
				return exitFailed
			}
		}
		return exitOK
	}
	return c
}

func writeJUnit(path string, cases []hil.Case) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := hil.WriteJUnit(f, cases); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
