package mission

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/skills"
)

// DefaultRate is the tick rate of a mission run with no profile and no
// RunConf.Rate.
const DefaultRate = 10

// haltGrace is how long the connection stays open after the tree was
// halted, for the goal cancels the halt sent to reach their servers.
const haltGrace = 200 * time.Millisecond

// Display shows a running mission (view.Live is one): an observer of the
// tree's transitions, fed every tick's report on the tick's goroutine,
// and closed with how the run ended.
type Display interface {
	runtime.Observer
	// OnTick receives every tick's timing, on the tick's goroutine.
	OnTick(runtime.TickReport)
	// Log shows a line (a ROS warning); safe from any goroutine.
	Log(line string)
	// NodeLog shows what a Log node said at tree time at; on the tick's
	// goroutine.
	NodeLog(at time.Time, level, node, text string)
	// Close shows how the run ended; the display is done after it.
	Close(end string)
}

// Shown is what a run's display is made from, once the tree is built.
type Shown struct {
	Mission  *Mission
	Tree     *runtime.Tree
	Registry *runtime.Registry
	Conn     *ros.Conn
	// Rate is the tick rate the loop runs at.
	Rate float64
}

// RunConf configures Run. Zero fields take the defaults in brackets.
type RunConf struct {
	// Mission is what runs (required).
	Mission *Mission
	// ROS says how to join the ROS graph; unused when Conn is set. The
	// node's warnings and errors go to the display (or Log), and to
	// ROS.OnLog when it is set.
	ROS ros.Conf
	// Conn, when set, is the connection to run on; Run leaves it open.
	Conn *ros.Conn
	// Rate is the tick rate in Hz [the profile's, else DefaultRate].
	Rate float64
	// Semaphores is the table the tree's Semaphore nodes share with other
	// trees [the ROS graph's: a skills.GraphSemaphores on the run's
	// connection, shared with every process on the master; it joins the
	// graph at the first request and leaves when the run ends].
	// runtime.DefaultSemaphores shares within the process only.
	Semaphores runtime.SemaphoreTable
	// Blackboard, when set, is the root blackboard, with entries set
	// before the first tick (see Entries).
	Blackboard *runtime.Blackboard
	// Seed seeds the random nodes [from the clock].
	Seed uint64
	// Lockstep, when set, runs the tree in lockstep with the simulator; it
	// needs a profile.
	Lockstep *bridge.LockstepConf
	// OdomOrigin is the odom frame's origin in the map frame [the spawn
	// place named like the robot, else the map's origin].
	OdomOrigin *skills.Pose
	// Display, when set, makes the run's display once the tree is built.
	Display func(Shown) Display
	// Log receives the lines there is no display for (ROS warnings, what
	// Log nodes say) from any goroutine; nil drops them.
	Log func(line string)
	// Observers watch the tree's transitions beside the display.
	Observers []runtime.Observer
	// OnTick, when set, is called after every tick on the tick's
	// goroutine; a non-empty why ends the run as Stopped, done saying it
	// did what it was asked (Report.Done).
	OnTick func(tree *runtime.Tree, t runtime.TickReport) (why string, done bool)
	// Record, when set, is the file the run is recorded to (see package
	// record: .btlog for Groot2, .db3 for everything), with the report's
	// RunID; the file survives whatever ends the run (a killed process
	// loses at most the last FlushEvery).
	Record string
	// Groot, when > 0, is the port Groot2 connects to (groot2.DefaultPort,
	// 1667, is Groot2's own; PUB on the next). While a breakpoint holds
	// the tree the robot is stopped (bridge.RunConf.Paused). GrootHost is
	// the address it listens on: loopback when empty ("0.0.0.0": every
	// interface, as BT.CPP).
	Groot     int
	GrootHost string
	// Diagnostics, when set, publishes the run's health on /diagnostics
	// once a second (bridge.RunConf.Diagnostics): rqt_robot_monitor and the
	// diagnostic aggregator show it.
	Diagnostics bool
	// Transitions, when set, is the topic the status transitions go out on,
	// a btrobot_msgs/Transitions per tick that had any, with the report's RunID
	// (bridge.RunConf.Transitions; "~transitions" is the node's private
	// namespace), so that rosbag keeps them beside the sensor data.
	Transitions string
	// Debugger, when set, attaches a debugger (the browser studio, package
	// studio) once the tree is built, beside the display; nil from it
	// attaches none. While its Paused is true the robot is stopped and the
	// watchdog stays quiet, as for a Groot2 breakpoint.
	Debugger func(Shown) Debugger
}

