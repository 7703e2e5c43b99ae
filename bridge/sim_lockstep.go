package bridge

import (
	"context"
	"fmt"
	"math"
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// This file holds the peer's half of the simulator's lockstep (the
// simulator's half is in sim/simnode). A ROS graph gives no ordering between
// topics and no acknowledgement of a message, so a simulator that runs as
// fast as its slowest listener needs the listeners to say when they are
// done. A lockstep peer publishes std_msgs/Header on LockstepTopic:
//
//	frame_id  the peer's node name, which identifies it
//	stamp     the ROS time the simulator may run to: it stops at the first
//	          physics step at or after stamp and waits there, having
//	          published /clock, until the peer sends a later stamp
//	seq       how many messages the peer has published on the robots'
//	          cmd_vel topics, and goals and cancels to the robots' action
//	          servers, so far; the simulator also waits until it has
//	          received that many (summed over its peers), so that a command
//	          sent before the acknowledgement acts at the step it was sent at
//
// A zero stamp means the peer leaves. Service calls need no counting: a peer
// waits for the reply before it acknowledges, and the simulator has then
// taken them in. lockstep_actions.go has the goals' part.

// LockstepTopic is the topic lockstep peers report on, where btrobot's
// simulator listens when its node has the default name "sim".
const LockstepTopic = "/sim/lockstep"

// SensorPeriodsParam is where, beside its lockstep topic, the simulator
// advertises the period of every sensor topic it publishes, in seconds of
// simulated time: the parameter SensorPeriodsParam + the topic's global
// name, such as /sim/sensor_periods/robot1/odom = 0.05. A tree in lockstep
// waits, before each tick, for the messages of the sensors found there.
const SensorPeriodsParam = "sensor_periods"

// SensorsAtZeroParam is where, beside SensorPeriodsParam, the simulator
// names the sensors it publishes at time zero, before its first step (the
// parameter SensorsAtZeroParam + the topic's global name is true): a tree
// in lockstep waits for them before its first tick, which then sees the
// same inputs on every run.
const SensorsAtZeroParam = "sensors_at_zero"

// SensorPhasesParam and PhysicsStepParam, beside SensorPeriodsParam, say
// when the simulator's sensors are stamped: a sensor's messages fall due at
// its phase plus each multiple of its period, and are stamped with the
// first physics step at or after that (PhysicsStepParam: seconds). A tick
// in lockstep then knows the stamp of the newest message of each sensor at
// its time, and waits for exactly that one.
const (
	SensorPhasesParam = "sensor_phases"
	PhysicsStepParam  = "physics_step"
)

// LockstepConf makes Run take part in the simulator's lockstep (btrobot sim
// --peers 1, the demo's simulator): after each tick the tree counts the
// velocity command it published and lets the simulator run to the next
// tick, so the simulator runs exactly as fast as the tree ticks and a run
// does not depend on the machine's load. Early ticks on wake-ups are off.
// Run's safety is the same as without: one stop path.
type LockstepConf struct {
	// Topic is the simulator's lockstep topic; LockstepTopic when "".
	Topic string
	// Hold keeps the tree in the lockstep after the run ends, until the
	// connection closes: the simulator stays at the run's last moment (the
	// demo reads and draws it there).
	Hold bool
	// Suspend makes a pause of the tree suspend its action leaves as
	// outside the lockstep (their goals cancelled, sent again on resume),
	// for a harness that lets the simulated world go on while the tree is
	// held (hil's served pause, simnode.Node.Excuse). Without it the world
	// stands still with the held tick, and a pause changes nothing of it.
	Suspend bool
}

// lockstep is a Run's part in the lockstep: hooks around the bridge's
// latch and flush, and the acknowledgement after each tick.
type lockstep struct {
	conn        *ros.Conn
	clock       runtime.Clock // the connection's (simulated) clock
	bridge      *Bridge
	peer        *LockstepPeer
	hold        bool
	suspend     bool // LockstepConf.Suspend
	sensors     *sensorWait
	bb          *runtime.Blackboard
	velocityKey string
	lastSeq     uint64
	period      time.Duration
	next        time.Time
	readyErr    error
	goals       *ros.Subscription // the simulator's count of the robot's ended goals
	ctx         context.Context   // the run's: once it ends, the simulator is not let go again
	untilDone   bool              // the run ends when the root completes (RunConf.UntilDone)
	goalsWarned bool
	goalsLost   uint64 // terminal states the simulator counted that never came
	sendWarned  bool
	ticked      bool // a tick has latched

	mu       sync.Mutex
	tickDone chan struct{} // closed when the tick that latched last ends (observe)
	quit     chan struct{} // closed by close
	stalls   sync.WaitGroup
}

// startLockstep joins the lockstep once the simulator's clock has started.
func startLockstep(ctx context.Context, conn *ros.Conn, p *Profile, conf LockstepConf, bridge *Bridge, tree *runtime.Tree, period time.Duration) (*lockstep, error) {
	topic := conf.Topic
	if topic == "" {
		topic = LockstepTopic
	}
	ls := &lockstep{conn: conn, clock: conn.Clock(), bridge: bridge, hold: conf.Hold, suspend: conf.Suspend, bb: tree.Blackboard(), period: period,
		velocityKey: velocityOutputKey(p), ctx: ctx, quit: make(chan struct{})}
	if ls.velocityKey != "" {
		// A command sent before the simulator has connected is lost, and
		// the simulator would wait for it for ever.
		if err := conn.WaitSubscribers(ctx, p.Safety.VelocityTopic, 1); err != nil {
			return nil, err
		}
		if e := ls.bb.Entry(ls.velocityKey); e != nil {
			ls.lastSeq = e.Seq()
		}
	}
	var err error
	if ls.peer, err = NewLockstepPeer(conn, topic); err != nil {
		return nil, err
	}
	if ls.sensors, err = newSensorWait(conn, p, path.Dir(conn.Resolve(topic))); err != nil {
		ls.close()
		return nil, err
	}
	ended := path.Join(path.Dir(conn.Resolve(topic)), ros.RobotName(conn), GoalsEndedTopic)
	if ls.goals, err = ros.NewSubscriber(ros.SubscriberConf{Conn: conn, Topic: ended, Msg: &std_msgs.Header{}, Callback: ls.sensors.notify}); err != nil {
		ls.close()
		return nil, err
	}
	// A goal the first tick gives to a client not yet connected to its
	// server would leave when the connection is made, at a step the
	// machine's scheduling decides (battery_drop_docks set off a step late
	// one run in 150 under load): the tree joins once its clients are
	// connected to the servers on the graph. The simulator waits for it.
	wait, cancel := context.WithTimeout(ctx, serverPatience)
	if missing := conn.AwaitActionServers(wait); len(missing) > 0 {
		conn.Logf(ros.LogWarn, "lockstep: not connected to the action servers %s within %v; the run may not repeat exactly", strings.Join(missing, ", "), serverPatience)
	}
	cancel()
	ls.next = conn.Clock().Now()
	lockstepFor(conn).run.Store(ls)
	return ls, nil
}

// serverPatience bounds the wait, before the first tick in lockstep, for
// the tree's action clients to connect to their servers.
const serverPatience = 5 * time.Second

// latchStart notes that a tick begins (its end closes tickDone).
func (ls *lockstep) latchStart() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.tickDone == nil {
		ls.tickDone = make(chan struct{})
	}
	return nil
}

