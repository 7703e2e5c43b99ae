package mission

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// runLockstep is ros.Run for a simulator that waits for its lockstep peers
// (btrobot sim --peers 1, the demo's simulator): the same scan cycle around
// each tick and the same safety stop, with the tree taking part in the
// lockstep. After each tick it counts the velocity command it published and
// lets the simulator run to the next tick, so the simulator runs exactly as
// fast as the tree ticks and a run does not depend on the machine's load.
//
// Early ticks on wake-ups are off: the simulator is held at the next tick's
// time, so a wake-up could only tick at a time the tree has seen already.
//
// With hold, the tree does not leave the lockstep when the run ends: the
// simulator stays at the run's last moment until the connection closes
// (the demo reads and draws it there).
func runLockstep(ctx context.Context, conf ros.RunConf, topic string, hold bool) (ros.RunReport, error) {
	conn, p := conf.Conn, conf.Profile
	switch {
	case conn == nil || conf.Tree == nil || p == nil:
		return ros.RunReport{}, errors.New("lockstep run: needs a connection, a tree and a profile")
	case conn.SimClock() == nil:
		return ros.RunReport{}, errors.New("lockstep run: the node is not on simulated time (no /use_sim_time): is the simulator running on this master?")
	}
	rate := conf.Rate
	if rate <= 0 {
		rate = p.Rate
	}
	bridge, err := ros.NewBridge(ros.BridgeConf{Conn: conn, Profile: p, Tree: conf.Tree})
	if err != nil {
		return ros.RunReport{}, err
	}
	defer bridge.Close()
	velocityKey := velocityOutputKey(p)
	if velocityKey != "" {
		// A command sent before the simulator has connected is lost, and
		// the simulator would wait for it for ever.
		if err := conn.WaitSubscribers(ctx, p.Safety.VelocityTopic, 1); err != nil {
			return ros.RunReport{Status: runtime.Idle}, err
		}
	}
	peer, err := ros.NewLockstepPeer(conn, topic)
	if err != nil {
		return ros.RunReport{}, err
	}
	defer func() {
		if hold {
			return
		}
		leave, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		peer.Leave(leave)
	}()
	select {
	case <-conn.SimClock().Started():
	case <-ctx.Done():
		return ros.RunReport{Status: runtime.Idle}, ctx.Err()
	}

	sensors, err := newSensorWait(conn, p)
	if err != nil {
		return ros.RunReport{}, err
	}
	defer sensors.close()
	latch := func(now time.Time) error {
		sensors.wait(now)
		return bridge.Latch(now)
	}

	period := time.Duration(float64(time.Second) / rate)
	bb := conf.Tree.Blackboard()
	var lastSeq uint64
	if e := bb.Entry(velocityKey); velocityKey != "" && e != nil {
		lastSeq = e.Seq()
	}
	flush := func(now time.Time, st runtime.Status) error {
		if err := bridge.Flush(now, st); err != nil {
			return err
		}
		if velocityKey != "" {
			if e := bb.Entry(velocityKey); e != nil && e.Seq() != lastSeq {
				lastSeq = e.Seq()
				peer.CountSent(1) // the bridge published it in Flush
			}
		}
		return nil
	}
	// The simulator may run on once the loop has read the tick's end time:
	// a simulator let go in Flush would be past the next tick before the
	// loop looked, and the loop would skip that tick while the simulator
	// waits at it. Observe comes after that read. The next tick is due a
	// period after this one was, as the loop schedules it.
	next := conn.Clock().Now()
	var readyErr error
	observe := func(t runtime.TickReport) {
		if conf.Observe != nil {
			conf.Observe(t)
		}
		for !next.After(t.Start) {
			next = next.Add(period)
		}
		if err := peer.Ready(next); err != nil && readyErr == nil {
			readyErr = err
			conn.Logf(ros.LogError, "lockstep: %v", err)
		}
	}
	stop := func(error) {
		if err := bridge.Stop(); err != nil {
			conn.Logf(ros.LogError, "could not stop the robot: %v", err)
		}
	}
	lc := runtime.LoopConf{
		Tree: conf.Tree, Clock: conn.Clock(), Rate: rate, UntilDone: conf.UntilDone,
		Latch: latch, Flush: flush, OnStop: stop, Observe: observe,
	}
	if w := p.Safety.Watchdog; w > 0 {
		lc.Watchdog = time.Duration(w) * period
		lc.OnStall = func() {
			conn.Logf(ros.LogWarn, "a tick has run %v: stopping the robot", lc.Watchdog)
			stop(nil)
			if conf.OnStall != nil {
				conf.OnStall()
			}
		}
	}
	loop, err := runtime.NewLoop(lc)
	if err != nil {
		return ros.RunReport{}, fmt.Errorf("lockstep run: %w", err)
	}
	st, err := loop.Run(ctx)
	return ros.RunReport{Status: st, Stats: loop.Stats()}, err
}

// velocityOutputKey is the blackboard key of the profile's output on its
// velocity topic, whose changes the bridge publishes; "" when there is
// none or it publishes otherwise than on change.
func velocityOutputKey(p *ros.Profile) string {
	for _, o := range p.Outputs {
		if o.Topic == p.Safety.VelocityTopic && o.Key != "" && o.Publish == ros.OnChange {
			return o.Key
		}
	}
	return ""
}

// simSensorPeriods are the periods of the sensor topics of btrobot's
// simulator (docs/simulator.md), by the topic's last name.
var simSensorPeriods = map[string]time.Duration{
	"odom":          50 * time.Millisecond,
	"scan":          100 * time.Millisecond,
	"bumper":        100 * time.Millisecond,
	"battery_state": time.Second,
}

// sensorPatience bounds the wait for one tick's sensor messages: a sensor
// whose topic a fault has frozen must not stop the run.
const sensorPatience = time.Second

// sensorWait makes a tick in lockstep wait for the sensor messages of its
// time. The lockstep orders time, not topics: the simulator publishes a
// step's messages before the /clock that wakes the tree, but on other
// connections, so the tree may wake first; and since the simulator runs as
// fast as the tree ticks, a message a millisecond late is a hundred
// simulated milliseconds late, enough to make a bumper look silent.
type sensorWait struct {
	subs    []*ros.Subscription
	periods []time.Duration
	started bool
}

func newSensorWait(conn *ros.Conn, p *ros.Profile) (*sensorWait, error) {
	s := &sensorWait{}
	for _, in := range p.Inputs {
		period, ok := simSensorPeriods[path.Base(in.Topic)]
		if !ok {
			continue
		}
		sub, err := ros.NewSubscriber(ros.SubscriberConf{Conn: conn, Topic: in.Topic, Msg: in.Type})
		if err != nil {
			s.close()
			return nil, err
		}
		s.subs, s.periods = append(s.subs, sub), append(s.periods, period)
	}
	return s, nil
}

// wait returns once every sensor that has spoken has a message from its
// last period before now (by its header stamp, else its receive time), or
// after sensorPatience.
func (s *sensorWait) wait(now time.Time) {
	if !s.started {
		s.started = true // the simulator has not stepped before the first tick
		return
	}
	deadline := time.Now().Add(sensorPatience)
	for {
		ok := true
		for i, sub := range s.subs {
			msg, at, count := sub.Newest()
			if count == 0 {
				continue
			}
			if st, has := headerStamp(msg); has {
				at = st
			}
			if at.Before(now.Add(-s.periods[i])) {
				ok = false
				break
			}
		}
		if ok || time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
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
