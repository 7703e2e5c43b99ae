package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// RunConf configures Run.
type RunConf struct {
	Conn *ros.Conn
	// Tree must have been built on the connection's clock
	// (runtime.BuildConf{Clock: conn.Clock()}), so that its timeouts follow
	// ROS time.
	Tree *runtime.Tree
	// Profile binds the tree to the robot; without one the tree runs with
	// no inputs, outputs or velocity stop, at Rate.
	Profile *Profile
	// Rate overrides the profile's tick rate when > 0; MaxRate its early
	// wake-up rate when > 0.
	Rate, MaxRate float64
	// UntilDone ends the run when the root completes; otherwise the tree
	// starts again on the next tick.
	UntilDone bool
	// Observe, when set, receives every tick's timing.
	Observe func(runtime.TickReport)
	// OnStall, when set, is called after the robot was stopped because a
	// tick ran longer than the profile's watchdog allows.
	OnStall func()
	// ClockTimeout is how long (wall time) /clock may stay silent under
	// /use_sim_time before the run stops the robot and ends with a
	// *ClockStoppedError [the profile's safety.clock_timeout, else
	// DefaultClockTimeout; < 0: never].
	ClockTimeout time.Duration
	// Lockstep, when set, makes the tree a peer of the simulator's lockstep
	// (see sim_lockstep.go); it needs a profile and simulated time.
	Lockstep *LockstepConf
	// Paused, when set, says whether a person holds the tree in a tick on
	// purpose (a pause, a breakpoint: runtime.Breakpoints). Within
	// SuperviseEvery of a pause beginning the robot is stopped (zero
	// velocity); the hold has suspended the tree's action leaves (their
	// goals cancelled, runtime.Suspender), and once every server has
	// acknowledged its cancel the zero velocity is sent again, with its
	// delivery checked, so that no command of a navigation server comes
	// after it. While the pause lasts the watchdog stops the robot again
	// without a warning, without cancelling goals and without OnStall,
	// and a /clock held by the lockstep is not a lost simulator.
	// Safe to call from any goroutine.
	Paused func() bool
	// Diagnostics, when set, publishes the run's health on /diagnostics
	// (diagnostic_msgs/DiagnosticArray) once a second, and once more when
	// the run ends: the tick loop, the inputs, the mission (see
	// diagnostics.go), with the robot's name (RobotName) as hardware_id.
	Diagnostics bool
	// Transitions, when set, is the topic on which the status
	// transitions of the tree go out, a btrobot_msgs/Transitions message
	// per tick that had any, in order ("~transitions": the node's private
	// namespace). RunID goes in each.
	Transitions string
	RunID       string
}

// DefaultClockTimeout is RunConf.ClockTimeout's default.
const DefaultClockTimeout = 2 * time.Second

// RunReport is how a run ended.
type RunReport struct {
	// Status is the root's last status (IDLE when cancelled).
	Status runtime.Status
	Stats  runtime.LoopStats
	// Stop is how the robot was stopped at the end.
	Stop StopReport
}

// minStallLimit is the shortest pause of the process Run counts as a
// stall, so that a busy machine's scheduling does not stop the robot.
const minStallLimit = 250 * time.Millisecond

// catchUpPatience bounds the wait for fresh inputs after a stall, the
// robot stopped meanwhile: long enough for an input published at 1 Hz
// (the simulator's battery) whose newest message was read before the
// clock caught up (and so looks as old as the stall) to send the next.
const catchUpPatience = 1500 * time.Millisecond

// lostGrace is how long a run that lost ROS keeps the master's shutdown
// call waiting after the robot was stopped, for the goal cancels the halt
// sent to leave before goroslib closes the connections.
const lostGrace = 150 * time.Millisecond