// tickEnded notes that the tick has ended (observe).
func (ls *lockstep) tickEnded() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.tickDone != nil {
		close(ls.tickDone)
		ls.tickDone = nil
	}
}

// held reports whether the simulator waits for the tree: it stands at the
// time the tree last let it run to (LockstepPeer.held). While it does,
// the simulated world stands still, whatever the wall clock says.
func (ls *lockstep) held() bool {
	return ls.peer.held(ls.clock.Now(), ls.sensors.holdMargin())
}

// unlessHeld returns onStall (the watchdog's: stop the robot, cancel its
// goals) as it acts in lockstep. A tick that runs long on the wall clock
// while the simulator waits for it moves nothing: the robot stands still
// in simulated time, and stopping it (or cancelling its goals) would
// change the run by the machine's load (blocked_corridor's robot gave up
// its goal one run in three under load). So while the simulator is held,
// the stop waits: it comes if the simulator goes on without the tick
// (simnode's RealTime, a controller's fault) while the tick still runs,
// and not at all if the tick ends first.
func (ls *lockstep) unlessHeld(onStall func()) func() {
	return func() {
		if !ls.held() {
			onStall()
			return
		}
		ls.mu.Lock()
		done := ls.tickDone
		ls.mu.Unlock()
		if done == nil {
			onStall()
			return
		}
		// Past the hold's margin the simulator runs without the tick.
		at := time.Unix(0, ls.peer.until.Load()).Add(ls.sensors.holdMargin() + time.Nanosecond)
		moved, stop := ls.clock.Timer(at)
		ls.stalls.Add(1)
		go func() {
			defer ls.stalls.Done()
			defer stop()
			select {
			case <-moved:
				onStall()
			case <-done:
			case <-ls.quit:
			}
		}()
	}
}

