package skills

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
	"github.com/btrobot/btrobot/trees"
)

// The simulator tests run btrobot's simulator as a ROS node on an in-process
// graph (ros/inproc: what they test is the skills and missions, not TCPROS,
// which bridge, ros and hil test), and the trees through the robot
// profile's bridge, in lockstep with the simulator (bridge.LockstepPeer):
// the simulator runs as fast as the trees allow, and a run does not depend
// on the machine's load. A test with a real ROS peer (rospy) starts an
// embedded master and goes over TCPROS instead.

const officeWorld = "../worlds/office"

// world is a simulator node serving robots, with its events.
type world struct {
	t      testing.TB
	uri    string        // the master's, when over TCPROS
	graph  *inproc.Graph // the in-process graph, when not
	node   *simnode.Node
	places *sim.Places

	events rostest.EventLog
}

// worldSetup says what startWorld builds.
type worldSetup struct {
	robots []sim.RobotConf // robot1 at its spawn when empty; a zero Spawn takes the spawn named like the robot
	peers  int             // lockstep peers to wait for [1]
	conf   simnode.Conf
	before func(w *sim.World) // changes to the world before it starts
}

// startWorld starts an in-process graph and the simulator on the office
// world.
func startWorld(t testing.TB, s worldSetup) *world {
	t.Helper()
	w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	if len(s.robots) == 0 {
		s.robots = []sim.RobotConf{{Name: "robot1"}}
	}
	for _, rc := range s.robots {
		if rc.Spawn == (sim.Pose{}) {
			sp, ok := w.Places().Spawn(rc.Name)
			require.True(t, ok, "no spawn named %s", rc.Name)
			rc.Spawn = sp.Pose
		}
		_, err := w.AddRobot(rc)
		require.NoError(t, err)
	}
	if s.before != nil {
		s.before(w)
	}
	wd := &world{t: t, graph: inproc.NewGraph(), places: w.Places()}
	conf := s.conf
	conf.World = w
	conf.Conn = wd.connect(t, "/", "sim")
	conf.OnEvent = wd.events.Add
	if s.peers == 0 {
		s.peers = 1
	}
	conf.Peers = s.peers
	if conf.PeerTimeout == 0 {
		conf.PeerTimeout = 10 * time.Second
	}
	n, err := simnode.Start(conf)
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	wd.node = n
	return wd
}

// simProfile is robots/sim.yaml with the simulator's docked topic as an
// input, so that IsDocked answers in the tick after docking rather than
// with the next battery message.
func simProfile(t testing.TB) *bridge.Profile {
	t.Helper()
	data, err := os.ReadFile("../robots/sim.yaml")
	require.NoError(t, err)
	text := string(data)
	if !strings.Contains(text, "topic: docked") {
		text = strings.Replace(text, "\ninputs:\n", "\ninputs:\n  - {topic: docked, type: std_msgs/Bool, fields: {docked: data}, max_age: 5s}\n", 1)
	}
	p, err := bridge.ParseProfile([]byte(text), "robots/sim.yaml", nil)
	require.NoError(t, err)
	return p
}

func connectAs(t testing.TB, uri, ns, name string) *ros.Conn {
	t.Helper()
	return connectConf(t, ros.Conf{MasterURI: uri, Host: "127.0.0.1", Namespace: ns, Name: name})
}

