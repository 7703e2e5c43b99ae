package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/btrobot/btrobot/hil"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/view"
)

func hilCommand() *command {
	c := &command{
		Name: "hil",
		Args: "SCENARIO|DIR... [-j N] [--seeds A..B] [--only K=V,...] [--shard K/N] [--junit FILE] [--report DIR] [--record DIR|none] [--master URI] [-v] [--ui [ADDR]] [--allow-control]",
		Summary: "Run scenarios (*.scenario.yaml: robots, missions, faults, expectations, a matrix) against the simulator in this process, in lockstep, " +
			"or against a running simulator or robot (--master); every run is recorded; exit 1 when an expectation failed (docs/hil.md). " +
			"A folder's long scenarios (long: true, such as the 24-hour soak) run only with --long; progress shows on stderr. " +
			"With --ui the studio shows the runs live, faults and verdicts on their timelines, and serves them after the table until interrupted.",
		Example: "btrobot hil scenarios/ -j 2 --junit hil.xml --report hil-report\n" +
			"patrol happy path  1  pass  0/7  1m27s  1.2s",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		jobs := fs.Int("j", 1, "runs at once (each on its own master)")
		long := fs.Bool("long", false, "also run the long scenarios (long: true) found in folders; one named as a file always runs")
		seeds := fs.String("seeds", "", "run every scenario once per seed of `A..B` (replaces the files' seeds and their matrices' seed)")
		only := fs.String("only", "", "run only the runs whose parameters are `K=V,...` (the replay command of a report uses it)")
		shard := fs.String("shard", "", "run shard `K/N` of the campaign: every N-th run from the K-th (the N shards partition it)")
		junit := fs.String("junit", "", "also write the results as JUnit XML to `FILE`")
		report := fs.String("report", "", "write an HTML report per run, and index.html, to `DIR`")
		record := fs.String("record", "", "record every run's missions (.btlog, btrobot replay plays them) to `DIR` [the --report DIR, else a new\n"+
			"directory under the system's temporary one]; none: do not record")
		masterURI := fs.String("master", "", "run against the simulator or robot on this ROS master (`URI`): start nothing, use the faults it offers,\n"+
			"read the expectations from its topics")
		verbose := fs.Bool("v", false, "print the simulator's events and the missions' warnings as they happen")
		transport := fs.String("transport", "inproc", "how the missions and the simulator talk: `inproc` (an in-process graph, no sockets) or ros\n"+
			"(TCPROS on a ROS master of each run's own, which ROS tools can join)")
		var ui studio.Flags
		ui.Add(fs)
		pos, err := parseArgs(fs, studio.FlagArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.Check(); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot hil: %v\n", err)
			return exitUsage
		}
		if len(pos) == 0 || *jobs < 1 {
			fs.Usage()
			return exitUsage
		}
		if *transport != mission.TransportInproc && *transport != mission.TransportROS {
			return hilUsage(env, fmt.Errorf("--transport %q: want inproc or ros", *transport))
		}
		sel, err := hil.ParseSelection(*seeds, *only, *shard, *long)
		if err != nil {
			return hilUsage(env, err)
		}
		planned, err := hil.Plan(pos, sel) // every run checked before any runs
		if err != nil {
			return hilUsage(env, err)
		}
		for _, f := range planned.LeftOut {
			fmt.Fprintf(env.Stderr, "btrobot hil: left out %s: a long scenario (--long runs it)\n", f)
		}
		status := view.NewStatusLine(env.Stderr, 10*time.Second)
		conf := hil.CampaignConf{Scenarios: planned.Runs, Jobs: *jobs, Master: *masterURI, Transport: *transport, Picture: *report != "",
			Progress: func(p hil.Progress) { status.Update("hil: " + p.String()) }}
		switch {
		case *record == "none":
		case *record != "":
			conf.Record = *record
		case *report != "":
			conf.Record = *report
		default:
			if conf.Record, err = os.MkdirTemp("", "btrobot-hil-"); err != nil {
				fmt.Fprintf(env.Stderr, "btrobot hil: %v\n", err)
				return exitFailed
			}
		}
		ctx, stop := interruptContext(env.Stderr)
		defer stop()
		if *verbose {
			conf.Log = func(s *hil.Scenario, line string) { status.Println(s.Name + ": " + line) }
		}
		srv, err := ui.Start(env.Stderr, "btrobot hil")
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot hil: --ui: %v\n", err)
			return exitUsage
		}
		if srv != nil {
			defer srv.Close()
			conf.Debugger = func(name string, world func(io.Writer) error) func(mission.Shown) mission.Debugger {
				return srv.Debugger(studio.LiveConf{Name: name, Map: world})
			}
		}
		cases := hil.RunCampaign(ctx, conf)
		status.Done("")
		err = hil.WriteTable(env.Stdout, cases)
		if err == nil && *junit != "" {
			err = hil.WriteJUnitFile(*junit, cases)
		}
		if err == nil && *report != "" {
			var index string
			if index, err = hil.WriteReports(*report, cases); err == nil {
				fmt.Fprintf(env.Stdout, "reports: %s\n", index)
			}
		}
		if conf.Record != "" {
			fmt.Fprintf(env.Stdout, "recordings: %s\n", conf.Record)
		}
		if srv != nil && ctx.Err() == nil {
			// Runs in lockstep end in seconds: the page is there to look
			// at them, the failed ones above all, after the table.
			fmt.Fprintf(env.Stderr, "studio: the runs have ended; %s shows them until interrupted (Ctrl-C)\n", srv.URL())
			<-ctx.Done()
		}
		switch {
		case err != nil:
			fmt.Fprintf(env.Stderr, "btrobot hil: %v\n", err)
			return exitFailed
		case !hil.AllPassed(cases):
			return exitFailed
		}
		return exitOK
	}
	return c
}

func hilUsage(env *cmdEnv, err error) int {
	fmt.Fprintf(env.Stderr, "btrobot hil: %v\n", err)
	return exitUsage
}
