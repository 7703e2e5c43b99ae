package main

import (
	"fmt"
	"strings"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
)

func serveCommand() *command {
	c := &command{
		name: "serve",
		args: "--missions DIR [--robot PROFILE.yaml] [--places FILE|DIR] [--master URI|auto] [--preempt replace|update|queue|reject] " +
			"[--rate HZ] [--record-dir DIR] [--watch] [ROS args: __ns:=/robot1 __name:=btrobot ...]",
		summary: "Serve the missions of a directory on a robot: goals of the ExecuteMission action (btrobot_msgs, ~execute) run them\n" +
			"one at a time, with feedback and a result that says why; ~list, ~reload, ~pause and ~resume are services.\n" +
			"Every tree file of DIR is loaded and validated first: on any problem the server does not start and every problem is\n" +
			"listed (file:line:col). A goal names a tree ID of DIR (or a file), with a payload: a YAML map written into the\n" +
			"mission's blackboard, each value typed by the port it feeds. A goal that comes while a mission runs replaces it,\n" +
			"updates it (same mission: its payload is written into the running blackboard), waits (at most 16) or is rejected,\n" +
			"as --preempt or the goal's own preempt says. A cancel halts the mission and stops the robot (zero velocity).\n" +
			"--watch reloads the missions when a file changes. The server's state is on /diagnostics.\n" +
			"Under roslaunch the settings may be private parameters instead: ~missions, ~robot, ~places, ~preempt, ~rate,\n" +
			"~record_dir, ~watch (a flag given on the command line wins over its parameter).\n" +
			"Ctrl-C (SIGINT) or SIGTERM halts the running mission, stops the robot and ends the server.\n" +
			"Exit 0 when interrupted; 1 when it cannot reach ROS or loses it; 2 on a bad tree, profile or flag.",
		example: "btrobot sim --world worlds/office --master auto &\n" +
			"btrobot serve --missions trees/missions --robot robots/sim.yaml --places worlds/office __ns:=/robot1\n" +
			"rosservice call /robot1/btrobot/list",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		var st executor.Settings
		fs.StringVar(&st.Missions, "missions", "", "the directory of mission trees: every *.xml file in it (required, here or as ~missions)")
		fs.StringVar(&st.Robot, "robot", "", "the robot profile (YAML): inputs, outputs, actions and how to stop the robot")
		fs.StringVar(&st.Places, "places", "", "the named places trees may use: a places.yaml, or a world directory holding one")
		masterURI := fs.String("master", "", "the ROS master's URI, or auto: use the one at ROS_MASTER_URI, else start one there (default: ROS_MASTER_URI)")
		fs.StringVar(&st.Preempt, "preempt", "replace", "what a goal does to the running mission when it names no preempt: replace, update, queue or reject")
		fs.Float64Var(&st.Rate, "rate", 0, fmt.Sprintf("tick rate in Hz (default: the profile's, else %d)", mission.DefaultRate))
		fs.StringVar(&st.RecordDir, "record-dir", "", "record every goal's run to a .db3 file in this directory (the result names it)")
		fs.BoolVar(&st.Watch, "watch", false, "reload the missions when a file they were read from changes (validated as ~reload; a refused reload is logged and on /diagnostics)")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		rosConf, rest, err := ros.ConfFromArgs("btrobot", pos, nil)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot serve: %v\n", err)
			return exitUsage
		}
		if len(rest) > 0 {
			fmt.Fprintf(env.stderr, "btrobot serve: unexpected argument %q (the missions are given with --missions; ROS arguments are written name:=value)\n\n", rest[0])
			fs.Usage()
			return exitUsage
		}
		if st.Missions == "" && rosConf.Params == nil && *masterURI == "" && rosConf.MasterURI == "" {
			fs.Usage() // no missions, and no ROS graph to take them from
			return exitUsage
		}
		given := func(name string) bool { return flagGiven(fs, name) }
		if _, err := executor.ParsePreempt(st.Preempt, executor.Replace); err != nil {
			fmt.Fprintf(env.stderr, "btrobot serve: --preempt: %v\n", err)
			return exitUsage
		}
		if given("rate") {
			if err := mission.CheckRate(st.Rate); err != nil {
				fmt.Fprintf(env.stderr, "btrobot serve: --rate %v: %v\n", st.Rate, err)
				return exitUsage
			}
		}
		var cat *executor.Catalog
		loadCatalog := func() bool {
			cat, err = executor.LoadCatalog(executor.CatalogConf{Dir: st.Missions, Profile: st.Robot, Places: st.Places})
			if err != nil {
				fmt.Fprintln(env.stderr, err)
				return false
			}
			return true
		}
		if st.Missions != "" && !loadCatalog() {
			return exitUsage // before joining the graph: a bad tree is found at once
		}
		ctx, stopSignals := interruptContext(env.stderr)
		defer stopSignals()
		uri, closeMaster, err := joinMaster(ctx, env, "btrobot serve", *masterURI, rosConf.MasterURI)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot serve: %v\n", err)
			return exitFailed
		}
		defer closeMaster()
		rosConf.MasterURI = uri
		rosConf.OnLog = func(level ros.LogLevel, msg string) {
			if level >= ros.LogWarn {
				fmt.Fprintln(env.stderr, msg)
			}
		}
		conn, err := ros.Connect(rosConf)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot serve: %v\n(is a ROS master running there? start one with `btrobot master`, or run with --master auto)\n", err)
			return exitFailed
		}
		defer conn.Close()
		// The private parameters (roslaunch's <param>, _missions:=...)
		// give what no flag did.
		params, err := executor.ReadSettings(conn)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot serve: %v\n", err)
			return exitUsage
		}
		flags := st
		st = st.Fill(params, given)
		if st.Missions == "" {
			fmt.Fprintf(env.stderr, "btrobot serve: no --missions, and no private parameter %s\n\n", conn.Resolve("~missions"))
			fs.Usage()
			return exitUsage
		}
		if cat == nil || st.Robot != flags.Robot || st.Places != flags.Places {
			if !loadCatalog() {
				return exitUsage
			}
		}
		policy, _ := executor.ParsePreempt(st.Preempt, executor.Replace) // checked: the flag above, the parameter by ReadSettings
		srv, err := executor.New(executor.Conf{
			Conn: conn, Catalog: cat, Preempt: policy, Rate: st.Rate, RecordDir: st.RecordDir, Watch: st.Watch,
			Log: func(line string) { fmt.Fprintln(env.stderr, line) },
		})
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot serve: %v\n", err)
			return exitFailed
		}
		watching := ""
		if st.Watch {
			watching = " (watched)"
		}
		fmt.Fprintf(env.stdout, "btrobot serve: %d missions of %s%s (%s), preempt %s, on %s: action %s, services %s\n",
			len(cat.IDs()), st.Missions, watching, strings.Join(cat.IDs(), ", "), policy, conn.MasterURI(), conn.Resolve("~execute"),
			strings.Join([]string{conn.Resolve("~list"), conn.Resolve("~reload"), conn.Resolve("~pause"), conn.Resolve("~resume")}, ", "))
		code := exitOK
		select {
		case <-ctx.Done():
		case <-conn.Lost():
			fmt.Fprintf(env.stderr, "btrobot serve: lost ROS: %v\n", conn.Err())
			code = exitFailed
		}
		srv.Close()
		fmt.Fprintln(env.stdout, "btrobot serve: stopped")
		return code
	}
	return c
}