func connectConf(t testing.TB, conf ros.Conf) *ros.Conn {
	t.Helper()
	c, err := ros.Connect(conf)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// connect joins the world's graph as node ns/name.
func (w *world) connect(t testing.TB, ns, name string) *ros.Conn {
	t.Helper()
	if w.graph != nil {
		return connectConf(t, ros.Conf{Graph: w.graph, Namespace: ns, Name: name})
	}
	return connectAs(t, w.uri, ns, name)
}

// eventWait is how long hasEvent waits for an event: the simulator
// delivers its events on a goroutine of its own, after the step that made
// them (simnode.Conf.OnEvent), which a loaded machine may hold up.
const eventWait = 10 * time.Second

// hasEvent reports whether the simulator announced an event containing
// one of subs, waiting up to eventWait for it.
func (w *world) hasEvent(subs ...string) bool {
	_, _, ok := w.events.Await(eventWait, subs...)
	return ok
}

func (w *world) eventList() []string { return w.events.Lines() }

// robot reads a robot's state inside the simulator.
func (w *world) robot(name string) (pose sim.Pose, twist sim.Twist, battery sim.BatteryState, docked sim.DockState) {
	w.node.Do(func(sw *sim.World) error {
		r, _ := sw.Robot(name)
		pose, twist, battery = r.Pose(), r.Twist(), r.Battery()
		docked, _ = r.DockState()
		return nil
	})
	return
}

// do changes the world between two steps.
func (w *world) do(f func(sw *sim.World) error) {
	w.t.Helper()
	err := w.node.Do(f)
	require.NoError(w.t, err)
}

// rig is one robot's tree on the simulator, stepped by the test: each step
// waits for the simulated time of the next tick, runs the scan cycle
// (latch, tick, flush) through the profile's bridge, and lets the
// simulator run to the tick after.
type rig struct {
	t       testing.TB
	w       *world
	name    string
	conn    *ros.Conn
	profile *bridge.Profile
	tree    *runtime.Tree
	bridge  *bridge.Bridge
	peer    *bridge.LockstepPeer
	period  time.Duration
	next    time.Time
	cmdSeq  uint64
	started bool      // a Ready has been sent
	start   time.Time // simulated time when the rig started
	// sensorsOff stops waiting for the sensors: a test that freezes them.
	sensorsOff bool
	status     runtime.Status
	logs       []LogEntry

	cmdMu sync.Mutex
	cmds  []timedTwist // cmd_vel as the robot receives it

	sensorMu       sync.Mutex
	sensed         chan struct{} // closed and renewed on every sensor message
	odomAt, scanAt time.Time     // header stamps of the newest messages
	batteryAt      time.Time
	bumperAt       time.Time // receive time of the newest bumper message
}

type timedTwist struct {
	at time.Time
	geometry_msgs.Twist
}

// buildRig builds xml for robot name (a file name ending in .xml, a whole
// document or a BehaviorTree body)
// on the simulator, with the skills wired as btrobot run wires them.
func buildRig(t testing.TB, w *world, name, xml string, deps Deps) *rig {
	t.Helper()
	profile := simProfile(t)
	var err error
	r := &rig{t: t, w: w, name: name, profile: profile, period: profile.Period()}
	r.conn = w.connect(t, "/"+name, "btrobot")
	require.NotNil(t, r.conn.SimClock(), "the tree's connection is not on simulated time")
	deps.Conn, deps.Profile = r.conn, profile
	if deps.Places == nil {
		deps.Places = w.places
	}
	w.node.Do(func(sw *sim.World) error {
		rb, _ := sw.Robot(name)
		deps.OdomOrigin = Pose(rb.OdomOrigin())
		return nil
	})
	if deps.Log == nil {
		deps.Log = func(l LogEntry) { r.logs = append(r.logs, l) }
	}
	reg := palette(t, deps)
	if strings.HasSuffix(xml, ".xml") {
		doc, err := trees.Load(xml)
		require.NoError(t, err)
		r.tree, err = runtime.Build(reg, doc, runtime.BuildConf{Clock: r.conn.Clock(), Seed: 1})
		require.NoError(t, err)
	} else {
		r.tree = buildTree(t, reg, xml, runtime.BuildConf{Clock: r.conn.Clock(), Seed: 1})
	}
	// Watch cmd_vel as the simulator does, from a node of its own.
	watcher := w.connect(t, "/"+name, "cmd_watch")
	_, err = ros.Subscribe(watcher, "cmd_vel", func(m *geometry_msgs.Twist) {
		r.cmdMu.Lock()
		r.cmds = append(r.cmds, timedTwist{watcher.Clock().Now(), *m})
		r.cmdMu.Unlock()
	})
	require.NoError(t, err)
	// The lockstep orders time, not topics: a scan cycle that starts as
	// soon as /clock says so may not have the odometry of that step yet.
	// Each step waits for the sensors the skills close their loops on.
	r.sensed = make(chan struct{})
	_, err = ros.Subscribe(r.conn, "odom", func(m *nav_msgs.Odometry) { r.sense(&r.odomAt, m.Header.Stamp) })
	require.NoError(t, err)
	_, err = ros.Subscribe(r.conn, "scan", func(m *sensor_msgs.LaserScan) { r.sense(&r.scanAt, m.Header.Stamp) })
	require.NoError(t, err)
	_, err = ros.Subscribe(r.conn, "battery_state", func(m *sensor_msgs.BatteryState) { r.sense(&r.batteryAt, m.Header.Stamp) })
	require.NoError(t, err)
	_, err = ros.Subscribe(r.conn, "bumper", func(m *std_msgs.Bool) { r.sense(&r.bumperAt, r.conn.Clock().Now()) })
	require.NoError(t, err)
	r.bridge, err = bridge.NewBridge(bridge.BridgeConf{Conn: r.conn, Profile: profile, Tree: r.tree})
	require.NoError(t, err)
	t.Cleanup(r.bridge.Close)
	ctx := ctxTimeout(t, 20*time.Second)
	// Commands sent before the simulator has connected would be lost, and
	// the lockstep would wait for them for ever.
	err = r.conn.WaitSubscribers(ctx, "cmd_vel", 2)
	require.NoError(t, err)
	// As the lockstep's start in bridge.Run: the tree's action clients
	// are connected to the servers on the graph before the first tick, or
	// a goal waits for the connection while simulated time runs on (a
	// Dock at a missing dock still RUNNING after 5 s under load).
	missing := r.conn.AwaitActionServers(ctx)
	require.Empty(t, missing, "the tree's action clients not connected to these servers")
	r.peer, err = bridge.NewLockstepPeer(r.conn, "/sim/lockstep")
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		r.peer.Leave(ctx)
	})
	select {
	case <-r.conn.SimClock().Started():
	case <-ctx.Done():
		require.Fail(t, "no /clock from the simulator")
	}
	r.next = r.conn.Clock().Now()
	r.start = r.next
	// A run that ends halts its tree, as a loop does when it stops: the
	// goals still running are cancelled and their work ends.
	t.Cleanup(r.tree.Halt)
	return r
}