// quietSince returns, for the supervisor's /clock check, the wall time
// from which a silent /clock counts: now while the simulator waits for
// the tree (its clock stands still on purpose); when the tree last let
// it go, if the simulator's sensor messages show it going on past that
// without the tree (its /clock stopped, see simnode's StopClock and
// RealTime) or lockstepLiveness has passed since; else now. A simulator
// in lockstep moves nothing while its /clock is silent unless it goes on
// without the tree, and a step can take seconds of a loaded machine's
// wall time (blocked_corridor's planner finding no path under load: the
// runs ended "/clock stopped 2.4 s ago").
func (ls *lockstep) quietSince() time.Time {
	if ls.held() {
		return time.Now()
	}
	ready := time.Unix(0, ls.peer.readyAt.Load())
	until := time.Unix(0, ls.peer.until.Load())
	if ls.sensors.stampedAfter(until.Add(ls.sensors.holdMargin())) || time.Since(ready) >= lockstepLiveness {
		return ready
	}
	return time.Now()
}

// lockstepQuietSince is lockstep.quietSince for the run in lockstep on the
// connection (now while it joins the lockstep); zero without one.
func lockstepQuietSince(c *ros.Conn) time.Time {
	l := lockstepOf(c)
	if l == nil {
		return time.Time{}
	}
	if l.joining.Load() {
		return time.Now() // the simulator waits for the tree to join
	}
	if ls := l.run.Load(); ls != nil {
		return ls.quietSince()
	}
	return time.Time{}
}

// latch waits for the sensor messages of the tick's time and for the
// terminal states of the goals the simulator ended before it, then
// latches.
func (ls *lockstep) latch(now time.Time) error {
	ls.latchStart()
	if !ls.ticked || !ls.sensors.stampsSaid {
		// The first tick, or a simulator that does not say what it
		// sent: the sensors' schedule tells what to wait for.
		ls.sensors.wait(now)
	}
	ls.waitGoals(now)
	return ls.bridge.Latch(now)
}

