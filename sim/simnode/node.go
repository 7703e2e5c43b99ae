package simnode

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
)

// Conf configures a simulator node. Zero fields take the defaults in
// brackets.
type Conf struct {
	// World is the world to simulate, with its robots added (required).
	World *sim.World
	// Conn is the node's connection to the ROS graph (required); the node
	// serves every robot through it. Closing the Node leaves it open.
	Conn *ros.Conn

	// RootNamespace serves the world's only robot without a namespace
	// (cmd_vel, odom, frames odom and base_link) instead of under its name
	// (robot1/cmd_vel, frames robot1/odom and robot1/base_link).
	RootNamespace bool

	// Speed is how many simulated seconds pass per wall-clock second; 0 runs
	// as fast as the machine and the lockstep peers allow [0].
	Speed float64
	// WallTime leaves time to the wall clock: the node does not set
	// /use_sim_time or publish /clock, runs at Speed 1 (which it must be)
	// and stamps messages with the wall time. Otherwise the node owns time.
	WallTime bool
	// Peers is the number of lockstep peers to wait for before time starts
	// [0: start at once].
	Peers int
	// PeerTimeout is how long (wall time) the node waits on a quiet peer
	// before asking the master whether it is still there [2 s].
	PeerTimeout time.Duration
	// Until stops the simulation at that simulated time; Done is then
	// closed and the node keeps serving, frozen [0: run until Close].
	Until time.Duration

	// OdomRate (odom and tf), BatteryRate (battery_state and docked),
	// BumperRate and ControllerRate (move_base's and the docking
	// controller's loop) in Hz of simulated time [20, 1, 10, 10]. Scans go
	// out at each robot's laser rate; the bumper also on every change.
	OdomRate, BatteryRate, BumperRate, ControllerRate float64

	// Navigation configures every robot's move_base; Map and RobotRadius
	// are filled in with the world and the robot's radius.
	Navigation sim.NavigatorConf

	// Render lists the files (.png or .svg) that Render and the render
	// service write when given no path.
	Render []string
	// OnEvent, when set, receives every event (a goal's end, a fault
	// applied or refused, a lockstep peer joining or leaving, move_base
	// stopped or restarted) with the simulated time it happened at, as
	// also published on the node's events topic. It is called on a
	// goroutine of the node, never with the node's lock held.
	OnEvent func(at time.Duration, line string)
}

// Node is the simulator running as a ROS node. Its methods are safe for
// concurrent use.
type Node struct {
	conf   Conf
	w      *sim.World
	conn   *ros.Conn
	faces  []*face
	epoch  time.Time  // ROS time of simulated time zero
	sent   sentCounts // Stats.Sent, counted by the loop's outbox
	step   time.Duration
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // the loop has stopped
	exited chan struct{} // the loop goroutine has returned
	wg     sync.WaitGroup
	wake   chan struct{}

	eventWake chan struct{} // events are waiting for deliverEvents

	realUntil    atomic.Int64 // RealTime's until (simulated ns); 0: none
	clockStopped atomic.Bool  // StopClock

	clockPub, tfPub, eventsPub *ros.Publisher
	// clockMu orders the /clock messages of the loop and of
	// clockHeartbeat; clockSaid is the newest one's time and clockAt when
	// it went out.
	clockMu   sync.Mutex
	clockSaid time.Duration
	clockAt   time.Time
	pubs      []*ros.Publisher // every publisher, for Stats
	closers   []func()         // subscriptions, publishers and servers, in creation order

	mu        sync.Mutex // guards everything below and the world
	scheduled []scheduled
	nextSched int // insertion counter, for a stable order
	peers     map[string]*peer
	joins     map[string]int           // each peer's joins taken in (Joins)
	excused   map[string]time.Duration // peers the world need not wait for, until when (Excuse)
	started   bool                     // the awaited peers have joined
	cmdsIn    uint64                   // cmd_vel messages, goals and cancels received
	countWait time.Time                // since when the loop waits for counted messages
	leftSent  uint64                   // cmd_vel messages sent by peers that have left
	events    []event
	stats     Stats
	closed    bool
	nextCtl   time.Duration
}