// newRig builds a robot's tree on the simulator (see buildRig) and idles
// until its inputs have arrived.
func newRig(t testing.TB, w *world, name, xml string, deps Deps) *rig {
	t.Helper()
	r := buildRig(t, w, name, xml, deps)
	warmUp(r)
	return r
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// now is the tree's clock.
func (r *rig) now() time.Time { return r.conn.Clock().Now() }

func (r *rig) sense(at *time.Time, stamp time.Time) {
	r.sensorMu.Lock()
	if stamp.After(*at) {
		*at = stamp
	}
	close(r.sensed)
	r.sensed = make(chan struct{})
	r.sensorMu.Unlock()
}

// Sensor periods of the simulator: odometry at 20 Hz, laser and bumper at
// 10 Hz, battery at 1 Hz.
const (
	odomPeriod    = 50 * time.Millisecond
	scanPeriod    = 100 * time.Millisecond
	bumperPeriod  = 100 * time.Millisecond
	batteryPeriod = time.Second
)

// wait waits until the simulated time reaches the next tick and the
// odometry, laser, battery and bumper messages of that time have arrived
// (or a wall second passed: a sensor fault may have silenced them).
func (r *rig) wait() {
	r.t.Helper()
	ch, stop := r.conn.Clock().Timer(r.next)
	defer stop()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		require.Fail(r.t, fmt.Sprintf("%s: simulated time stuck at %v waiting for %v; events %q", r.name, r.now(), r.next, r.w.eventList()))
	}
	if !r.started || r.sensorsOff {
		return // the simulator waits for the first Ready before it steps
	}
	now := r.now()
	patience := time.After(time.Second)
	for {
		r.sensorMu.Lock()
		// A sensor is due once a message of it was published after the rig
		// subscribed: two of its periods after the start.
		due := func(at time.Time, period time.Duration) bool {
			return now.Sub(r.start) >= 2*period && at.Before(now.Add(-period))
		}
		ok := !due(r.odomAt, odomPeriod) && !due(r.scanAt, scanPeriod) &&
			!due(r.batteryAt, batteryPeriod) && !due(r.bumperAt, bumperPeriod)
		sensed := r.sensed
		r.sensorMu.Unlock()
		if ok {
			return
		}
		select {
		case <-sensed:
		case <-patience:
			return
		}
	}
}

// tick runs one scan cycle and lets the simulator run to the next.
func (r *rig) tick() runtime.Status {
	r.t.Helper()
	r.wait()
	now := r.now()
	err := r.bridge.Latch(now)
	require.NoError(r.t, err)
	st, err := r.tree.TickExactlyOnce()
	require.NoError(r.t, err, "%s tick %d: %v", r.name, r.tree.Ticks(), err)
	r.status = st
	r.flush(now, st)
	return st
}