// waitGoals waits, when the simulator counts the robot's ended goals
// (GoalsEndedTopic), for its count at now, for as many terminal states to
// have arrived and their leaves' works to have returned, for the newest
// messages of the sensors that also go out on change to say what the
// simulator said last, and for the newest messages of the sensor topics to
// be the ones it says it sent; at most heldPatience, then it warns. Each
// of these is an event the simulator, held meanwhile, has made certain:
// how long it takes is the machine's business, not the run's.
func (ls *lockstep) waitGoals(now time.Time) {
	first := !ls.ticked
	ls.ticked = true
	if ls.goals == nil || first {
		return // the simulator has not stepped before the first tick
	}
	deadline := time.Now().Add(heldPatience)
	t := time.NewTimer(waitPoll)
	defer t.Stop()
	for {
		msg, _, count := ls.goals.Newest()
		if count == 0 {
			return // not btrobot's simulator, or not yet started
		}
		h := msg.(*std_msgs.Header)
		if !h.Stamp.Before(now) && strings.Contains(h.FrameId, "@") {
			ls.sensors.stampsSaid = true
		}
		got := ls.conn.GoalsEnded() + ls.goalsLost
		if !h.Stamp.Before(now) && got >= uint64(h.Seq) && ls.sensors.saidIn(h.FrameId) && lockstepOf(ls.conn).idle() &&
			// The sensors without a stamp (std_msgs/Bool) by their
			// schedule, unless a fault holds them back.
			(!ls.sensors.stampsSaid || ls.sensors.fresh(now, false, settled(h.FrameId))) {
			return
		}
		if ls.sensors.movedOn(now) {
			return // the simulator went on without waiting (see sensorWait.clock)
		}
		if time.Now().After(deadline) {
			if !h.Stamp.Before(now) && got < uint64(h.Seq) {
				// Lost on the way: wait for them no more.
				ls.goalsLost += uint64(h.Seq) - got
			}
			if !ls.goalsWarned {
				ls.goalsWarned = true
				ls.conn.Logf(ros.LogWarn, "lockstep: the goals the simulator ended by %v (and their leaves' works), or the sensor changes it sent (%q), have not all come; the run may not repeat exactly", now, h.FrameId)
			}
			return
		}
		ls.sensors.pause(t)
	}
}

// flush publishes the outputs and counts the velocity command among them.
func (ls *lockstep) flush(now time.Time, st runtime.Status) error {
	if err := ls.bridge.Flush(now, st); err != nil {
		return err
	}
	if ls.velocityKey != "" {
		if e := ls.bb.Entry(ls.velocityKey); e != nil && e.Seq() != ls.lastSeq {
			ls.lastSeq = e.Seq()
			ls.peer.CountSent(1) // the bridge published it in Flush
		}
	}
	return nil
}

// observe lets the simulator run to the next tick. It runs once the loop
// has read the tick's end time: a simulator let go in Flush would be past
// the next tick before the loop looked, and the loop would skip that tick
// while the simulator waits at it. The next tick is due a period after
// this one was, as the loop schedules it.
func (ls *lockstep) observe(t runtime.TickReport) {
	ls.tickEnded()
	// Time may have gone on during the tick, when the simulator ran without
	// waiting for the tree (simnode's RealTime, while the tree stalled):
	// the next tick is then due after where time stands now.
	from := t.Start
	if now := ls.conn.Clock().Now(); now.After(from) {
		from = now
	}
	for !ls.next.After(from) {
		ls.next = ls.next.Add(ls.period)
	}
	// The goals and cancels the tick sent are out before it lets the
	// simulator go (lockstep_actions.go).
	if !ls.peer.AwaitSent(heldPatience) && !ls.sendWarned {
		ls.sendWarned = true
		ls.conn.Logf(ros.LogWarn, "lockstep: a goal or cancel was not sent within %v; the run may not repeat exactly", heldPatience)
	}
	if ls.ctx.Err() != nil || ls.untilDone && t.Status.Completed() && !ls.hold {
		// The run ends after this tick: the simulator stays at its time
		// while the tree is halted and the robot stopped, and counts what
		// that sends before it goes on without the peer (close).
		return
	}
	if err := ls.peer.Ready(ls.next); err != nil && ls.readyErr == nil {
		ls.readyErr = err
		ls.conn.Logf(ros.LogError, "lockstep: %v", err)
	}
}

// close leaves the lockstep, unless it holds.
func (ls *lockstep) close() {
	if l := lockstepOf(ls.conn); l != nil {
		l.run.CompareAndSwap(ls, nil)
	}
	close(ls.quit)
	ls.stalls.Wait()
	if ls.sensors != nil {
		ls.sensors.close()
	}
	if ls.goals != nil {
		ls.goals.Close()
	}
	if ls.hold || ls.peer == nil {
		return
	}
	// The halt's cancels are out before the peer leaves, so that they
	// count among what it sent.
	lockstepOf(ls.conn).wait(sensorPatience)
	leave, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ls.peer.Leave(leave)
}

