package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/skills"
	"github.com/btrobot/btrobot/trees"
)

// defaultRunRate is the tick rate of a tree run without a profile or --rate.
const defaultRunRate = 10

// haltGrace is how long the connection stays open after the tree was
// halted, for the goal cancels the halt sent to reach their servers.
const haltGrace = 200 * time.Millisecond

func runCommand() *command {
	c := &command{
		name: "run",
		args: "--tree FILE [--robot PROFILE.yaml] [--places FILE|DIR] [--master URI|auto] [--rate HZ] [--ticks N] [--quiet] " +
			"[ROS args: __ns:=/robot1 from:=to ...]",
		summary: "Run a mission on a robot or the simulator until it finishes or is interrupted, showing the tree live.\n" +
			"Ctrl-C (SIGINT) or SIGTERM halts the tree and stops the robot (zero velocity on the profile's safety topic).\n" +
			"Exit 0 when the mission succeeds; 1 when it fails, is interrupted or cannot reach ROS; 2 on a bad tree, profile or flag.",
		example: "btrobot sim --world worlds/office --speed 4 --master auto &\n" +
			"btrobot run --tree trees/missions/patrol.xml --robot robots/sim.yaml --places worlds/office __ns:=/robot1",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		treePath := fs.String("tree", "", "the mission: a BehaviorTree.CPP v4 XML file (required)")
		robot := fs.String("robot", "", "the robot profile (YAML): inputs, outputs, actions and how to stop the robot")
		placesPath := fs.String("places", "", "the named places trees may use (NavigateTo goal=\"kitchen\"): a places.yaml, or a world directory holding one")
		masterURI := fs.String("master", "", "the ROS master's URI, or auto: use the one at ROS_MASTER_URI, else start one there (default: ROS_MASTER_URI)")
		rate := fs.Float64("rate", 0, fmt.Sprintf("tick rate in Hz (default: the profile's, else %d)", defaultRunRate))
		ticks := fs.Uint64("ticks", 0, "stop after this many ticks, as if interrupted (0: no limit)")
		quiet := fs.Bool("quiet", false, "no live view: print only how the run ended")
		lockstep := fs.Bool("lockstep", false, "take part in the simulator's lockstep (btrobot sim --peers 1): the simulator waits for every tick")
		mainID := fs.String("main", "", "the tree to run (default: main_tree_to_execute)")
		seed := fs.Uint64("seed", 0, "seed of the random nodes (0: from the clock)")
		var sets multiFlag
		fs.Var(&sets, "set", "set a root blackboard entry before the first tick (repeatable): key=value")
		var show multiFlag
		fs.Var(&show, "show", "a blackboard entry to show under the tree (repeatable; default: the profile's input fields)")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		rosConf, rest, err := ros.ConfFromArgs("btrobot", pos, nil)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot run: %v\n", err)
			return exitUsage
		}
		if len(rest) > 0 || *treePath == "" || !(*rate >= 0) || math.IsInf(*rate, 0) || *lockstep && *robot == "" {
			switch {
			case len(rest) > 0:
				fmt.Fprintf(env.stderr, "btrobot run: unexpected argument %q (the tree is given with --tree; ROS arguments are written name:=value)\n\n", rest[0])
			case *lockstep && *robot == "":
				fmt.Fprintf(env.stderr, "btrobot run: --lockstep needs --robot: the profile says which topic carries the velocity commands\n\n")
			}
			fs.Usage()
			return exitUsage
		}
		m, ok := loadMission(env, *treePath, *robot, *placesPath, *mainID)
		if !ok {
			return exitUsage
		}
		bb, err := entriesFromFlags(sets)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot run: %v\n", err)
			return exitUsage
		}

		ctx, interrupted := interruptContext()
		defer interrupted.stop()
		uri, closeMaster, err := joinMaster(ctx, env, *masterURI, rosConf.MasterURI)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot run: %v\n", err)
			return exitFailed
		}
		defer closeMaster()
		rosConf.MasterURI = uri

		keys := []string(show)
		if len(keys) == 0 {
			keys = profileKeys(m.profile)
		}
		r := &missionRun{
			env: env, mission: m, rosConf: rosConf, blackboard: bb, seed: *seed,
			rate: *rate, tickLimit: *ticks, quiet: *quiet, keys: keys, lockstep: *lockstep,
		}
		return r.run(ctx, interrupted)
	}
	return c
}