// Stats describe a run so far.
type Stats struct {
	// Steps is the number of physics steps taken; SimTime the simulated
	// time reached.
	Steps   int64
	SimTime time.Duration
	// Wall is the wall-clock time the simulation has run (until now, or
	// until it stopped), and Held the part of it spent waiting for
	// lockstep peers.
	Wall, Held time.Duration
	// Peers is the number of lockstep peers now taking part.
	Peers int
	// Dropped counts the messages the node's publishers dropped, oldest
	// first, because subscribers did not keep up: at Speed 0 without a
	// lockstep peer to hold it back, the node outruns most listeners.
	Dropped uint64
	// Succeeded counts the goals that succeeded, by robot and action
	// server: Succeeded[GoalKey{"robot1", "dock"}] is robot1's dock visits.
	Succeeded map[GoalKey]int
	// Sent counts the messages the node handed to its publishers, by
	// topic (global name): a frozen topic's count stands still.
	Sent map[string]uint64
}

// GoalKey names a robot's action server in Stats.Succeeded: Server is
// move_base, dock or undock.
type GoalKey struct{ Robot, Server string }

type scheduled struct {
	at  time.Duration
	seq int
	f   func(w *sim.World)
}

type peer struct {
	until  time.Duration // simulated time the peer lets the node run to
	sent   uint64
	quiet  time.Time // wall time since the node has been waiting on it
	asking bool      // a liveness check is under way
	warned bool      // the wait on it has been announced
}

// Start advertises the simulator's ROS face (see the package documentation),
// sets /use_sim_time unless WallTime, and starts the simulation loop.
func Start(conf Conf) (*Node, error) {
	if err := checkConf(&conf); err != nil {
		return nil, err
	}
	n := &Node{
		conf:      conf,
		w:         conf.World,
		conn:      conf.Conn,
		step:      conf.World.Conf().PhysicsStep,
		done:      make(chan struct{}),
		exited:    make(chan struct{}),
		wake:      make(chan struct{}, 1),
		eventWake: make(chan struct{}, 1),
		peers:     map[string]*peer{},
		joins:     map[string]int{},
		epoch:     time.Unix(0, 0),
	}
	if conf.WallTime {
		n.epoch = time.Now().Add(-conf.World.Now())
	} else if err := n.conn.SetParam("/use_sim_time", true); err != nil {
		return nil, err
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	if err := n.advertise(); err != nil {
		n.cancel()
		n.wg.Wait()
		for _, f := range n.faces {
			f.stopServers()
		}
		n.closeAll()
		return nil, err
	}
	n.nextCtl = n.w.Now()
	n.wg.Add(1)
	go n.deliverEvents()
	n.wg.Add(1)
	go n.clockHeartbeat()
	go n.loop()
	return n, nil
}

func checkConf(c *Conf) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.World == nil {
		bad("simulator node: no World")
	}
	if c.Conn == nil {
		bad("simulator node: no ROS connection (Conn)")
	}
	if c.World != nil && len(c.World.Robots()) == 0 {
		bad("simulator node: the world has no robots; add them before starting the node")
	}
	if c.RootNamespace && c.World != nil && len(c.World.Robots()) > 1 {
		bad("simulator node: RootNamespace serves one robot, the world has %d", len(c.World.Robots()))
	}
	if !(c.Speed >= 0) || math.IsInf(c.Speed, 0) {
		bad("simulator node: Speed %v: want 0 (as fast as possible) or a positive factor of real time", c.Speed)
	}
	if c.WallTime {
		if c.Speed == 0 {
			c.Speed = 1
		}
		if c.Speed != 1 {
			bad("simulator node: Speed %v with WallTime: a simulator on wall time runs at speed 1", c.Speed)
		}
		if c.Peers > 0 {
			bad("simulator node: Peers %d with WallTime: lockstep needs the node to own time", c.Peers)
		}
	}
	if c.Peers < 0 {
		bad("simulator node: Peers %d: want >= 0", c.Peers)
	}
	if c.Until < 0 {
		bad("simulator node: Until %v: want >= 0", c.Until)
	}
	if c.PeerTimeout == 0 {
		c.PeerTimeout = 2 * time.Second
	}
	rate := func(name string, r *float64, def float64) {
		if *r == 0 {
			*r = def
		}
		if !(*r > 0) || math.IsInf(*r, 0) {
			bad("simulator node: %s %v: want a positive rate in Hz", name, *r)
		}
	}
	rate("OdomRate", &c.OdomRate, 20)
	rate("BatteryRate", &c.BatteryRate, 1)
	rate("BumperRate", &c.BumperRate, 10)
	rate("ControllerRate", &c.ControllerRate, 10)
	for _, p := range c.Render {
		if _, err := renderFormat(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close stops the simulation and unadvertises everything the node
// advertised; running goals end preempted. It may be called more than once.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		<-n.exited
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.cancel()
	<-n.exited
	n.wg.Wait() // the move_base lifecycles, which may be starting a server
	for _, f := range n.faces {
		f.stopServers()
	}
	n.closeAll()
	return nil
}

func (n *Node) closeAll() {
	for i := len(n.closers) - 1; i >= 0; i-- {
		n.closers[i]()
	}
	n.closers = nil
}

// Done is closed when the simulation has stopped: at Until, or on Close.
func (n *Node) Done() <-chan struct{} { return n.done }

// World returns the simulated world. Call its methods (and its robots')
// only inside Do or At, except Map and Places, which never change.
func (n *Node) World() *sim.World { return n.w }

// Now returns the simulated time.
func (n *Node) Now() time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.w.Now()
}

// Stamp returns the ROS time of simulated time t: the time in the stamps of
// the node's messages and on /clock.
func (n *Node) Stamp(t time.Duration) time.Time { return n.epoch.Add(t) }

// Stats returns figures of the run so far.
func (n *Node) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.stats
	s.Succeeded = maps.Clone(n.stats.Succeeded)
	s.Sent = n.sent.snapshot()
	s.SimTime = n.w.Now()
	s.Peers = len(n.peers)
	for _, p := range n.pubs {
		s.Dropped += p.Dropped()
	}
	return s
}