// velocityOutputKey is the blackboard key of the profile's output on its
// velocity topic, whose changes the bridge publishes; "" when there is
// none or it publishes otherwise than on change.
func velocityOutputKey(p *Profile) string {
	for _, o := range p.Outputs {
		if o.Topic == p.Safety.VelocityTopic && o.Key != "" && o.Publish == OnChange {
			return o.Key
		}
	}
	return ""
}

// sensorPatience bounds the wait for one tick's sensor messages by their
// schedule (a simulator that does not say what it sent): a sensor whose
// topic a fault has frozen must not stop the run.
const sensorPatience = time.Second

// heldPatience bounds, as a liveness bound only, the waits in lockstep for
// what the simulator says it has sent (GoalsEndedTopic) and, before the
// first tick, for the sensors' messages of time zero: the simulator waits
// meanwhile, so a loaded machine that delivers them late changes nothing.
const heldPatience = 5 * time.Second

// sensorWait makes a tick in lockstep wait for the sensor messages of its
// time. The lockstep orders time, not topics: the simulator publishes a
// step's messages before the /clock that wakes the tree, but on other
// connections, so the tree may wake first; and since the simulator runs as
// fast as the tree ticks, a message a millisecond late is a hundred
// simulated milliseconds late, enough to make a bumper look silent.
type sensorWait struct {
	subs    []*ros.Subscription
	topics  []string                     // subs' resolved topics
	byTopic map[string]*ros.Subscription // subs by their resolved topics
	periods []time.Duration
	phases  []time.Duration // SensorPhasesParam; used with step
	step    time.Duration   // PhysicsStepParam; 0 when not advertised
	atZero  []bool          // published at time zero (SensorsAtZeroParam)
	started bool
	// clock is the tree's (simulated) clock. When it passes the tick's
	// time during the wait, the simulator has gone on without waiting
	// for the tick (it runs at real time while a controller's fault is
	// played out, see simnode.Node.RealTime): its messages are not held
	// for this tick, and waiting for them would only hold back the tick
	// and the watchdog that times it (a stalled controller's robot drove
	// on for 1.7 s).
	clock runtime.Clock
	// warn says, once, that a tick went on without its sensor messages:
	// the run may not repeat exactly.
	warn   func(now time.Time)
	warned bool
	// stampsSaid is set once the simulator has said the stamps of the
	// messages it sent (GoalsEndedTopic): the ticks after the first wait
	// for those rather than for the schedule.
	stampsSaid bool
	// arrived holds a token once a message of a sensor (or of the
	// simulator's count of ended goals) came: the waits below wake on it
	// at once rather than when a poll comes round. A sleep shorter than a
	// millisecond lasts a millisecond on an idle Go process (the runtime's
	// poller waits in whole milliseconds), so polling cost every tick up
	// to two: a tenth of the run's wall time at 20 Hz.
	arrived chan struct{}
}

// notify wakes a wait: a message came.
func (s *sensorWait) notify(any) {
	select {
	case s.arrived <- struct{}{}:
	default:
	}
}

// pause waits for the next message or, for what no message tells (a
// terminal state received, a leaf's work returned, the clock moved on),
// up to waitPoll.
func (s *sensorWait) pause(t *time.Timer) {
	t.Reset(waitPoll)
	select {
	case <-s.arrived:
	case <-t.C:
	}
}

// waitPoll is how often a lockstep wait looks again without a message.
const waitPoll = time.Millisecond

// newest is the stamp of the newest message a sensor's schedule has by
// now: its phase plus the last multiple of its period, rounded up to the
// physics step; ok is false when that cannot be told.
func (s *sensorWait) newest(i int, now time.Time) (time.Time, bool) {
	if s.step <= 0 {
		return time.Time{}, false
	}
	t := now.Sub(time.Unix(0, 0)) - s.phases[i]
	if t < 0 {
		return time.Time{}, false
	}
	due := s.phases[i] + t/s.periods[i]*s.periods[i]
	due = (due + s.step - 1) / s.step * s.step
	return time.Unix(0, 0).Add(due), true
}