// mission is a tree, a robot profile and the world's places, loaded and
// checked.
type mission struct {
	treeFile string
	doc      *runtime.Document
	main     string
	profile  *ros.Profile // nil: a tree with no robot attached
	places   *sim.Places  // nil: no named places
}

// loadMission reads the tree, the profile and the places and checks the
// tree against the palette, the profile's action and service names and the
// place names, printing every problem (file:line:col) at once. false means
// bad input.
func loadMission(env *cmdEnv, treeFile, profileFile, placesPath, mainID string) (*mission, bool) {
	m := &mission{treeFile: treeFile, main: mainID}
	ok := true
	doc, err := trees.Load(treeFile)
	if err != nil {
		printProblems(env, err)
		ok = false
	}
	if profileFile != "" {
		if m.profile, err = ros.LoadProfile(profileFile); err != nil {
			printProblems(env, err)
			ok = false
		}
	}
	if placesPath != "" {
		if m.places, err = loadPlaces(placesPath); err != nil {
			printProblems(env, err)
			ok = false
		}
	}
	if doc == nil {
		return nil, false
	}
	// The tree is checked even when the profile or the places are bad,
	// against what could be read, so that one pass reports everything.
	m.doc = doc
	d := robotDeps{profile: m.profile}
	if m.places != nil {
		d.places = skillPlaces(m.places)
	}
	reg, err := paletteFor(d)
	if err != nil {
		printProblems(env, err)
		return nil, false
	}
	if err := runtime.Check(reg, doc, runtime.BuildConf{Main: mainID}); err != nil {
		printProblems(env, err)
		return nil, false
	}
	return m, ok
}

// loadPlaces reads a places.yaml, or the one in a world's directory.
func loadPlaces(path string) (*sim.Places, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "places.yaml")
	}
	return sim.LoadPlaces(path)
}

// printProblems prints an error, one problem a line.
func printProblems(env *cmdEnv, err error) {
	var le *trees.LoadError
	var list runtime.ErrorList
	switch {
	case errors.As(err, &le):
		for _, e := range le.Errs {
			fmt.Fprintln(env.stderr, e)
		}
	case errors.As(err, &list):
		for _, e := range list {
			fmt.Fprintln(env.stderr, e)
		}
	default:
		fmt.Fprintln(env.stderr, err)
	}
}

// entriesFromFlags makes the root blackboard from --set key=value flags.
func entriesFromFlags(sets []string) (*runtime.Blackboard, error) {
	if len(sets) == 0 {
		return nil, nil
	}
	bb := runtime.NewBlackboard(nil)
	for _, kv := range sets {
		k, v, err := cliEntry(kv)
		if err == nil {
			err = bb.Set(k, v)
		}
		if err != nil {
			return nil, fmt.Errorf("--set %s: %v", kv, err)
		}
	}
	return bb, nil
}

// profileKeys are the blackboard entries shown by default: the fields the
// profile's inputs write (battery_pct, x, y...), at most eight.
func profileKeys(p *ros.Profile) []string {
	if p == nil {
		return nil
	}
	var keys []string
	for _, in := range p.Inputs {
		for _, f := range in.Fields {
			if len(keys) < 8 {
				keys = append(keys, f.Key)
			}
		}
	}
	return keys
}

// joinMaster returns the master URI to use: --master's, else the one from
// the environment and ROS arguments. With --master auto, a master that
// answers there is used, else btrobot's own is started in its place; the
// returned function stops it.
func joinMaster(ctx context.Context, env *cmdEnv, flagURI, envURI string) (string, func(), error) {
	uri := envURI
	if uri == "" {
		uri = ros.DefaultMasterURI
	}
	nothing := func() {}
	switch flagURI {
	case "":
		return uri, nothing, nil
	case "auto":
	default:
		return flagURI, nothing, nil
	}
	if master.Probe(ctx, uri) == nil {
		return uri, nothing, nil
	}
	got, closer, err := master.Auto(ctx, uri)
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintf(env.stderr, "btrobot: no ROS master answered at %s; started btrobot's own at %s\n", uri, got)
	return got, func() { closer() }, nil
}

// interruption records what ended a run early: a signal, or a stop from
// inside (a tick limit, the demo's rounds).
type interruption struct {
	stop   func()
	cancel context.CancelFunc
	signal atomic.Value // os.Signal
	cause  atomic.Value // string
	done   atomic.Bool  // the stop from inside is the run's success
}

