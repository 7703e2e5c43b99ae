package main

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/studio"
)

func serveCommand() *command {
	c := &command{
		Name: "serve",
		Args: "--missions DIR [--robot PROFILE.yaml] [--places FILE|DIR] [--master URI|auto] [--preempt replace|update|queue|reject] " +
			"[--rate HZ] [--record-dir DIR] [--watch] [--groot [HOST:]PORT] [--ui [ADDR]] [--allow-control] [ROS args: __ns:=/robot1 __name:=btrobot ...]",
		Summary: "Serve the missions of a directory on a robot: goals of the ExecuteMission action (btrobot_msgs, ~execute) run them\n" +
			"one at a time, with feedback and a result that says why; ~list, ~reload, ~pause and ~resume are services.\n" +
			"Every tree file of DIR is loaded and validated first: on any problem the server does not start and every problem is\n" +
			"listed (file:line:col). A goal names a tree ID of DIR (or a file), with a payload: a YAML map written into the\n" +
			"mission's blackboard, each value typed by the port it feeds. A goal that comes while a mission runs replaces it,\n" +
			"updates it (same mission: its payload is written into the running blackboard), waits (at most 16) or is rejected,\n" +
			"as --preempt or the goal's own preempt says. A cancel halts the mission and stops the robot (zero velocity).\n" +
			"--watch reloads the missions when a file changes. The server's state is on /diagnostics.\n" +
			"--ui serves the studio: each goal's tree live, and the server itself (idle, running or paused, the queue, the last\n" +
			"100 goals with their outcomes and recordings), also as JSON at /api/server; --allow-control adds pause, resume, cancel.\n" +
			"Under roslaunch the settings may be private parameters instead: ~missions, ~robot, ~places, ~preempt, ~rate,\n" +
			"~record_dir, ~watch (a flag given on the command line wins over its parameter).\n" +
			"Ctrl-C (SIGINT) or SIGTERM halts the running mission, stops the robot and ends the server.\n" +
			"Exit 0 when interrupted; 1 when it cannot reach ROS or loses it; 2 on a bad tree, profile or flag.",
		Example: "btrobot sim --world worlds/office --master auto &\n" +
			"btrobot serve --missions trees/missions --robot robots/sim.yaml --places worlds/office __ns:=/robot1\n" +
			"rosservice call /robot1/btrobot/list",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		var st executor.Settings
		fs.StringVar(&st.Missions, "missions", "", "the directory of mission trees: every *.xml file in it (required, here or as ~missions)")
		fs.StringVar(&st.Robot, "robot", "", "the robot profile (YAML): inputs, outputs, actions and how to stop the robot")
		fs.StringVar(&st.Places, "places", "", "the named places trees may use: a places.yaml, or a world directory holding one")
		masterURI := fs.String("master", "", "the ROS master's URI, or auto: use the one at ROS_MASTER_URI, else start one there (default: ROS_MASTER_URI)")
		fs.StringVar(&st.Preempt, "preempt", "replace", "what a goal does to the running mission when it names no preempt: replace, update, queue or reject")
		fs.Float64Var(&st.Rate, "rate", 0, fmt.Sprintf("tick rate in Hz (default: the profile's, else %d)", mission.DefaultRate))
		fs.StringVar(&st.RecordDir, "record-dir", "", "record every goal's run to a .db3 file in this directory (the result names it)")
		var grootHost string
		var grootPort int
		fs.Func("groot", "serve the running goal's tree to Groot2 on `[HOST:]PORT` (REP; PUB on the next; 1667 is Groot2's own), across goals:\n"+
			"each goal's tree replaces the one shown (Groot2 reloads), a tree \"Idle\" naming the last result between goals;\n"+
			"PORT alone listens on loopback only. While a breakpoint holds the tree, the robot is stopped", func(v string) error {
			host, n, err := mission.ParseGrootAddr(v)
			if err != nil {
				return err
			}
			if err := mission.CheckWatchers("", n); err != nil {
				return err
			}
			grootHost, grootPort = host, n
			return nil
		})
		fs.BoolVar(&st.Watch, "watch", false, "reload the missions when a file they were read from changes (validated as ~reload; a refused reload is logged and on /diagnostics)")
		ui := studio.Flags{Follow: true}
		ui.Add(fs)
		pos, err := parseArgs(fs, studio.FlagArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.Check(); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot serve: %v\n", err)
			return exitUsage
		}
		fail := func(code int, err error) int { fmt.Fprintf(env.Stderr, "btrobot serve: %v\n", err); return code }
		rosConf, rest, err := ros.ConfFromArgs("btrobot", pos, nil)
		if err != nil {
			return fail(exitUsage, err)
		}
		if len(rest) > 0 {
			fmt.Fprintf(env.Stderr, "btrobot serve: unexpected argument %q (the missions are given with --missions; ROS arguments are written name:=value)\n\n", rest[0])
			fs.Usage()
			return exitUsage
		}
		if st.Missions == "" && rosConf.Params == nil && *masterURI == "" && rosConf.MasterURI == "" {
			fs.Usage() // no missions, and no ROS graph to take them from
			return exitUsage
		}
		if _, err := executor.ParsePreempt(st.Preempt, executor.Replace); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot serve: --preempt: %v\n", err)
			return exitUsage
		}
		if flagGiven(fs, "rate") {
			if err := mission.CheckRate(st.Rate); err != nil {
				fmt.Fprintf(env.Stderr, "btrobot serve: --rate %v: %v\n", st.Rate, err)
				return exitUsage
			}
		}
		var cat *executor.Catalog // loaded before joining the graph: a bad tree is found at once
		if st.Missions != "" {
			if cat, err = executor.LoadCatalog(executor.CatalogConf{Dir: st.Missions, Profile: st.Robot, Places: st.Places}); err != nil {
				fmt.Fprintln(env.Stderr, err)
				return exitUsage
			}
		}
		ctx, stopSignals := interruptContext(env.Stderr)
		defer stopSignals()
		uri, closeMaster, err := joinMaster(ctx, env, "btrobot serve", *masterURI, rosConf.MasterURI)
		if err != nil {
			return fail(exitFailed, err)
		}
		defer closeMaster()
		rosConf.MasterURI = uri
		rosConf.OnLog = ros.LogTo(env.Stderr)
		conn, err := ros.Connect(rosConf)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot serve: %v\n(is a ROS master running there? start one with `btrobot master`, or run with --master auto)\n", err)
			return exitFailed
		}
		defer conn.Close()
		ec := executor.Conf{Conn: conn, Log: func(line string) { fmt.Fprintln(env.Stderr, line) }, Groot: grootPort, GrootHost: grootHost}
		var page *studio.Server
		if ui.Addr != "" {
			// The studio follows the goals: each is a run of its own,
			// named by its mission and goal, and the page opens the
			// newest as it comes.
			page, err = ui.Start(env.Stderr, "btrobot serve")
			if err != nil {
				fmt.Fprintf(env.Stderr, "btrobot serve: --ui: %v\n", err)
				return exitUsage
			}
			defer page.Close()
			ec.Show = func(name string) func(mission.Shown) mission.Debugger {
				return page.Debugger(studio.LiveConf{Name: name})
			}
			// The server itself in a panel: its state, queue and
			// goals' history, live (page.ShowServer below).
			ec.Changed = page.ServerChanged
		}
		// The private parameters (roslaunch's <param>, _missions:=...)
		// give what no flag did.
		srv, err := executor.Start(ec,
			st, func(name string) bool { return flagGiven(fs, name) }, cat)
		if bad := (*executor.SettingsError)(nil); errors.As(err, &bad) {
			fail(exitUsage, err)
			if errors.Is(err, executor.ErrNoMissions) {
				fs.Usage()
			}
			return exitUsage
		}
		if err != nil {
			return fail(exitFailed, err)
		}
		if page != nil {
			if err := page.ShowServer(studio.ServerFrom(srv)); err != nil {
				srv.Close()
				return fail(exitFailed, err)
			}
		}
		fmt.Fprintln(env.Stdout, "btrobot serve: "+srv.Describe())
		code := exitOK
		select {
		case <-ctx.Done():
		case <-conn.Lost():
			fmt.Fprintf(env.Stderr, "btrobot serve: lost ROS: %v\n", conn.Err())
			code = exitFailed
		}
		srv.Close()
		fmt.Fprintln(env.Stdout, "btrobot serve: stopped")
		return code
	}
	return c
}
