package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

func runCommand() *command {
	c := &command{
		Name: "run",
		Args: "--tree FILE [--robot PROFILE.yaml] [--places FILE|DIR] [--master URI|auto] [--rate HZ] [--ticks N] [--quiet] " +
			"[--robot-ns NS]... [--substitute RULES.json] [--record FILE] [--groot [HOST:]PORT] [--diagnostics=false] [--transitions TOPIC] [--ui [ADDR]] [--allow-control] [ROS args: __ns:=/robot1 from:=to _tree:=FILE ...]",
		Summary: "Run a mission on a robot or the simulator until it finishes or is interrupted, showing the tree live.\n" +
			"Ctrl-C (SIGINT) or SIGTERM halts the tree and stops the robot (zero velocity on the profile's safety topic).\n" +
			"Without --tree, the files and the rate come from the node's private parameters ~tree, ~robot, ~places and\n" +
			"~rate (as roslaunch sets them; a flag wins over its parameter).\n" +
			"When the mission fails, the chain of nodes that decided it is printed, each with its reason.\n" +
			"With several --robot-ns, the mission runs on a fleet at once, one robot per namespace.\n" +
			"Exit 0 when the mission succeeds; 1 when it fails, is interrupted or cannot reach ROS; 2 on a bad tree, profile or flag.",
		Example: "btrobot sim --world worlds/office --speed 4 --master auto &\n" +
			"btrobot run --tree trees/missions/patrol.xml --robot robots/sim.yaml --places worlds/office __ns:=/robot1\n" +
			"btrobot run --tree trees/missions/fleet_patrol.xml --robot robots/sim.yaml --places worlds/office --robot-ns robot1 --robot-ns robot2",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		var s mission.Settings
		fs.StringVar(&s.Tree, "tree", "", "the mission: a BehaviorTree.CPP v4 XML file (required, unless ~tree is set)")
		fs.StringVar(&s.Robot, "robot", "", "the robot profile (YAML): inputs, outputs, actions and how to stop the robot")
		fs.StringVar(&s.Places, "places", "", "the named places trees may use (NavigateTo goal=\"kitchen\"): a places.yaml, or a world directory holding one")
		wire := fs.String("transport", ros.WireTCPROS, "the TCPROS implementation: tcpros (btrobot's own, whose every read of what a peer sends is bounded), or goroslib")
		masterURI := fs.String("master", "", "the ROS master's URI, or auto: use the one at ROS_MASTER_URI, else start one there (default: ROS_MASTER_URI)")
		fs.Float64Var(&s.Rate, "rate", 0, fmt.Sprintf("tick rate in Hz (default: the profile's, else %d)", mission.DefaultRate))
		ticks := fs.Uint64("ticks", 0, "stop after this many ticks, as if interrupted (0: no limit)")
		quiet := fs.Bool("quiet", false, "no live view: print only how the run ended")
		lockstep := fs.Bool("lockstep", false, "take part in the simulator's lockstep (btrobot sim --peers 1): the simulator waits for every tick")
		mainID := fs.String("main", "", "the tree to run (default: main_tree_to_execute)")
		seed := fs.Uint64("seed", 0, "seed of the random nodes (0: from the clock)")
		substitute := fs.String("substitute", "", "replace nodes as BehaviorTree.CPP's substitution rules in this JSON file say (test nodes or other types):\n"+
			"run a mission without some of its robot")
		var sets multiFlag
		fs.Var(&sets, "set", "set a root blackboard entry before the first tick (repeatable): key=value")
		var fleet multiFlag
		fs.Var(&fleet, "robot-ns", "run the mission on this robot namespace (repeatable): with several, on every one at once, in this\n"+
			"process, each robot with its own connection, tree, blackboard and loop; lines are prefixed with the robot's name")
		var watch mission.WatchFlags
		watch.Add(fs, true)
		var ui studio.Flags
		ui.Add(fs)
		var show multiFlag
		fs.Var(&show, "show", "a blackboard entry to show under the tree (repeatable; default: the profile's input fields)")
		pos, err := parseArgs(fs, studio.FlagArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if err := ui.Check(); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot run: %v\n", err)
			return exitUsage
		}
		rateGiven := cli.Given(fs, "rate")
		rosConf, rest, err := ros.ConfFromArgs("btrobot", pos, nil)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot run: %v\n", err)
			return exitUsage
		}
		if *wire != ros.WireGoroslib && *wire != ros.WireTCPROS {
			fmt.Fprintf(env.Stderr, "btrobot run: --transport %q: tcpros or goroslib\n", *wire)
			return exitUsage
		}
		rosConf.Wire = *wire
		if len(fleet) == 1 {
			rosConf.Namespace = fleet[0]
		}
		if len(rest) > 0 {
			fmt.Fprintf(env.Stderr, "btrobot run: unexpected argument %q (the tree is given with --tree; ROS arguments are written name:=value)\n\n", rest[0])
			fs.Usage()
			return exitUsage
		}
		if rateGiven {
			if err := mission.CheckRate(s.Rate); err != nil {
				fmt.Fprintf(env.Stderr, "btrobot run: --rate %v: %v\n", s.Rate, err)
				return exitUsage
			}
		}
		bb, err := mission.Entries(sets)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot run: --set %v\n", err)
			return exitUsage
		}

		ctx, stopSignals := interruptContext(env.Stderr)
		defer stopSignals()
		joined := false
		join := func() (int, func()) {
			joined = true
			uri, closeMaster, err := joinMaster(ctx, env, "btrobot", *masterURI, rosConf.MasterURI)
			if err != nil {
				fmt.Fprintf(env.Stderr, "btrobot run: %v\n", err)
				return exitFailed, nil
			}
			rosConf.MasterURI = uri
			return exitOK, closeMaster
		}
		if s.Tree == "" && rosConf.Params == nil && *masterURI == "" && rosConf.MasterURI == "" {
			fs.Usage() // no tree, and no ROS graph to take one from
			return exitUsage
		}
		if s.Tree == "" {
			// No --tree: the node's private parameters, as roslaunch gives them.
			code, closeMaster := join()
			if code != exitOK {
				return code
			}
			defer closeMaster()
			p, err := mission.ReadSettings(rosConf)
			if err != nil {
				fmt.Fprintf(env.Stderr, "btrobot run: no --tree, and the private parameters could not be read: %v\n\n", err)
				fs.Usage()
				return exitUsage
			}
			s = s.Fill(p, rateGiven)
			if s.Tree == "" {
				fmt.Fprintf(env.Stderr, "btrobot run: no --tree, and no private parameter %s/tree\n\n", p.Node)
				fs.Usage()
				return exitUsage
			}
		}
		if *lockstep && s.Robot == "" {
			fmt.Fprintf(env.Stderr, "btrobot run: --lockstep needs --robot: the profile says which topic carries the velocity commands\n")
			return exitUsage
		}
		m, err := mission.Load(mission.LoadConf{Tree: s.Tree, Profile: s.Robot, Places: s.Places, Main: *mainID, Substitute: *substitute})
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			return exitUsage
		}
		if !joined {
			code, closeMaster := join()
			if code != exitOK {
				return code
			}
			defer closeMaster()
		}
		keys := []string(show)
		if len(keys) == 0 {
			keys = m.InputKeys(8)
		}
		rc := mission.RunConf{
			Mission: m, ROS: rosConf, Rate: s.Rate, Blackboard: bb, Seed: *seed,
			Log: func(line string) { fmt.Fprintln(env.Stderr, line) },
		}
		watch.Apply(&rc)
		srv, err := ui.Start(env.Stderr, "btrobot run "+s.Tree)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot run: --ui: %v\n", err)
			return exitUsage
		}
		if srv != nil {
			defer srv.Close()
		}
		srv.Attach(&rc, studio.LiveConf{})
		if *lockstep {
			rc.Lockstep = &bridge.LockstepConf{}
		}
		if *ticks > 0 {
			rc.OnTick = func(_ *runtime.Tree, t runtime.TickReport) (string, bool) {
				if t.Seq >= *ticks && t.Status == runtime.Running {
					return fmt.Sprintf("stopped at the tick limit (--ticks %d) with the mission still running,", *ticks), false
				}
				return "", false
			}
		}
		if len(fleet) > 1 {
			return runFleet(ctx, env, rc, fleet, keys, *quiet)
		}
		if !*quiet {
			rc.Display = mission.LiveView(mission.LiveViewConf{Out: env.Stdout, Keys: keys})
		}
		code, _ := runMission(ctx, env, "btrobot run", rc, *quiet, stopSignals)
		return code
	}
	return c
}

// runMission runs a mission, prints how it ended (the view has, unless
// quiet) and, when it failed, the chain of nodes that decided it; it
// returns the exit code and the report.
func runMission(ctx context.Context, env *cmdEnv, who string, rc mission.RunConf, quiet bool, stopSignals func()) (int, mission.Report) {
	rep, err := mission.Run(ctx, rc)
	stopSignals() // the robot is stopped: from here a second Ctrl-C ends the program at once
	var le *mission.LoadError
	var ce *mission.ConnectError
	switch {
	case errors.As(err, &le):
		fmt.Fprintln(env.Stderr, err)
		return exitUsage, rep
	case errors.As(err, &ce):
		fmt.Fprintf(env.Stderr, "%s: %v\n(is a ROS master running there? start one with `btrobot master`, or run with --master auto)\n", who, err)
		return exitFailed, rep
	case err != nil:
		fmt.Fprintf(env.Stderr, "%s: %v\n", who, err)
		return exitFailed, rep
	}
	rep.WriteEnd(env.Stdout, quiet)
	if rep.OK() {
		return exitOK, rep
	}
	return exitFailed, rep
}