// newSensorWait subscribes to the profile's inputs whose period the
// simulator advertises under param (see SensorPeriodsParam).
func newSensorWait(conn *ros.Conn, p *Profile, simNS string) (*sensorWait, error) {
	s := &sensorWait{clock: conn.Clock(), byTopic: map[string]*ros.Subscription{}, arrived: make(chan struct{}, 1), warn: func(now time.Time) {
		conn.Logf(ros.LogWarn, "lockstep: the sensor messages of %v did not all come within %v; the run may not repeat exactly", now, sensorPatience)
	}}
	if secs, err := conn.ParamFloat64(path.Join(simNS, PhysicsStepParam)); err == nil && secs > 0 {
		s.step = time.Duration(math.Round(secs * float64(time.Second)))
	}
	param := path.Join(simNS, SensorPeriodsParam)
	for _, in := range p.Inputs {
		name := param + conn.Resolve(in.Topic)
		if ok, err := conn.HasParam(name); err != nil || !ok {
			continue // not a sensor of the simulator's
		}
		secs, err := conn.ParamFloat64(name)
		if err != nil || !(secs > 0) {
			continue
		}
		sub, err := ros.NewSubscriber(ros.SubscriberConf{Conn: conn, Topic: in.Topic, Msg: in.Type, Callback: s.notify})
		if err != nil {
			s.close()
			return nil, err
		}
		s.subs, s.periods = append(s.subs, sub), append(s.periods, time.Duration(secs*float64(time.Second)))
		s.byTopic[conn.Resolve(in.Topic)] = sub
		s.topics = append(s.topics, conn.Resolve(in.Topic))
		atZero, _ := conn.HasParam(path.Join(simNS, SensorsAtZeroParam) + conn.Resolve(in.Topic))
		s.atZero = append(s.atZero, atZero)
		phase, err := conn.ParamFloat64(path.Join(simNS, SensorPhasesParam) + conn.Resolve(in.Topic))
		if err != nil {
			phase = 0
		}
		s.phases = append(s.phases, time.Duration(math.Round(phase*float64(time.Second))))
	}
	return s, nil
}

// wait returns once every sensor that has spoken has a message from its
// last period before now (by its header stamp, else its receive time), or
// after sensorPatience; before the first tick, once every sensor has
// spoken (its message of time zero).
func (s *sensorWait) wait(now time.Time) {
	first := !s.started
	s.started = true
	patience := sensorPatience
	if first {
		patience = heldPatience // the simulator waits for the first tick
	}
	deadline := time.Now().Add(patience)
	t := time.NewTimer(waitPoll)
	defer t.Stop()
	for {
		ok := s.fresh(now, first, nil)
		if ok || s.movedOn(now) {
			return
		}
		if time.Now().After(deadline) {
			if !s.warned && s.warn != nil {
				s.warned = true
				s.warn(now)
			}
			return
		}
		s.pause(t)
	}
}

// fresh reports whether every sensor but those in skip (by resolved topic)
// has a message from its last period before now (by its header stamp,
// else its receive time); before the first tick (first), whether every
// sensor the simulator publishes at time zero has spoken.
func (s *sensorWait) fresh(now time.Time, first bool, skip map[string]bool) bool {
	for i, sub := range s.subs {
		if skip[s.topics[i]] {
			continue
		}
		msg, at, count := sub.Newest()
		switch {
		case count == 0 && first && s.atZero[i]:
			// The simulator publishes it at time zero, before the first
			// tick (and again until its first step): wait.
			return false
		case count == 0 || first:
			continue
		}
		// The simulator publishes a sensor at the first step at or after
		// each multiple of its period, so by its stamp its newest message
		// at a tick is less than a period old (one a period old is the
		// one before). A message without a header goes by the time it
		// came, on a clock that lags: a period old is as new as can be
		// told.
		stale := at.Before(now.Add(-s.periods[i]))
		if st, has := headerStamp(msg); has {
			if st.IsZero() {
				st = time.Unix(0, 0) // ROS time zero
			}
			stale = !st.After(now.Add(-s.periods[i]))
			if want, ok := s.newest(i, now); ok {
				stale = st.Before(want)
			}
		}
		if stale {
			return false
		}
	}
	return true
}