// Debugger watches a run and may hold its tree (breakpoints, stepping):
// an observer of its transitions and a tick hook, both on the tick's
// goroutine, fed every tick's report, and closed with the run's report.
type Debugger interface {
	runtime.Observer
	runtime.TickHook
	OnTick(runtime.TickReport)
	// Paused reports whether the debugger holds the tree now; safe from
	// any goroutine.
	Paused() bool
	// Resume releases a held tick for a run that must end, and holds no
	// more; safe from any goroutine.
	Resume()
	// Close shows how the run ended; no tick follows it.
	Close(Report)
}

// ConnectError is a run that could not join the ROS graph.
type ConnectError struct{ Err error }

func (e *ConnectError) Error() string { return e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// stopped is the cause of a run ended by RunConf.OnTick.
type stopped struct {
	why  string
	done bool
}

func (s *stopped) Error() string { return s.why }

// Run connects (unless given a connection), builds the tree on the
// connection's clock, and ticks it with the robot profile's scan cycle
// until the root completes, ctx is cancelled, or OnTick stops it; then
// the tree is halted and the robot stopped, whatever ended the run. A
// cancelled ctx's cause (context.WithCancelCause) says why in the
// Report. The error is for a run that could not start: a *ConnectError,
// a *LoadError when the tree cannot be built (or Record or Groot is
// wrong), or the error of a recording or a Groot2 server that could not
// start.
func Run(ctx context.Context, c RunConf) (Report, error) {
	m := c.Mission
	if m == nil || m.Doc == nil {
		return Report{}, errors.New("mission run: no mission")
	}
	if c.Lockstep != nil && m.Profile == nil {
		return Report{}, errors.New("mission run: lockstep needs a profile: it says which topic carries the velocity commands")
	}
	if err := CheckWatchers(c.Record, c.Groot); err != nil {
		return Report{}, &LoadError{Problems: []error{err}}
	}
	var display atomic.Pointer[Display]
	var early sync.Mutex
	show := func(line string) {
		if d := display.Load(); d != nil {
			(*d).Log(line)
			return
		}
		if c.Log != nil {
			early.Lock() // before the display exists, and without one
			c.Log(line)
			early.Unlock()
		}
	}
	conn := c.Conn
	if conn == nil {
		rc := c.ROS
		rc.OnLog = func(level ros.LogLevel, msg string) {
			if level >= ros.LogWarn {
				show(logWord(level) + ": " + msg)
			}
			if c.ROS.OnLog != nil {
				c.ROS.OnLog(level, msg)
			}
		}
		var err error
		if conn, err = ros.Connect(rc); err != nil {
			return Report{}, &ConnectError{err}
		}
		defer conn.Close()
	}
	rep := Report{RunID: uuid.New(), Robot: ros.RobotName(conn)}
	d := Deps{Conn: conn, Profile: m.Profile, Places: m.Places}
	if m.Places != nil {
		if sp, ok := m.Places.Spawn(rep.Robot); ok {
			// The simulator's odometry starts at the robot's spawn pose.
			d.OdomOrigin = skills.Pose(sp.Pose)
		}
	}
	if c.OdomOrigin != nil {
		d.OdomOrigin = *c.OdomOrigin
	}
	d.Log = func(e skills.LogEntry) {
		if v := display.Load(); v != nil {
			(*v).NodeLog(e.Time, e.Level.String(), e.Node, e.Text)
			return
		}
		show(e.Level.String() + " " + e.Node + ": " + e.Text)
	}
	reg, err := m.palette(d)
	if err != nil {
		le := &LoadError{}
		le.add(err)
		return Report{}, le
	}
	sems := c.Semaphores
	if sems == nil {
		g, err := skills.NewGraphSemaphores(skills.GraphSemaphoresConf{Conn: conn})
		if err != nil {
			return Report{}, err
		}
		defer g.Close() // after the tree's halt: its slots come back at once
		sems = g
	}
	tree, err := runtime.Build(reg, m.Doc, runtime.BuildConf{Main: m.Main, Clock: conn.Clock(), Seed: c.Seed, Blackboard: c.Blackboard,
		Substitutions: m.Substitutions, Owner: rep.Robot, Semaphores: sems})
	if err != nil {
		le := &LoadError{}
		le.add(err)
		return Report{}, le
	}
	rep.Tree = tree
	tree.SetExplaining(true) // the report says why the mission ended
	for _, o := range c.Observers {
		tree.Observe(o)
	}
	rate := c.Rate
	if rate <= 0 && m.Profile != nil {
		rate = m.Profile.Rate
	}
	if rate <= 0 {
		rate = DefaultRate
	}
	var v Display
	if c.Display != nil {
		v = c.Display(Shown{Mission: m, Tree: tree, Registry: reg, Conn: conn, Rate: rate})
	}
	if v != nil {
		tree.Observe(v)
		display.Store(&v)
	}
	profileFile := ""
	if m.Profile != nil {
		profileFile = m.Profile.File
	}
	w, err := attachWatchers(watchConf{
		record: c.Record, groot: c.Groot, grootHost: c.GrootHost, tree: tree, doc: m.Doc, palette: reg,
		profile: profileFile, runID: rep.RunID, seed: c.Seed,
		onPause: func(n *runtime.Base, paused bool) {
			if paused {
				show("groot2: breakpoint at " + n.Path() + ": the tree waits, the robot is stopped")
			}
		},
	})
	if err != nil {
		if v != nil {
			v.Close("not started: " + err.Error())
		}
		return Report{}, err
	}
	defer w.close()
	var dbg Debugger
	if c.Debugger != nil {
		dbg = c.Debugger(Shown{Mission: m, Tree: tree, Registry: reg, Conn: conn, Rate: rate})
	}
	if dbg != nil {
		unobserve, unhook := tree.Observe(dbg), tree.Hook(dbg)
		defer unobserve() // (after the tree's halt: the debugger sees it)
		defer unhook()
	}
	paused := func() bool { return w.paused() || dbg != nil && dbg.Paused() }
	conn.Logf(ros.LogInfo, "run %s: %s on %s at %g Hz", rep.RunID, m.TreeFile, rep.Robot, rate)

	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if w.srv != nil || dbg != nil {
		// A tick held at a breakpoint does not see the run end: release it.
		released := make(chan struct{})
		defer close(released)
		go func() {
			select {
			case <-runCtx.Done():
			case <-conn.Lost():
			case <-released:
				return
			}
			w.resume()
			if dbg != nil {
				dbg.Resume()
			}
		}()
	}
	runConf := bridge.RunConf{
		Conn: conn, Tree: tree, Profile: m.Profile, Rate: rate, UntilDone: true, Lockstep: c.Lockstep,
		Paused: paused, Diagnostics: c.Diagnostics, Transitions: c.Transitions, RunID: rep.RunID.String(),
		Observe: func(t runtime.TickReport) {
			w.onTick(t)
			if dbg != nil {
				dbg.OnTick(t)
			}
			if v != nil {
				v.OnTick(t)
			}
			if c.OnTick != nil {
				if why, done := c.OnTick(tree, t); why != "" {
					stop(&stopped{why: why, done: done})
				}
			}
		},
	}
	start := time.Now()
	rr, err := bridge.Run(runCtx, runConf)
	rep.Status, rep.Stats, rep.Wall = rr.Status, rr.Stats, time.Since(start)
	if c.Conn == nil {
		// The halt cancelled the running goals in the background: give the
		// cancels time to leave before the connection closes, or move_base
		// drives on after the zero velocity. A connection of the caller's
		// stays open: they leave meanwhile, and the next run (a mission
		// server's next goal) need not wait.
		time.Sleep(haltGrace)
	}
	rep.Stop = rr.Stop.String()
	switch {
	case err == nil && rr.Status == runtime.Success:
		rep.Outcome = Succeeded
	case err == nil:
		rep.Outcome = Failed
	case runCtx.Err() != nil && errors.Is(err, context.Canceled):
		rep.Outcome, rep.Why = Stopped, "interrupted"
		var s *stopped
		switch cause := context.Cause(runCtx); {
		case errors.As(cause, &s):
			rep.Why, rep.Done = s.why, s.done
		case cause != nil && !errors.Is(cause, context.Canceled):
			rep.Why = cause.Error()
		}
	default:
		rep.Outcome, rep.Err = Aborted, err
	}
	rep.Explanation = tree.Explain()
	if err := w.close(); err != nil {
		show("recording: " + err.Error())
	}
	if v != nil {
		v.Close(rep.Summary())
	}
	if dbg != nil {
		dbg.Close(rep)
	}
	return rep, nil
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