// idle runs one scan cycle without ticking the tree: a robot whose tree
// has stopped.
func (r *rig) idle() {
	r.t.Helper()
	r.wait()
	now := r.now()
	err := r.bridge.Latch(now)
	require.NoError(r.t, err)
	r.flush(now, runtime.Idle)
}

// warmUp idles the robots, in lockstep, until their odometry, laser and
// battery have arrived, as robots that have just started do before their
// missions.
func warmUp(rigs ...*rig) {
	fresh := func(r *rig) bool {
		bb := r.tree.Blackboard()
		for _, key := range []string{"odom", "scan", "battery"} {
			if v, ok := bb.Get(key + bridge.StaleSuffix); !ok || v != false {
				return false
			}
		}
		return true
	}
	for i := 0; i < 100; i++ {
		all := true
		for _, r := range rigs {
			r.idle()
			all = all && fresh(r)
		}
		if all {
			return
		}
	}
	require.Fail(rigs[0].t, "no odometry, laser or battery after 100 periods")
}

// halt halts the tree between ticks, as a loop that stops does, and
// publishes what the halt wrote.
func (r *rig) halt() {
	r.t.Helper()
	r.tree.Halt()
	r.flush(r.now(), runtime.Idle)
}

// flush publishes the outputs, counts the velocity commands for the
// lockstep and lets the simulator run one period.
func (r *rig) flush(now time.Time, st runtime.Status) {
	r.t.Helper()
	err := r.bridge.Flush(now, st)
	require.NoError(r.t, err)
	if e := r.tree.Blackboard().Entry("cmd_vel"); e != nil {
		if seq := e.Seq(); seq != r.cmdSeq {
			r.cmdSeq = seq
			r.peer.CountSent(1)
		}
	}
	// The goals and cancels of the tick (or halt) are out before the
	// simulator goes on, as Run has it.
	if !r.peer.AwaitSent(time.Second) {
		r.t.Logf("%s: a goal or cancel was not sent within 1s", r.name)
	}
	// The next tick is due a period after this one was; the simulator
	// steps to it exactly when the period is a multiple of its step.
	for !r.next.After(now) {
		r.next = r.next.Add(r.period)
	}
	err = r.peer.Ready(r.next)
	require.NoError(r.t, err)
	r.started = true
}

// run ticks until the root completes or max simulated time passes.
func (r *rig) run(max time.Duration) runtime.Status {
	r.t.Helper()
	end := r.now().Add(max)
	for r.now().Before(end) {
		if st := r.tick(); st != runtime.Running {
			return st
		}
	}
	return runtime.Running
}

// until ticks until cond holds (checked after each tick) or max simulated
// time passes, and returns whether it held.
func (r *rig) until(max time.Duration, cond func() bool) bool {
	r.t.Helper()
	return r.stepUntil(max, cond, func() { r.tick() })
}

// idleUntil runs the scan cycle without the tree until cond holds or max
// simulated time passes, and returns whether it held.
func (r *rig) idleUntil(max time.Duration, cond func() bool) bool {
	r.t.Helper()
	return r.stepUntil(max, cond, r.idle)
}

func (r *rig) stepUntil(max time.Duration, cond func() bool, step func()) bool {
	r.t.Helper()
	end := r.now().Add(max)
	for r.now().Before(end) {
		step()
		if cond() {
			return true
		}
	}
	return false
}

// commandCount returns how many velocity commands the robot received.
func (r *rig) commandCount() int {
	r.cmdMu.Lock()
	defer r.cmdMu.Unlock()
	return len(r.cmds)
}

// commandsSince returns the velocity commands received after the first n.
func (r *rig) commandsSince(n int) []timedTwist {
	r.cmdMu.Lock()
	defer r.cmdMu.Unlock()
	return append([]timedTwist(nil), r.cmds[n:]...)
}

func (r *rig) get(key string) any {
	v, _ := r.tree.Blackboard().Get(key)
	return v
}

func (r *rig) String() string {
	pose, twist, bat, dock := r.w.robot(r.name)
	return fmt.Sprintf("%s at %v moving %+v, battery %.1f%%, %v", r.name, pose, twist, bat.Percentage*100, dock)
}