// settled returns the sensor topics that said (GoalsEndedTopic's
// frame_id) settles without their schedule: those said with the stamp of
// the newest message sent (saidIn waits for it), and those a fault freezes
// or delays ("=frozen", "=delayed": nothing comes on their schedule).
func settled(said string) map[string]bool {
	topics := map[string]bool{}
	for _, kv := range strings.Fields(said) {
		if i := strings.LastIndexByte(kv, '@'); i > 0 {
			topics[kv[:i]] = true
		} else if i := strings.LastIndexByte(kv, '='); i > 0 && (kv[i+1:] == "frozen" || kv[i+1:] == "delayed") {
			topics[kv[:i]] = true
		}
	}
	return topics
}

// saidIn reports whether the newest message of each sensor named in said
// (GoalsEndedTopic's frame_id: "/robot1/docked=true ...", the values the
// simulator said last on the topics that also go out on change) has that
// value. A change goes out between the sensor's periods, so its schedule
// does not say it is on its way: without this a tick may or may not see
// it, by the machine's load. Sensors the tree does not read, and values
// that are not std_msgs/Bool's, are not waited for. For a sensor topic
// said with a stamp ("/robot1/odom@12340000000"), the newest message must
// be stamped no earlier: the one the simulator sent last (a frozen or
// delayed topic's stamp stands still, and so is not waited for).
func (s *sensorWait) saidIn(said string) bool {
	for _, kv := range strings.Fields(said) {
		if i := strings.LastIndexByte(kv, '@'); i > 0 {
			// A sensor topic and the stamp of the newest message the
			// simulator sent on it (nanoseconds of ROS time).
			ns, err := strconv.ParseInt(kv[i+1:], 10, 64)
			sub := s.byTopic[kv[:i]]
			if err != nil || sub == nil {
				continue
			}
			msg, _, count := sub.Newest()
			if count == 0 {
				return false
			}
			if st, ok := headerStamp(msg); ok && stampNanos(st) < ns {
				return false
			}
			continue
		}
		i := strings.LastIndexByte(kv, '=')
		if i < 0 {
			continue
		}
		want, err := strconv.ParseBool(kv[i+1:])
		if err != nil {
			continue
		}
		sub := s.byTopic[kv[:i]]
		if sub == nil {
			continue
		}
		msg, _, count := sub.Newest()
		if count == 0 {
			return false
		}
		if got, ok := boolData(msg); ok && got != want {
			return false
		}
	}
	return true
}

// stampNanos is a header stamp in nanoseconds of ROS time (a zero
// time.Time is ROS time zero).
func stampNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// boolData returns msg.Data when it is a bool (std_msgs/Bool).
func boolData(msg any) (bool, bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return false, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return false, false
	}
	d := v.FieldByName("Data")
	if !d.IsValid() || d.Kind() != reflect.Bool {
		return false, false
	}
	return d.Bool(), true
}

// movedOn reports whether the simulated clock has gone past the tick's
// time by more than the simulator's hold allows: a simulator in lockstep
// holds at the first physics step at or after the tick's time, so the
// clock may stand up to a step past it; two steps past, it runs on its own.
func (s *sensorWait) movedOn(now time.Time) bool {
	return s.clock != nil && s.clock.Now().After(now.Add(s.holdMargin()))
}

// stampedAfter reports whether the newest message of a sensor is stamped
// after t.
func (s *sensorWait) stampedAfter(t time.Time) bool {
	for _, sub := range s.subs {
		if msg, _, count := sub.Newest(); count > 0 {
			if st, ok := headerStamp(msg); ok && st.After(t) {
				return true
			}
		}
	}
	return false
}

// holdMargin is how far past a tick's time the simulated clock may stand
// while the simulator holds for the tick: two physics steps.
func (s *sensorWait) holdMargin() time.Duration {
	if s.step <= 0 {
		return 100 * time.Millisecond // the step is not advertised
	}
	return 2 * s.step
}