// interruptContext returns a context that SIGINT and SIGTERM cancel. After
// the first signal the default handling is back, so a second Ctrl-C ends
// the program at once if stopping ever hangs.
func interruptContext() (context.Context, *interruption) {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interruption{cancel: cancel}
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var once sync.Once
	in.stop = func() {
		once.Do(func() {
			signal.Stop(sigc)
			close(done)
			cancel()
		})
	}
	go func() {
		select {
		case s := <-sigc:
			in.signal.Store(s)
			signal.Stop(sigc)
			cancel()
		case <-done:
		}
	}()
	return ctx, in
}

// stopWith ends the run from inside; success says the run did what it was
// asked (the demo's rounds), else it counts as interrupted.
func (in *interruption) stopWith(cause string, success bool) {
	if in.cause.CompareAndSwap(nil, cause) {
		in.done.Store(success)
	}
	in.cancel()
}

// why says what stopped a cancelled run.
func (in *interruption) why() string {
	if s, ok := in.signal.Load().(os.Signal); ok {
		name := "SIGINT"
		if s == syscall.SIGTERM {
			name = "SIGTERM"
		}
		return "interrupted by " + name
	}
	if c, ok := in.cause.Load().(string); ok {
		return c
	}
	return "interrupted"
}

// missionRun is one run of a mission on a ROS graph: the command line's,
// or the demo's.
type missionRun struct {
	env        *cmdEnv
	mission    *mission
	rosConf    ros.Conf
	blackboard *runtime.Blackboard
	seed       uint64
	rate       float64
	tickLimit  uint64
	quiet      bool
	keys       []string
	// lockstep makes the tree a lockstep peer of the simulator; holdSim
	// keeps the simulator at the run's end until the connection closes.
	lockstep, holdSim bool
	// headless writes plain lines even to a terminal.
	headless bool
	// title overrides the view's first line.
	title string
	// odomOrigin, when set, is the odom frame's origin in the map frame;
	// otherwise the spawn pose named like the robot in the places.
	odomOrigin *skills.Pose
	// onTick, when set, is called after every tick on the tick's
	// goroutine; the demo counts its rounds there.
	onTick func(*runtime.Tree, runtime.TickReport)
	// viewLog, when set, receives a function that shows a line in the
	// live view (or prints it), from any goroutine.
	viewLog func(func(string))

	report ros.RunReport
	wall   time.Duration
	tree   *runtime.Tree
}