// Do runs f between two physics steps with the world to itself: the way to
// inject faults from Go with the core's API (Robot.SetBatteryLevel,
// World.PlaceObstacle, Robot.StallWheel, Robot.SetTopicFault,
// Robot.SetNavigationDown...) and to read the world's state. f must not
// call the Node's methods. Do returns f's error.
func (n *Node) Do(f func(w *sim.World) error) error {
	n.mu.Lock()
	err := f(n.w)
	n.faultsChanged()
	n.mu.Unlock()
	n.signal()
	n.flushEvents()
	return err
}

// At runs f just before the first physics step that starts at or after
// simulated time t (before the next step if t has passed; never once the
// simulation has stopped): unlike Do, at a time that does not depend on the
// machine, so a scenario's faults repeat exactly. f gets the world to itself
// and must not call the Node's methods.
func (n *Node) At(t time.Duration, f func(w *sim.World)) {
	n.mu.Lock()
	n.nextSched++
	// After every one due at t or earlier: in time order, and in the
	// order given among those of one time. A binary search, not a sort:
	// hil schedules thousands of samples at once.
	i := sort.Search(len(n.scheduled), func(i int) bool { return n.scheduled[i].at > t })
	n.scheduled = slices.Insert(n.scheduled, i, scheduled{at: t, seq: n.nextSched, f: f})
	n.mu.Unlock()
	n.signal()
}

// event records an event line, which flushEvents sends to OnEvent, the
// events topic and /rosout; under n.mu.
func (n *Node) event(format string, args ...any) {
	n.events = append(n.events, event{n.w.Now(), fmt.Sprintf(format, args...)})
}

type event struct {
	at   time.Duration
	line string
}

// flushEvents has the events recorded so far sent, in order, by
// deliverEvents.
func (n *Node) flushEvents() {
	select {
	case n.eventWake <- struct{}{}:
	default:
	}
}

// deliverEvents sends the events to the events topic, /rosout and OnEvent,
// one batch at a time so that they keep their order, on a goroutine of its
// own so that OnEvent may call the node.
func (n *Node) deliverEvents() {
	defer n.wg.Done()
	for {
		select {
		case <-n.ctx.Done():
			n.deliver()
			return
		case <-n.eventWake:
			n.deliver()
		}
	}
}

func (n *Node) deliver() {
	n.mu.Lock()
	evs := n.events
	n.events = nil
	n.mu.Unlock()
	for _, e := range evs {
		n.eventsPub.Publish(&std_msgs.String{Data: e.line})
		n.conn.Logf(ros.LogInfo, "%s", e.line)
		if n.conf.OnEvent != nil {
			n.conf.OnEvent(e.at, e.line)
		}
	}
}