// Run ticks the tree on the robot until ctx ends, the tree fails with an
// error, the node loses ROS, or (with UntilDone) the root completes: the
// scan cycle of the profile's bridge around each tick, early ticks on
// wake-ups, and a zero velocity published, with its delivery checked
// (RunReport.Stop), when the run ends for any reason (a cancelled context,
// an error, a panic in a node, a lost connection), when the watchdog sees a
// stalled tick and when the process resumes from a stall. Under
// /use_sim_time it waits for the first /clock message before the first
// tick. Signals are the caller's: cancel ctx on SIGINT.
//
// The watchdog, the stall monitor and the /clock check run on the wall
// clock whatever clock the tree follows. When the node loses ROS the robot
// is stopped at once, the tree halted, and Run returns an error matching
// ErrLost that names the cause: a *ShutdownError (the master shut the node
// down), a *ClockStoppedError (/clock silent for ClockTimeout, or its
// publisher gone), a *MasterLostError (the master died, or restarted and
// forgot the node), a *RobotLostError (every input lost its publisher) or
// a *ServerLostError (an action server of the profile died). The
// connection is then lost too (Conn.Err): close it.
func Run(ctx context.Context, conf RunConf) (RunReport, error) {
	switch {
	case conf.Conn == nil:
		return RunReport{}, errors.New("run: no ROS connection")
	case conf.Tree == nil:
		return RunReport{}, errors.New("run: no tree")
	case conf.Tree.Clock() != conf.Conn.Clock():
		return RunReport{}, errors.New("run: the tree was not built on the connection's clock; build it with runtime.BuildConf{Clock: conn.Clock()}")
	case conf.Lockstep != nil && conf.Profile == nil:
		return RunReport{}, errors.New("lockstep run: needs a profile (it says which topic carries the velocity commands)")
	case conf.Lockstep != nil && conf.Conn.SimClock() == nil:
		return RunReport{}, errors.New("lockstep run: the node is not on simulated time (no /use_sim_time): is the simulator running on this master?")
	}
	conn := conf.Conn
	rate, maxRate := conf.Rate, conf.MaxRate
	if p := conf.Profile; p != nil {
		if rate <= 0 {
			rate = p.Rate
		}
		if maxRate <= 0 {
			maxRate = p.MaxRate
		}
	}
	if rate <= 0 {
		return RunReport{}, errors.New("run: no tick rate: give a profile or a rate")
	}
	if conf.Lockstep != nil {
		// The simulator is held at the next tick's time: a wake-up could
		// only tick at a time the tree has seen already.
		maxRate = 0
	}
	period := time.Duration(float64(time.Second) / rate)
	lc := runtime.LoopConf{
		Tree: conf.Tree, Clock: conn.Clock(), Wall: runtime.WallClock{}, Rate: rate, MaxRate: maxRate,
		UntilDone: conf.UntilDone, Observe: conf.Observe,
	}

	// A shutdown call from the master waits until the robot is stopped.
	release := conn.HoldShutdown()
	defer release()

	r := &run{conn: conn, tree: conf.Tree, pausedFn: conf.Paused}
	if conf.Profile != nil {
		var err error
		r.bridge, err = NewBridge(BridgeConf{Conn: conn, Profile: conf.Profile, Tree: conf.Tree})
		if err != nil {
			return RunReport{}, err
		}
		defer r.bridge.Close()
		lc.Latch, lc.Flush = r.bridge.Latch, r.bridge.Flush
		lc.OnStop = func(error) { r.stop() }
		if w := conf.Profile.Safety.Watchdog; w > 0 {
			lc.Watchdog = time.Duration(w) * period
			lc.OnStall = func() {
				if r.paused() {
					r.stop() // a pause a person asked for: no stall
					return
				}
				conn.Logf(ros.LogWarn, "a tick has run %v: stopping the robot and cancelling its action goals", lc.Watchdog)
				r.stop()
				// An action server (move_base) would drive on after the
				// zero velocity: its goals are cancelled, and the tree
				// finds them so (CANCELLED) when it runs again.
				conn.CancelGoals(errStalled)
				if conf.OnStall != nil {
					conf.OnStall()
				}
			}
		}
		lc.StallLimit = max(lc.Watchdog, minStallLimit)
		lc.OnResume = func(d time.Duration) {
			conn.Logf(ros.LogWarn, "the controller did not run for %.1f s (stopped or starved): stopping the robot and reading its inputs again", d.Seconds())
			r.stop()
			if stale := r.bridge.catchUp(d, catchUpPatience); len(stale) > 0 {
				conn.Logf(ros.LogWarn, "after the stall, still no fresh message on %v", stale)
			}
		}
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	superDone := make(chan struct{})
	defer func() { cancel(nil); <-superDone }()
	if conf.Lockstep != nil {
		// Until the tree has joined, the simulator waits for it.
		la := lockstepFor(conn)
		la.joining.Store(true)
		defer la.joining.Store(false)
	}
	go func() {
		defer close(superDone)
		if err := r.supervise(runCtx, clockTimeout(conf.ClockTimeout, conf.Profile)); err != nil {
			conn.Lose(err) // the connection is of no more use: Conn.Err says why
			// The loop halts the tree at once, and the halt cancels the
			// action goals, while the zero velocity goes out here: an
			// action server (move_base) drives on after a zero velocity
			// until it has the cancel, so the cancel must not wait for
			// the stop's delivery to be confirmed.
			cancel(err)
			conn.Logf(ros.LogError, "%v: stopping the robot", err)
			r.stop()
		}
	}()
	// ended returns the run's report and its error, the lost connection's
	// in place of the cancellation it caused.
	ended := func(st runtime.Status, stats runtime.LoopStats, err error) (RunReport, error) {
		cause := context.Cause(runCtx)
		if errors.Is(cause, ros.ErrLost) && (err == nil || errors.Is(err, context.Canceled)) {
			err = cause
		}
		if errors.Is(err, ros.ErrLost) {
			time.Sleep(lostGrace) // the goal cancels leave meanwhile
		}
		return RunReport{Status: st, Stats: stats, Stop: r.lastStop()}, err
	}

	if sim := conn.SimClock(); sim != nil {
		select {
		case <-sim.Started():
		case <-runCtx.Done():
			if r.bridge != nil {
				r.stop()
			}
			return ended(runtime.Idle, runtime.LoopStats{}, runCtx.Err())
		}
	}
	if conf.Lockstep != nil {
		ls, err := startLockstep(runCtx, conn, conf.Profile, *conf.Lockstep, r.bridge, conf.Tree, period)
		lockstepFor(conn).joining.Store(false)
		if err != nil {
			r.stop()
			return ended(runtime.Idle, runtime.LoopStats{}, err)
		}
		defer ls.close()
		ls.untilDone = conf.UntilDone
		lc.Latch, lc.Flush = ls.latch, ls.flush
		// The latch may wait up to sensorPatience of wall time for the
		// step's sensor messages, the world held meanwhile: that is not a
		// stuck tick, so the watchdog starts after it.
		lc.LatchWaits = true
		// A tick or a stall that the simulator waits for moves nothing:
		// the robot is stopped only if the simulator went on without it.
		if onStall := lc.OnStall; onStall != nil {
			lc.OnStall = ls.unlessHeld(onStall)
		}
		if onResume := lc.OnResume; onResume != nil {
			lc.OnResume = func(d time.Duration) {
				if ls.held() {
					conn.Logf(ros.LogWarn, "the controller did not run for %.1f s (stopped or starved); the simulator in lockstep waited for it", d.Seconds())
					return
				}
				onResume(d)
			}
		}
		lc.Observe = func(t runtime.TickReport) {
			if conf.Observe != nil {
				conf.Observe(t)
			}
			ls.observe(t)
		}
	}
	var health *health
	if conf.Diagnostics {
		var err error
		if health, err = newHealth(conn, conf.Tree, r.bridge, rate, conf.Paused); err != nil {
			r.stop()
			return ended(runtime.Idle, runtime.LoopStats{}, fmt.Errorf("run: %w", err))
		}
		observe := lc.Observe
		lc.Observe = func(t runtime.TickReport) {
			health.onTick(t)
			if observe != nil {
				observe(t)
			}
		}
		defer conf.Tree.Observe(health)()
	}
	if conf.Transitions != "" {
		tt, err := newTransitionTopic(conn, conf.Transitions, conf.RunID)
		if err != nil {
			r.stop()
			if health != nil {
				health.end(runtime.Idle, err)
			}
			return ended(runtime.Idle, runtime.LoopStats{}, fmt.Errorf("run: transitions: %w", err))
		}
		unobserve := conf.Tree.Observe(tt)
		observe := lc.Observe
		lc.Observe = func(t runtime.TickReport) {
			tt.onTick(t)
			if observe != nil {
				observe(t)
			}
		}
		defer func() {
			unobserve()
			if n := tt.close(); n > 0 {
				conn.Logf(ros.LogWarn, "%d transitions were not published on %s: the topic's goroutine fell behind", n, tt.pub.Topic())
			}
		}()
	}
	loop, err := runtime.NewLoop(lc)
	if err != nil {
		if health != nil {
			health.end(runtime.Idle, err)
		}
		return RunReport{}, fmt.Errorf("run: %w", err)
	}
	st, err := loop.Run(runCtx)
	rep, err := ended(st, loop.Stats(), err)
	if health != nil {
		health.end(st, err)
	}
	return rep, err
}

// clockTimeout is the run's ClockTimeout, else the profile's, else the
// default.
func clockTimeout(d time.Duration, p *Profile) time.Duration {
	switch {
	case d != 0:
		return d
	case p != nil && p.Safety.ClockTimeout > 0:
		return p.Safety.ClockTimeout
	}
	return DefaultClockTimeout
}

// run is the state Run shares with its hooks and its supervisor.
type run struct {
	conn     *ros.Conn
	tree     *runtime.Tree
	bridge   *Bridge
	pausedFn func() bool // RunConf.Paused

	mu   sync.Mutex
	last StopReport
}

// stop sends the zero velocity and keeps the report; an undelivered stop
// is logged as an error.
func (r *run) stop() {
	if r.bridge == nil {
		return
	}
	rep := r.bridge.Stop()
	if rep.Topic != "" && !rep.Delivered {
		r.conn.Logf(ros.LogError, "could not stop the robot: %v", rep)
	}
	if rep.Delivered {
		lockstepOf(r.conn).Sent() // a lockstep simulator counts it among the commands
	}
	r.mu.Lock()
	r.last = rep
	r.mu.Unlock()
}

// paused reports whether RunConf.Paused says the tree is held on purpose.
func (r *run) paused() bool { return r.pausedFn != nil && r.pausedFn() }

func (r *run) lastStop() StopReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// supervise watches, on the wall clock, for the node losing ROS: the
// connection's own checks (the master's shutdown call, the master gone);
// under /use_sim_time, a /clock silent for longer than timeout or whose
// publisher closed its connection; every input of the profile losing its
// publisher; an action server of the profile dying. It returns the cause,
// or nil when ctx ends first.
//
// A simulator or a robot that dies closes all of its connections at once,
// and goroslib reports them one by one: once something is found, the
// supervisor waits lostSettle for the rest and names the first cause in
// this order: /clock (closed, or silent since), the robot's inputs, an
// action server.
func (r *run) supervise(ctx context.Context, timeout time.Duration) error {
	sim := r.conn.SimClock()
	wake := time.NewTimer(ros.SuperviseEvery)
	defer wake.Stop()
	clockDrops := r.conn.PublisherDrops("/clock")
	inputs := r.newInputWatch()
	servers := r.newServerWatch()
	silence := ros.ClockSilence{Timeout: timeout}
	var foundAt time.Time
	// A /clock publisher that closed its connection, and the newest /clock
	// message then: the clock is lost when none came since (clockDrop).
	var dropSeen, dropHeard time.Time
	wasPaused, heldStopped := false, false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.conn.Lost():
			return r.conn.Err()
		case <-wake.C:
		}
		now := time.Now()
		p := r.paused()
		if p {
			if !wasPaused {
				r.stop() // a pause began: the last command must not drive on
				heldStopped = false
			}
			// The pause suspended the tree's action leaves (runtime.Suspender):
			// once their servers have the cancels, they send no more
			// commands, and a zero velocity after them holds the robot.
			if on, n, settled := r.tree.Suspended(); !heldStopped && on && n > 0 && settled {
				r.stop()
				heldStopped = true
			}
		}
		wasPaused = p
		next := ros.SuperviseEvery
		if sim != nil && !sim.LastSet().IsZero() {
			heard := sim.LastSet()
			// In lockstep /clock is silent while the simulator waits for
			// the tree: not the clock's fault. The silence counts from the
			// later of the newest message and the simulator's last go.
			from := heard
			if q := lockstepQuietSince(r.conn); q.After(from) {
				from = q
			}
			// A lockstep simulator waits for the tick a pause holds.
			silent := silence.Look(now, from, p)
			switch {
			case r.conn.PublisherDrops("/clock") != clockDrops && dropSeen.IsZero():
				dropSeen, dropHeard = now, heard
			case !dropSeen.IsZero() && now.Sub(dropSeen) >= clockDropSettle:
				if heard.Equal(dropHeard) {
					return &ros.ClockStoppedError{Since: max(0, now.Sub(heard)), Closed: true}
				}
				// Another publisher of /clock left (a tool that
				// advertised it, a peer that sent a bad header): the
				// clock goes on.
				clockDrops, dropSeen = r.conn.PublisherDrops("/clock"), time.Time{}
			case timeout > 0 && silent >= timeout:
				return &ros.ClockStoppedError{Since: now.Sub(heard)}
			}
			if left := timeout - silent; timeout > 0 && left > 0 && left < next {
				next = left // look when the timeout is due, not up to a period after
			}
		}
		err := inputs.check()
		if err == nil {
			err = servers.check(now)
		}
		switch {
		case err == nil:
			foundAt = time.Time{}
		case foundAt.IsZero():
			foundAt = now
		case now.Sub(foundAt) >= lostSettle:
			// A simulator that died took /clock with it, whether or not
			// goroslib reported that connection: name the clock when its
			// publishers no longer answer.
			if sim != nil && !sim.LastSet().IsZero() {
				registered, dead, qerr := r.conn.DeadPublishers("/clock")
				if qerr == nil && len(registered) > 0 && len(dead) == len(registered) {
					return &ros.ClockStoppedError{Since: max(0, now.Sub(sim.LastSet())), Closed: true}
				}
			}
			return err
		}
		wake.Reset(next)
	}
}