func (s *sensorWait) close() {
	for _, sub := range s.subs {
		sub.Close()
	}
}

// headerStamp returns msg.Header.Stamp when the message has a header.
func headerStamp(msg any) (time.Time, bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return time.Time{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return time.Time{}, false
	}
	h := v.FieldByName("Header")
	if !h.IsValid() || h.Kind() != reflect.Struct {
		return time.Time{}, false
	}
	st := h.FieldByName("Stamp")
	if t, ok := st.Interface().(time.Time); st.IsValid() && ok {
		return t, true
	}
	return time.Time{}, false
}

// LockstepPeer is one participant in the simulator's lockstep. Its methods
// are safe for concurrent use.
type LockstepPeer struct {
	conn  *ros.Conn
	pub   *ros.Publisher
	topic string

	mu   sync.Mutex
	sent uint32
	left bool
	// until is the newest stamp Ready sent (Unix ns; 0 before the first),
	// readyAt the wall time it went (Unix ns): see held.
	until, readyAt atomic.Int64
}

// NewLockstepPeer joins the lockstep of the simulator that listens on topic
// (LockstepTopic when empty). Nothing is sent until Ready.
func NewLockstepPeer(c *ros.Conn, topic string) (*LockstepPeer, error) {
	if topic == "" {
		topic = LockstepTopic
	}
	// Latched: an acknowledgement is the peer's whole state, so the newest
	// one is all a simulator that connects late needs, and it cannot be lost
	// to a connection still being set up.
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: c, Topic: topic, Msg: &std_msgs.Header{}, Latch: true})
	if err != nil {
		return nil, fmt.Errorf("lockstep: %w", err)
	}
	p := &LockstepPeer{conn: c, pub: pub, topic: pub.Topic()}
	lockstepFor(c).peer.Store(p)
	return p, nil
}

// CountSent records that n more messages went out on cmd_vel topics the
// simulator subscribes to. Count a message once it has been published.
func (p *LockstepPeer) CountSent(n int) {
	p.mu.Lock()
	p.sent += uint32(n)
	p.mu.Unlock()
}

// Ready tells the simulator it may run until ROS time until (see the
// protocol above); until must be later than the newest /clock the peer has
// seen, or the simulator stays where it is.
func (p *LockstepPeer) Ready(until time.Time) error {
	if until.IsZero() || !until.After(time.Unix(0, 0)) {
		return fmt.Errorf("lockstep: ready until %v: want a time after ROS time zero", until)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left {
		return fmt.Errorf("lockstep: the peer has left")
	}
	err := p.pub.Publish(&std_msgs.Header{Seq: p.sent, Stamp: until, FrameId: p.conn.Name()})
	if err == nil {
		p.until.Store(until.UnixNano())
		p.readyAt.Store(time.Now().UnixNano())
	}
	return err
}

// held reports whether the simulator waits for this peer: the simulated
// clock now stands where the peer last let it run to, not more than
// margin past it (the simulator holds at the first physics step at or
// after the stamp). A simulator that went on without the peer (simnode's
// RealTime, while a controller's fault is played out) is not held. The
// simulated world then stands still until the peer acknowledges,
// however long that takes on the wall clock.
func (p *LockstepPeer) held(now time.Time, margin time.Duration) bool {
	p.mu.Lock()
	left := p.left
	p.mu.Unlock()
	if left {
		return false
	}
	until := time.Unix(0, p.until.Load())
	return !now.Before(until) && !now.After(until.Add(margin))
}

// Leave tells the simulator to stop waiting for this peer and waits, up to
// ctx, until the message is out. The publisher stays, latched with the
// message, until the connection closes: closing it at once could lose it.
func (p *LockstepPeer) Leave(ctx context.Context) error {
	p.mu.Lock()
	if p.left {
		p.mu.Unlock()
		return nil
	}
	p.left = true
	msg := &std_msgs.Header{Seq: p.sent, Stamp: time.Unix(0, 0), FrameId: p.conn.Name()}
	p.mu.Unlock()
	return p.pub.PublishWait(ctx, msg)
}