func (n *Node) signal() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// outbox collects what one step has to publish, so that it goes out after
// the lock is released.
type outbox struct {
	msgs      []outMsg
	feedbacks []func()
	sent      *sentCounts
}

// sentCounts counts the messages an outbox sent, by topic (Stats.Sent).
type sentCounts struct {
	mu sync.Mutex
	by map[string]uint64
}

func (c *sentCounts) snapshot() map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.by)
}

type outMsg struct {
	pub *ros.Publisher
	msg any
}

func (o *outbox) add(pub *ros.Publisher, msg any) { o.msgs = append(o.msgs, outMsg{pub, msg}) }

func (o *outbox) send() {
	for _, m := range o.msgs {
		m.pub.Publish(m.msg)
	}
	if o.sent != nil && len(o.msgs) > 0 {
		o.sent.mu.Lock()
		if o.sent.by == nil {
			o.sent.by = map[string]uint64{}
		}
		for _, m := range o.msgs {
			o.sent.by[m.pub.Topic()]++
		}
		o.sent.mu.Unlock()
	}
	for _, f := range o.feedbacks {
		f()
	}
	o.msgs, o.feedbacks = o.msgs[:0], o.feedbacks[:0]
}

// loop runs the simulation: wait until the peers and the speed allow a
// step, take it, publish what it produced, then /clock.
func (n *Node) loop() {
	defer close(n.exited)
	defer n.closeDone()
	start := time.Now()
	out := outbox{sent: &n.sent}
	// Time zero: what the robots sense before the first step.
	n.mu.Lock()
	for _, f := range n.faces {
		f.publish(&out, true)
	}
	n.mu.Unlock()
	// Kept to be said again until the first step: a lockstep peer's first
	// tick waits for every sensor's message of time zero, and a subscriber
	// that connected after it went out would wait for ever.
	zero := n.sensorsAtZero(out.msgs)
	out.send()
	n.publishClock()

	// Pacing: simulated time paceSim is due at wall time paceWall.
	paceWall, paceSim := time.Now(), n.Now()
	goalsSaid := time.Duration(-1) // the time publishGoalsEnded last said
	heartbeat := time.NewTicker(100 * time.Millisecond)
	defer heartbeat.Stop()
	wasReal := false
	for {
		n.mu.Lock()
		n.stats.Wall = time.Since(start)
		now := n.w.Now()
		if n.conf.Until > 0 && now >= n.conf.Until {
			n.mu.Unlock()
			return
		}
		wait := ""
		real := n.realTime(now)
		if !real {
			wait = n.holdReason(now)
		}
		n.mu.Unlock()
		if real != wasReal {
			// Into or out of a real-time run: pace from here.
			wasReal, paceWall, paceSim = real, time.Now(), now
		}
		if wait != "" {
			if now != goalsSaid {
				goalsSaid = now
				n.publishGoalsEnded()
			}
			held := time.Now()
			select {
			case <-n.ctx.Done():
				return
			case <-n.wake:
			case <-heartbeat.C:
				// Late subscribers (and peers whose stamp has passed
				// but who missed the /clock that said so) see where
				// time stands.
				n.mu.Lock()
				var again []outMsg
				if n.stats.Steps == 0 {
					for _, z := range zero {
						if !z.face.frozen(z.topic) { // a fault set since holds
							again = append(again, z.outMsg)
						}
					}
				}
				n.mu.Unlock()
				for _, m := range again {
					m.pub.Publish(m.msg)
				}
				n.publishClock()
				n.checkPeers()
			}
			n.flushEvents()
			n.mu.Lock()
			n.stats.Held += time.Since(held)
			n.mu.Unlock()
			// Waiting is not falling behind: pace from here.
			paceWall, paceSim = time.Now(), now
			continue
		}
		speed := n.conf.Speed
		if real {
			speed = 1
		}
		if speed > 0 {
			due := paceWall.Add(time.Duration(float64(now+n.step-paceSim) / speed))
			if d := time.Until(due); d > time.Millisecond {
				t := time.NewTimer(d)
				select {
				case <-n.ctx.Done():
					t.Stop()
					return
				case <-t.C:
				case <-n.wake:
					t.Stop()
					continue // a peer may have spoken; look again
				}
			} else if d < -time.Second {
				// Too far behind to catch up in a burst: carry on
				// from here at the requested speed.
				paceWall, paceSim = time.Now(), now
			}
		}
		select {
		case <-n.ctx.Done():
			return
		default:
		}
		n.lockExecuting()
		n.stepLocked(&out)
		n.mu.Unlock()
		out.send()
		n.awaitPublished()
		n.publishClock()
		n.flushEvents()
	}
}