// clockDropSettle is how long after a publisher of /clock closed its
// connection the supervisor waits for another /clock message before it
// calls the clock lost: the publisher that left may not be the one that
// keeps time.
const clockDropSettle = 150 * time.Millisecond

// lostSettle is how long the supervisor lets the connections of a process
// that died close before it names the cause.
const lostSettle = 200 * time.Millisecond

// serverWatch notices an action server of the profile dying: its status
// publisher closed the connection, and a moment later (a server that stops
// cleanly unregisters meanwhile) the master still lists a publisher of it
// and none of them answers.
type serverWatch struct {
	conn    *ros.Conn
	servers []watchedServer
	// onDrop runs when a server's status connection closes, before the
	// server is looked up: the robot is stopped at once, as a precaution,
	// rather than driving on the dead server's last command while the
	// lookup settles. A server found alive leaves the tree to carry on.
	onDrop func()
}

type watchedServer struct {
	name  string // resolved
	drops uint64
	since time.Time // when the newest drop was seen; zero: none pending
}

// serverCheckDelay is how long after its status connection closed a server
// is looked up.
const serverCheckDelay = 200 * time.Millisecond

func (r *run) newServerWatch() *serverWatch {
	w := &serverWatch{conn: r.conn}
	if r.bridge != nil {
		w.onDrop = func() { go r.stop() }
		for _, a := range r.bridge.profile.Actions {
			name := r.conn.Resolve(a.Server)
			w.servers = append(w.servers, watchedServer{name: name, drops: r.conn.PublisherDrops(name + "/status")})
		}
	}
	return w
}