// run connects, builds the tree, runs it under the live view until it
// ends, and returns the exit code.
func (r *missionRun) run(ctx context.Context, in *interruption) int {
	env, m := r.env, r.mission
	var view atomic.Pointer[liveView]
	var early sync.Mutex
	show := func(line string) {
		if v := view.Load(); v != nil {
			v.Log(line)
			return
		}
		early.Lock() // before the view exists, and with --quiet
		fmt.Fprintln(env.stderr, line)
		early.Unlock()
	}
	if r.viewLog != nil {
		r.viewLog(show)
	}
	r.rosConf.OnLog = func(level ros.LogLevel, msg string) {
		if level >= ros.LogWarn {
			show(logWord(level) + ": " + msg)
		}
	}
	conn, err := ros.Connect(r.rosConf)
	if err != nil {
		fmt.Fprintf(env.stderr, "btrobot run: %v\n(is a ROS master running there? start one with `btrobot master`, or run with --master auto)\n", err)
		return exitFailed
	}
	defer conn.Close()
	d := robotDeps{conn: conn, profile: m.profile}
	if m.places != nil {
		d.places = skillPlaces(m.places)
		if sp, ok := m.places.Spawn(robotName(conn)); ok {
			// The simulator's odometry starts at the robot's spawn pose.
			d.odomOrigin = skills.Pose(sp.Pose)
		}
	}
	if r.odomOrigin != nil {
		d.odomOrigin = *r.odomOrigin
	}
	d.log = func(e skills.LogEntry) {
		if v := view.Load(); v != nil {
			v.NodeLog(e.Time, e.Level.String(), e.Node, e.Text)
			return
		}
		show(e.Level.String() + " " + e.Node + ": " + e.Text)
	}
	reg, err := paletteFor(d)
	if err != nil {
		printProblems(env, err)
		return exitUsage
	}
	tree, err := runtime.Build(reg, m.doc, runtime.BuildConf{Main: m.main, Clock: conn.Clock(), Seed: r.seed, Blackboard: r.blackboard})
	if err != nil {
		printProblems(env, err)
		return exitUsage
	}
	r.tree = tree
	rate := r.rate
	if rate <= 0 && m.profile != nil {
		rate = m.profile.Rate
	}
	if rate <= 0 {
		rate = defaultRunRate
	}

	var v *liveView
	if !r.quiet {
		cols, rows, isTerm := terminalSize(env.stdout)
		isTerm = isTerm && !r.headless && os.Getenv("TERM") != "dumb"
		title := r.title
		if title == "" {
			title = runTitle(m, conn)
		}
		v = newLiveView(liveViewConf{
			Out: env.stdout, Tree: tree, Registry: reg, Title: title,
			Terminal: isTerm, Color: isTerm && os.Getenv("NO_COLOR") == "",
			Size: func() (int, int) {
				if c, rw, ok := terminalSize(env.stdout); ok {
					return c, rw
				}
				return cols, rows
			},
			Rate: rate, SimTime: conn.SimClock() != nil, Keys: r.keys,
		})
		tree.Observe(v)
		view.Store(v)
		v.Start()
	}
	runConf := ros.RunConf{
		Conn: conn, Tree: tree, Profile: m.profile, Rate: rate, UntilDone: true,
		Observe: func(t runtime.TickReport) {
			if v != nil {
				v.OnTick(t)
			}
			if r.onTick != nil {
				r.onTick(tree, t)
			}
			if r.tickLimit > 0 && t.Seq >= r.tickLimit && t.Status == runtime.Running {
				in.stopWith(fmt.Sprintf("stopped at the tick limit (--ticks %d) with the mission still running,", r.tickLimit), false)
			}
		},
	}
	start := time.Now()
	var rep ros.RunReport
	if r.lockstep {
		runConf.Lockstep = &ros.LockstepConf{Hold: r.holdSim}
	}
	rep, err = ros.Run(ctx, runConf)
	r.report, r.wall = rep, time.Since(start)
	in.stop() // from here a second Ctrl-C ends the program at once
	// The halt cancelled the running goals in the background: give the
	// cancels time to leave before the connection closes, or move_base
	// drives on after the zero velocity.
	time.Sleep(haltGrace)

	stopped := rep.Stop.String()
	took := fmt.Sprintf("%d %s (%s)", rep.Stats.Ticks, plural(int(rep.Stats.Ticks), "tick", "ticks"), r.wall.Round(time.Millisecond))
	var end string
	code := exitFailed
	switch {
	case err == nil && rep.Status == runtime.Success:
		end, code = "mission succeeded after "+took+"; "+stopped, exitOK
	case err == nil:
		end = "mission failed after " + took + "; " + stopped
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		end = fmt.Sprintf("%s after %s: tree halted; %s", in.why(), took, stopped)
		if in.done.Load() {
			code = exitOK
		}
	default:
		end = fmt.Sprintf("mission aborted after %s: %v; tree halted; %s", took, err, stopped)
	}
	if v != nil {
		v.Close(end)
	} else {
		fmt.Fprintln(env.stdout, end)
	}
	return code
}

// robotName is the last element of the connection's namespace, else its
// node name: robot1 for /robot1/btrobot.
func robotName(c *ros.Conn) string {
	ns := strings.Trim(c.Namespace(), "/")
	if i := strings.LastIndex(ns, "/"); i >= 0 {
		ns = ns[i+1:]
	}
	if ns != "" {
		return ns
	}
	return strings.TrimPrefix(c.Name(), "/")
}

// runTitle is the live view's first line.
func runTitle(m *mission, conn *ros.Conn) string {
	parts := []string{"btrobot run " + filepath.Base(m.treeFile)}
	if m.profile != nil {
		robot := m.profile.Robot
		if robot == "" {
			robot = filepath.Base(m.profile.File)
		}
		parts = append(parts, "robot "+robot)
	}
	parts = append(parts, conn.Name()+" @ "+conn.MasterURI())
	return strings.Join(parts, " · ")
}

func logWord(l ros.LogLevel) string {
	switch {
	case l >= ros.LogFatal:
		return "fatal"
	case l >= ros.LogError:
		return "error"
	case l >= ros.LogWarn:
		return "warning"
	}
	return "info"
}
