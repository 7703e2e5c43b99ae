package main

import (
	"fmt"
	"math"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

func simCommand() *command {
	c := &command{
		Name: "sim",
		Args: "[--world worlds/office] [--robots N] [--speed X] [--master URI|auto] [--seed N] [--render FILE.png|.svg]... " +
			"[--duration D] [--peers N] [--no-namespace] [ROS args: __name:=sim ...]",
		Summary: "Run the simulated world as a ROS node: robots under /robot1.../robotN with odom, scan, battery_state, " +
			"bumper, tf, move_base, dock and undock, /clock when it owns time, and fault injection under /sim. " +
			"It renders the run to the --render files at the end, on SIGUSR1 and on the /sim/render service.",
		Example: "btrobot sim --world worlds/office --robots 2 --speed 10 --master auto --render run.png\n" +
			"rostopic pub -r 10 /robot1/cmd_vel geometry_msgs/Twist '{linear: {x: 0.3}}'",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		worldPath := fs.String("world", "worlds/office", "the world: a directory with places.yaml and its map, or a map_server YAML file")
		robots := fs.Int("robots", 1, "how many robots, robot1..robotN, each at the spawn pose of its name")
		speed := fs.Float64("speed", 1, "simulated seconds per wall second; 0 runs as fast as the lockstep peers allow")
		masterURI := fs.String("master", "", "the ROS master's URI, or auto: use the one at ROS_MASTER_URI, else start one there (default: ROS_MASTER_URI)")
		seed := fs.Uint64("seed", 0, "seed of every random draw (odometry noise, wheel slip, laser noise)")
		var renders multiFlag
		fs.Var(&renders, "render", "write a picture of the run (trajectories, goals, docks) to this .png or .svg file at the end (repeatable)")
		duration := fs.Duration("duration", 0, "stop after this much simulated time (default: run until interrupted)")
		peers := fs.Int("peers", 0, "lockstep peers to wait for before time starts (see docs/simulator.md)")
		noNamespace := fs.Bool("no-namespace", false, "serve a single robot without namespace: /cmd_vel, /odom, frames odom and base_link")
		odomNoise := fs.Float64("odom-noise", 0, "standard deviation of the wheel encoders' error, as a fraction of the wheel speed")
		wheelSlip := fs.Float64("wheel-slip", 0, "largest fraction of a wheel's travel lost on the ground per step")
		laserNoise := fs.Float64("laser-noise", 0, "standard deviation of the laser's range noise in metres")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		rosConf, rest, err := ros.ConfFromArgs("sim", pos, nil)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot sim: %v\n", err)
			return exitUsage
		}
		var problems []string
		if len(rest) > 0 {
			problems = append(problems, fmt.Sprintf("unexpected arguments %q (ROS arguments are written name:=value)", rest))
		}
		if *robots < 1 {
			problems = append(problems, fmt.Sprintf("--robots %d: want at least 1", *robots))
		}
		if *noNamespace && *robots != 1 {
			problems = append(problems, fmt.Sprintf("--no-namespace serves one robot, not %d", *robots))
		}
		if !(*speed >= 0) || math.IsInf(*speed, 0) {
			problems = append(problems, fmt.Sprintf("--speed %v: want 0 (as fast as possible) or a positive factor of real time", *speed))
		}
		if *duration < 0 || *peers < 0 {
			problems = append(problems, "--duration and --peers cannot be negative")
		}
		for _, r := range renders {
			if l := strings.ToLower(r); !strings.HasSuffix(l, ".png") && !strings.HasSuffix(l, ".svg") {
				problems = append(problems, fmt.Sprintf("--render %s: the file name must end in .png or .svg", r))
			}
		}
		if len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintf(env.Stderr, "btrobot sim: %s\n", p)
			}
			return exitUsage
		}
		w, err := sim.LoadWorld(*worldPath, sim.WorldConf{Seed: *seed})
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot sim: %v\n", err)
			return exitUsage
		}
		if _, err := simnode.AddRobots(w, *robots, sim.RobotConf{OdomNoise: *odomNoise, WheelSlip: *wheelSlip,
			Laser: sim.LaserConf{Noise: *laserNoise}}); err != nil {
			fmt.Fprintf(env.Stderr, "btrobot sim: world %s: %v\n", *worldPath, err)
			return exitUsage
		}

		ctx, stop := interruptContext(env.Stderr)
		defer stop()
		uri, closeMaster, err := joinMaster(ctx, env, "btrobot sim", *masterURI, rosConf.MasterURI)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot sim: %v\n", err)
			return exitFailed
		}
		defer closeMaster()
		rosConf.MasterURI = uri
		conn, err := ros.Connect(rosConf)
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot sim: %v\n(is a ROS master running there? start one with `btrobot master`, or run with --master auto)\n", err)
			return exitFailed
		}
		defer conn.Close()
		var out sync.Mutex // events come from the node's goroutines
		node, err := simnode.Start(simnode.Conf{
			World: w, Conn: conn, RootNamespace: *noNamespace, Speed: *speed, Peers: *peers, Until: *duration,
			Render: renders,
			OnEvent: func(at time.Duration, line string) {
				out.Lock()
				fmt.Fprintf(env.Stdout, "%10.3fs  %s\n", at.Seconds(), line)
				out.Unlock()
			},
		})
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot sim: %v\n", err)
			return exitUsage
		}
		pace := fmt.Sprintf("at %g times real time", *speed)
		if *speed == 0 {
			pace = "as fast as possible"
		}
		out.Lock()
		fmt.Fprintf(env.Stdout, "btrobot sim: %d robot(s) in %s, %s, node %s on %s\n", *robots, *worldPath, pace, conn.Name(), uri)
		if len(renders) > 0 {
			fmt.Fprintf(env.Stdout, "btrobot sim: rendering to %s at the end, on %s and on SIGUSR1\n", strings.Join(renders, ", "), conn.Resolve("~render"))
		}
		out.Unlock()

		usr1 := make(chan os.Signal, 1)
		if s := cli.UserSignal(); s != nil {
			signal.Notify(usr1, s)
			defer signal.Stop(usr1)
		}
		code := exitOK
	wait:
		for {
			select {
			case <-ctx.Done():
				break wait
			case <-node.Done():
				break wait
			case <-usr1:
				simRender(env, &out, node, renders)
			}
		}
		if len(renders) > 0 && simRender(env, &out, node, renders) != nil {
			code = exitFailed
		}
		st := node.Stats()
		node.Close()
		out.Lock()
		defer out.Unlock()
		simnode.WriteSummary(env.Stdout, st, w)
		return code
	}
	return c
}

// simRender writes the pictures and says where.
func simRender(env *cmdEnv, out *sync.Mutex, node *simnode.Node, files []string) error {
	if len(files) == 0 {
		out.Lock()
		fmt.Fprintln(env.Stderr, "btrobot sim: nothing to render to; give --render FILE")
		out.Unlock()
		return nil
	}
	written, err := node.Render()
	out.Lock()
	defer out.Unlock()
	if err != nil {
		fmt.Fprintf(env.Stderr, "btrobot sim: %v\n", err)
		return err
	}
	fmt.Fprintf(env.Stdout, "btrobot sim: rendered %s\n", strings.Join(written, ", "))
	return nil
}