// zeroMsg is a sensor message of time zero, said again until the first
// step.
type zeroMsg struct {
	outMsg
	face  *face
	topic string
}

// sensorsAtZero picks, from the messages of time zero, the sensors'
// (bridge.SensorsAtZeroParam), with their faces and topics.
func (n *Node) sensorsAtZero(msgs []outMsg) []zeroMsg {
	var out []zeroMsg
	for _, m := range msgs {
		for _, f := range n.faces {
			topic := map[*ros.Publisher]string{f.odomPub: sim.TopicOdom, f.batteryPub: sim.TopicBattery,
				f.bumperPub: sim.TopicBumper, f.dockedPub: sim.TopicDocked}[m.pub]
			if topic != "" {
				out = append(out, zeroMsg{m, f, topic})
			}
		}
	}
	return out
}

// faultsChanged acts on faults set through the core's API that need the
// node (a move_base server stopped or restarted); under n.mu.
func (n *Node) faultsChanged() {
	for _, f := range n.faces {
		f.checkNavigationDown()
	}
}

func (n *Node) closeDone() {
	select {
	case <-n.done:
	default:
		close(n.done)
	}
}

// stepLocked takes one physics step from now: scheduled faults, delayed
// commands and the controllers act at now, the world moves, and the robots'
// messages for the new time are collected.
func (n *Node) stepLocked(out *outbox) {
	now := n.w.Now()
	for len(n.scheduled) > 0 && n.scheduled[0].at <= now {
		s := n.scheduled[0]
		n.scheduled = n.scheduled[1:]
		s.f(n.w)
		n.faultsChanged()
	}
	for _, f := range n.faces {
		f.beforeStep(now)
	}
	if now >= n.nextCtl {
		for _, f := range n.faces {
			f.control(now, out)
		}
		period := time.Duration(float64(time.Second) / n.conf.ControllerRate)
		for n.nextCtl <= now {
			n.nextCtl += period
		}
	}
	n.w.Step(n.step)
	n.stats.Steps++
	for _, f := range n.faces {
		f.publish(out, false)
	}
}

func (n *Node) publishClock() {
	if n.conf.WallTime || n.clockStopped.Load() {
		return
	}
	now := n.Now()
	n.clockMu.Lock()
	defer n.clockMu.Unlock()
	now = max(now, n.clockSaid) // never back, whoever said it last
	n.clockSaid, n.clockAt = now, time.Now()
	n.clockPub.Publish(&rosgraph_msgs.Clock{Clock: n.Stamp(now)})
}

// clockEvery is the longest /clock stays silent while the simulator runs.
const clockEvery = 100 * time.Millisecond

// clockHeartbeat says the newest time on /clock again whenever the loop
// has said nothing for clockEvery: a physics step that takes long (the
// first plan of a move_base goal builds the planner's cost map; the race
// detector and a loaded machine multiply it) holds the world's lock and
// the loop, and a controller whose safety.clock_timeout is short would
// take a busy simulator for a dead one (200 ms to 480 ms of silence were
// measured around the first step under load). Time does not move: the
// message repeats the time last said, without the world's lock.
func (n *Node) clockHeartbeat() {
	defer n.wg.Done()
	t := time.NewTicker(clockEvery / 2)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.exited:
			return
		case <-t.C:
		}
		if n.conf.WallTime || n.clockStopped.Load() {
			continue
		}
		n.clockMu.Lock()
		if !n.clockAt.IsZero() && time.Since(n.clockAt) >= clockEvery {
			n.clockAt = time.Now()
			n.clockPub.Publish(&rosgraph_msgs.Clock{Clock: n.Stamp(n.clockSaid)})
		}
		n.clockMu.Unlock()
	}
}
