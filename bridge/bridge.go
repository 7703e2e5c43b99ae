package bridge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"

	"github.com/btrobot/btrobot/internal/english"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// BridgeConf configures NewBridge.
type BridgeConf struct {
	Conn    *ros.Conn
	Profile *Profile
	// Tree receives the inputs in its root blackboard; inputs marked wake
	// call its Wake.
	Tree *runtime.Tree
}

// Bridge is the scan cycle of ARCHITECTURE.md between a tree and a robot. ROS
// callbacks only keep the newest message of each input; Latch, at the start
// of a tick, copies them into the blackboard with their receive time, so
// that one tick sees one consistent world and a message arriving mid-tick
// waits for the next tick; Flush, at the end of the tick, publishes the
// outputs; Stop sends the robot a zero velocity. Hand Latch, Flush and Stop
// to runtime.Loop (Run does).
type Bridge struct {
	conn    *ros.Conn
	profile *Profile
	tree    *runtime.Tree
	inputs  []*bridgeInput
	outputs []*bridgeOutput
	stopPub *ros.Publisher
	stopMsg any
	subs    []*ros.Subscription
	pubs    []*ros.Publisher

	mu       sync.Mutex
	lastStop time.Time // wall time of the last Stop
	closed   bool
}

type bridgeInput struct {
	Input
	sub       *ros.Subscription
	keys      []string // every key written, for the _stale flags
	lastCount uint64
	staleSet  bool
	stale     bool
	// latched is stale as the tree last saw it, for /diagnostics (read
	// from another goroutine).
	latched atomic.Bool
}

type bridgeOutput struct {
	Output
	pub     *ros.Publisher
	keys    []string
	lastSeq map[string]uint64
	lastPub time.Time
	single  *fieldPath // a message of one field takes a plain value
}

// StaleSuffix ends the key of the bool that says an input's key is stale.
const StaleSuffix = "_stale"