func (w *serverWatch) check(now time.Time) error {
	for i := range w.servers {
		s := &w.servers[i]
		if d := w.conn.PublisherDrops(s.name + "/status"); d != s.drops {
			if s.since.IsZero() && w.onDrop != nil {
				w.onDrop()
			}
			s.drops, s.since = d, now
		}
		if s.since.IsZero() || now.Sub(s.since) < serverCheckDelay {
			continue
		}
		registered, dead, err := w.conn.DeadPublishers(s.name + "/status")
		if err != nil {
			continue // the master's own check speaks for it
		}
		if len(registered) > 0 && len(dead) == len(registered) {
			return &ros.ServerLostError{Server: s.name, Nodes: dead}
		}
		s.since = time.Time{}
	}
	return nil
}

// inputWatch notices every input of the profile losing its publisher: each
// input that has had a message saw its publisher's connection close, and
// no message came since.
type inputWatch struct {
	conn *ros.Conn
	subs []*ros.Subscription
	gone []inputGone
}

type inputGone struct {
	drops uint64 // publisher connections lost so far
	count uint64 // messages when the newest was lost; 0: not lost
}

func (r *run) newInputWatch() *inputWatch {
	w := &inputWatch{conn: r.conn}
	if r.bridge != nil {
		for _, in := range r.bridge.inputs {
			w.subs = append(w.subs, in.sub)
			w.gone = append(w.gone, inputGone{drops: r.conn.PublisherDrops(in.sub.Topic())})
		}
	}
	return w
}

func (w *inputWatch) check() error {
	if len(w.subs) == 0 {
		return nil
	}
	var topics []string
	all := true
	for i, sub := range w.subs {
		_, _, count := sub.Newest()
		g := &w.gone[i]
		if d := w.conn.PublisherDrops(sub.Topic()); d != g.drops {
			g.drops, g.count = d, count
		}
		switch {
		case count == 0:
			// Never heard: says nothing about the robot.
		case g.count != 0 && count == g.count:
			topics = append(topics, sub.Topic())
		default:
			g.count = 0
			all = false
		}
	}
	if all && len(topics) > 0 {
		return &ros.RobotLostError{Topics: topics}
	}
	return nil
}