// NewBridge subscribes to the profile's inputs, advertises its outputs and
// its velocity topic, and declares their blackboard entries. An entry the
// tree already declared with a type the input cannot store into is an
// error, placed at the input in the profile.
func NewBridge(conf BridgeConf) (*Bridge, error) {
	switch {
	case conf.Conn == nil:
		return nil, errors.New("bridge: no ROS connection")
	case conf.Profile == nil:
		return nil, errors.New("bridge: no robot profile")
	case conf.Tree == nil:
		return nil, errors.New("bridge: no tree")
	}
	b := &Bridge{conn: conf.Conn, profile: conf.Profile, tree: conf.Tree}
	startScanCycle(conf.Conn)
	var errs runtime.ErrorList
	fail := func(pos runtime.Pos, format string, args ...any) {
		errs = append(errs, &runtime.BuildError{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	bb := conf.Tree.Blackboard()
	for _, in := range conf.Profile.Inputs {
		bi := &bridgeInput{Input: in}
		var cb func(any)
		if in.Wake {
			cb = func(any) { conf.Tree.Wake() }
		}
		sub, err := ros.NewSubscriber(ros.SubscriberConf{Conn: conf.Conn, Topic: in.Topic, Msg: in.Type.Go, Callback: cb})
		if err != nil {
			fail(in.Pos, "%v", err)
			continue
		}
		bi.sub = sub
		b.subs = append(b.subs, sub)
		if in.Key != "" {
			bi.keys = append(bi.keys, in.Key)
			if err := declareZero(bb, in.Key, in.Type.Go); err != nil {
				fail(in.Pos, "input %s: %v", in.Topic, err)
			}
		}
		for _, f := range in.Fields {
			bi.keys = append(bi.keys, f.Key)
			if err := declareZero(bb, f.Key, f.path.leaf); err != nil {
				fail(f.Pos, "input %s, field %s: %v", in.Topic, f.Path, err)
			}
		}
		for _, k := range bi.keys {
			if _, err := bb.Declare(k+StaleSuffix, reflect.TypeFor[bool]()); err != nil {
				fail(in.Pos, "input %s: %v", in.Topic, err)
			}
		}
		b.inputs = append(b.inputs, bi)
	}
	for _, out := range conf.Profile.Outputs {
		bo := &bridgeOutput{Output: out, lastSeq: map[string]uint64{}}
		pub, err := ros.NewPublisher(ros.PublisherConf{Conn: conf.Conn, Topic: out.Topic, Msg: out.Type.Go})
		if err != nil {
			fail(out.Pos, "%v", err)
			continue
		}
		bo.pub = pub
		b.pubs = append(b.pubs, pub)
		if out.Key != "" {
			bo.keys = []string{out.Key}
			if f := soleField(out.Type.Go); f != nil {
				bo.single = f
			}
		}
		for _, f := range out.Fields {
			bo.keys = append(bo.keys, f.Key)
		}
		for _, k := range bo.keys {
			bo.lastSeq[k] = seqOf(bb, k)
		}
		b.outputs = append(b.outputs, bo)
	}
	if s := conf.Profile.Safety; s.VelocityTopic != "" {
		pub, err := ros.NewPublisher(ros.PublisherConf{Conn: conf.Conn, Topic: s.VelocityTopic, Msg: s.VelocityType.Go})
		if err != nil {
			fail(runtime.Pos{File: conf.Profile.File}, "safety: %v", err)
		} else {
			b.stopPub = pub
			b.pubs = append(b.pubs, pub)
			b.stopMsg = reflect.New(s.VelocityType.Go).Interface()
		}
	}
	if len(errs) > 0 {
		b.Close()
		return nil, errs
	}
	return b, nil
}

// declareZero makes sure key can hold values of type t (an entry the tree
// declared must take t as it is or as a number) and, while it holds
// nothing, gives it t's zero value with a zero time stamp: scripts evaluate
// both sides of || and &&, so a condition such as
// "!battery_pct_stale && battery_pct > 0.2" must find a value before the
// first message (it is stale then).
func declareZero(bb *runtime.Blackboard, key string, t reflect.Type) error {
	e := bb.Entry(key)
	if e == nil {
		var err error
		if e, err = bb.Declare(key, nil); err != nil {
			return err
		}
	}
	if et := e.Type(); et != nil && et != t && !(isNumeric(et) && isNumeric(t)) {
		return fmt.Errorf("blackboard entry %q is declared as %s by the tree; the input writes %s", key, runtime.TypeName(et), rosTypeName(t))
	}
	if v, _, _ := e.Load(); v == nil {
		return e.Store(reflect.Zero(t).Interface(), time.Time{})
	}
	return nil
}

func isNumeric(t reflect.Type) bool {
	k := t.Kind()
	return k >= reflect.Int && k <= reflect.Float64 && k != reflect.Uintptr
}

// soleField returns the path of the only field of a message such as
// std_msgs/Float64, so that an output key holding a plain number can fill
// it.
func soleField(t reflect.Type) *fieldPath {
	var only *reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous || isMarker(f.Type) {
			continue
		}
		if only != nil {
			return nil
		}
		f := f
		only = &f
	}
	if only == nil {
		return nil
	}
	return &fieldPath{text: snakeName(*only), steps: []pathStep{{field: only.Index}}, leaf: only.Type}
}

func seqOf(bb *runtime.Blackboard, key string) uint64 {
	if e := bb.Entry(key); e != nil {
		return e.Seq()
	}
	return 0
}

// Latch copies the newest message of every input into the blackboard, with
// the time it was received, and sets the inputs' _stale flags for time now.
// It runs on the tick's goroutine, before the tree is ticked.
func (b *Bridge) Latch(now time.Time) error {
	b.conn.LatchTopics()
	bb := b.tree.Blackboard()
	for _, in := range b.inputs {
		// The snapshot the leaves see too (TopicCondition): a message that
		// came since LatchTopics waits for the next tick here as well.
		msg, at, count := in.sub.Latched()
		if msg != nil && count != in.lastCount {
			in.lastCount = count
			if in.Key != "" {
				if err := store(bb, in.Key, reflect.ValueOf(msg).Elem().Interface(), at); err != nil {
					return fmt.Errorf("input %s: %w", in.sub.Topic(), err)
				}
			}
			for i := range in.Fields {
				f := &in.Fields[i]
				v, err := f.get(msg)
				if err != nil {
					return fmt.Errorf("input %s: %w", in.sub.Topic(), err)
				}
				if err := store(bb, f.Key, v, at); err != nil {
					return fmt.Errorf("input %s, field %s: %w", in.sub.Topic(), f.Path, err)
				}
			}
		}
		stale := msg == nil || (in.MaxAge > 0 && now.Sub(at) > in.MaxAge)
		if !in.staleSet || stale != in.stale {
			in.staleSet, in.stale = true, stale
			in.latched.Store(stale)
			for _, k := range in.keys {
				if err := bb.Set(k+StaleSuffix, stale); err != nil {
					return fmt.Errorf("input %s: %w", in.sub.Topic(), err)
				}
			}
		}
	}
	return nil
}

// store writes v into key, stamped with the receive time.
func store(bb *runtime.Blackboard, key string, v any, at time.Time) error {
	e := bb.Entry(key)
	if e == nil {
		var err error
		if e, err = bb.Declare(key, nil); err != nil {
			return err
		}
	}
	return e.Store(v, at)
}

// Flush publishes the outputs that are due: on change, every tick, or at
// their rate. It runs on the tick's goroutine, after the tree was ticked,
// and never blocks: messages go out from the connection's goroutines.
func (b *Bridge) Flush(now time.Time, _ runtime.Status) error {
	bb := b.tree.Blackboard()
	tick := b.profile.Period()
	for _, o := range b.outputs {
		changed := false
		for _, k := range o.keys {
			if s := seqOf(bb, k); s != o.lastSeq[k] {
				o.lastSeq[k] = s
				changed = true
			}
		}
		switch o.Publish {
		case OnChange:
			if !changed {
				continue
			}
		case AtRate:
			period := time.Duration(float64(time.Second) / o.Rate)
			if !o.lastPub.IsZero() && now.Sub(o.lastPub) < period-tick/2 {
				continue
			}
		}
		msg, ok, err := b.message(bb, o)
		if err != nil {
			return fmt.Errorf("output %s: %w", o.pub.Topic(), err)
		}
		if !ok {
			continue
		}
		if err := o.pub.Publish(msg); err != nil {
			return err
		}
		o.lastPub = now
	}
	return nil
}

// message builds an output's message from the blackboard; false when its
// key holds nothing yet.
func (b *Bridge) message(bb *runtime.Blackboard, o *bridgeOutput) (any, bool, error) {
	t := o.Type.Go
	msg := reflect.New(t)
	if o.Key != "" {
		v, ok := bb.Get(o.Key)
		if !ok {
			return nil, false, nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		switch {
		case rv.Type() == t:
			msg.Elem().Set(rv)
		case o.single != nil:
			if err := o.single.set(msg, v); err != nil {
				return nil, false, fmt.Errorf("blackboard entry %q: %v", o.Key, err)
			}
		default:
			return nil, false, fmt.Errorf("blackboard entry %q holds a %s, not a %s", o.Key, runtime.TypeName(rv.Type()), o.Type.Name)
		}
		return msg.Interface(), true, nil
	}
	for i := range o.Fields {
		f := &o.Fields[i]
		v, ok := bb.Get(f.Key)
		if !ok {
			continue
		}
		if err := f.path.set(msg, v); err != nil {
			return nil, false, fmt.Errorf("blackboard entry %q: %v", f.Key, err)
		}
	}
	return msg.Interface(), true, nil
}

// stopTimeout bounds how long Stop waits for the zero velocity to go out.
const stopTimeout = time.Second

// stopRecount is how long after the zero velocity was acknowledged (or
// handed over) Stop counts the subscriber connections again: a connection
// the write broke is gone by then.
const stopRecount = 10 * time.Millisecond

// StopReport says how the robot was stopped: whether the zero velocity
// reached anyone. Its String is the line a supervisor can trust.
type StopReport struct {
	// Topic is the resolved velocity topic; "" when the profile names none.
	Topic string
	// Delivered says that the zero velocity reached at least one
	// subscriber: a subscriber connection of the node's publisher was open
	// when it was published, goroslib took the message for its connections
	// within stopTimeout, on Linux the peers' TCP acknowledged it (every
	// connection of the node's TCPROS port had an empty send queue, but for
	// fewer than there are subscribers; see tcpack.go), and the
	// connection was still open afterwards (as the node's own slave API
	// reports it, so this holds with the master gone). TCPROS has no
	// acknowledgement of its own: a subscriber that got the bytes and then
	// dropped them unread is beyond what a publisher can see.
	Delivered bool
	// Subscribers is how many subscribers it reached: on Linux, those of
	// the velocity topic less the node's connections that had not
	// acknowledged what was written to them by the deadline (a lower
	// bound); elsewhere, the subscriber connections it was handed to.
	Subscribers int
	// Unacknowledged counts the node's TCPROS connections, of any topic,
	// that had not acknowledged what was written to them within
	// stopTimeout (Linux only).
	Unacknowledged int
	// Problem says why it was not delivered.
	Problem string
}

// String is the one line that says how the robot was stopped.
func (s StopReport) String() string {
	switch {
	case s.Topic == "":
		return "no velocity topic to zero (the profile has no safety section)"
	case s.Delivered && s.Unacknowledged > 0:
		return fmt.Sprintf("zero velocity sent on %s and delivered to at least %d %s (%d of the node's connections did not acknowledge it)", s.Topic, s.Subscribers, english.Plural(s.Subscribers, "subscriber", "subscribers"), s.Unacknowledged)
	case s.Delivered:
		return fmt.Sprintf("zero velocity sent on %s and delivered to %d %s", s.Topic, s.Subscribers, english.Plural(s.Subscribers, "subscriber", "subscribers"))
	}
	return fmt.Sprintf("zero velocity NOT delivered on %s: %s", s.Topic, s.Problem)
}

// Stop publishes a zero velocity on the profile's velocity topic, waits (a
// second at most) until it is handed to the subscribers' connections, and
// reports whether it was delivered (StopReport). It is safe to call from
// any goroutine: the loop calls it when it stops, the watchdog when a tick
// stalls, Run when the node loses ROS. Without a velocity topic it does
// nothing.
func (b *Bridge) Stop() StopReport {
	if b.stopPub == nil {
		return StopReport{}
	}
	topic := b.stopPub.Topic()
	rep := StopReport{Topic: topic}
	before, countErr := b.conn.SubscriberConns(topic)
	msg := b.stopMsg
	if ts, ok := msg.(*geometry_msgs.TwistStamped); ok {
		msg = &geometry_msgs.TwistStamped{Header: ts.Header}
		msg.(*geometry_msgs.TwistStamped).Header.Stamp = b.conn.Clock().Now()
	}
	deadline := time.Now().Add(stopTimeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	pubErr := b.stopPub.PublishWait(ctx, msg)
	b.mu.Lock()
	b.lastStop = time.Now()
	b.mu.Unlock()
	switch {
	case countErr != nil:
		rep.Problem = fmt.Sprintf("the node's connections cannot be read, it was shut down before the stop (%v)", countErr)
		return rep
	case pubErr != nil:
		rep.Problem = fmt.Sprintf("it did not leave within %v (%v)", stopTimeout, pubErr)
		return rep
	case before == 0:
		rep.Problem = "no subscriber connected"
		return rep
	}
	// The peers' TCP acknowledges what reached their open sockets (see
	// tcpack.go); where that cannot be read, a connection still open
	// shortly after is all there is to go by.
	unacked, acks := b.conn.Unacknowledged(topic, deadline)
	time.Sleep(stopRecount)
	after, err := b.conn.SubscriberConns(topic)
	switch {
	case err != nil:
		rep.Problem = fmt.Sprintf("the node's connections could not be read after the stop (%v)", err)
	case after == 0:
		rep.Problem = fmt.Sprintf("the subscriber connection%s closed as it was sent", map[bool]string{true: "", false: "s"}[before == 1])
	case acks && min(before, after)-unacked <= 0:
		rep.Problem = fmt.Sprintf("%d of the node's connections did not acknowledge what was written to them within %v (a subscriber that does not read?), as many as %s has subscribers", unacked, stopTimeout, topic)
	default:
		rep.Delivered, rep.Subscribers = true, min(before, after)
		if acks {
			rep.Subscribers -= unacked
			rep.Unacknowledged = unacked
		}
	}
	return rep
}

// catchUpPoll is how often catchUp looks for fresh messages.
const catchUpPoll = time.Millisecond

// catchUp waits, up to patience on the wall clock, until every input whose
// newest message is older than its max_age has received another, and
// returns the topics still stale then. After the process was stalled
// (SIGSTOP) for stalled, the messages that queued meanwhile are read by
// the connection's goroutines, which may run after the loop's: catching up
// before the next Latch judges the inputs on what arrived rather than on
// the stall.
//
// On simulated time the clock is such an input: its /clock messages queued
// too. It is caught up first, to the simulated time it would read by now
// at its pace before the stall; judged against a clock still at the
// stall's start every input looked fresh, and the next tick, on the clock
// caught up, found one stale (cmd/btrobot's TestFailsafeStalledControllerResumes:
// the battery, published at 1 Hz with a max_age of 5 s, after a 5 s stop).
func (b *Bridge) catchUp(stalled, patience time.Duration) []string {
	type waiting struct {
		in    *bridgeInput
		count uint64
	}
	start := time.Now()
	deadline := start.Add(patience)
	if sc := b.conn.SimClock(); sc != nil {
		if want, ok := sc.Projected(start.Add(-stalled), start); ok {
			caught, stop := sc.Timer(want)
			patient := time.NewTimer(time.Until(deadline)) // one patience for the clock and the inputs
			select {
			case <-caught:
			case <-patient.C:
			}
			patient.Stop()
			stop()
		}
	}
	var wait []waiting
	now := b.conn.Clock().Now()
	for _, in := range b.inputs {
		msg, at, count := in.sub.Newest()
		if msg != nil && in.MaxAge > 0 && now.Sub(at) > in.MaxAge {
			wait = append(wait, waiting{in, count})
		}
	}
	for len(wait) > 0 && time.Now().Before(deadline) {
		kept := wait[:0]
		for _, w := range wait {
			if _, _, count := w.in.sub.Newest(); count == w.count {
				kept = append(kept, w)
			}
		}
		wait = kept
		if len(wait) > 0 {
			time.Sleep(catchUpPoll)
		}
	}
	var stale []string
	for _, w := range wait {
		stale = append(stale, w.in.sub.Topic())
	}
	return stale
}

// stopGrace is how long Close lets a zero velocity sent just before travel
// to the subscribers, since goroslib drops what is queued when a publisher
// closes.
const stopGrace = 50 * time.Millisecond

// Close unsubscribes the inputs and unadvertises the outputs.
func (b *Bridge) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	wait := stopGrace - time.Since(b.lastStop)
	stopped := !b.lastStop.IsZero()
	b.mu.Unlock()
	if stopped && wait > 0 {
		time.Sleep(wait)
	}
	for _, s := range b.subs {
		s.Close()
	}
	for _, p := range b.pubs {
		p.Close()
	}
	stopScanCycle(b.conn)
}

// scanCycles counts the bridges running on each connection. While one
// does, the tree's ROS leaves read topics as latched at the start of the
// tick (Conn.LatchTopics, in Latch) rather than as they arrive.
var scanCycles struct {
	mu sync.Mutex
	on map[*ros.Conn]int
}

func startScanCycle(c *ros.Conn) {
	scanCycles.mu.Lock()
	defer scanCycles.mu.Unlock()
	if scanCycles.on == nil {
		scanCycles.on = map[*ros.Conn]int{}
	}
	scanCycles.on[c]++
}

func stopScanCycle(c *ros.Conn) {
	scanCycles.mu.Lock()
	defer scanCycles.mu.Unlock()
	if scanCycles.on[c]--; scanCycles.on[c] <= 0 {
		delete(scanCycles.on, c)
	}
}

// tickView returns the message of s that a tree's leaf sees during a tick
// on c: the one latched at its start under a bridge, else the newest.
func tickView(c *ros.Conn, s *ros.Subscription) (any, time.Time, uint64) {
	scanCycles.mu.Lock()
	scan := scanCycles.on[c] > 0
	scanCycles.mu.Unlock()
	if scan {
		return s.Latched()
	}
	return s.Newest()
}
