package bridge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/diagnostic_msgs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

var typeOfDiagnosticArray = reflect.TypeFor[diagnostic_msgs.DiagnosticArray]()

// DiagnosticsTopic is where a run publishes its health (RunConf.Diagnostics),
// the topic the diagnostic aggregator and rqt_robot_monitor read.
const DiagnosticsTopic = "/diagnostics"

// DiagnosticsEvery is how often a run publishes its health, on the wall
// clock.
const DiagnosticsEvery = time.Second

// The levels of a diagnostic_msgs/DiagnosticStatus.
const (
	diagOK    = diagnostic_msgs.DiagnosticStatus_OK
	diagWarn  = diagnostic_msgs.DiagnosticStatus_WARN
	diagError = diagnostic_msgs.DiagnosticStatus_ERROR
)

// health is what a run says on /diagnostics. It watches the run as an
// observer: the tick reports and the leaves' transitions are noted on the
// tick's goroutine under a mutex (a few stores, nothing built, no I/O);
// its own goroutine builds and publishes the message once a second (the
// wall clock's), and once more when the run ends.
//
// Three statuses, named after the node ("/robot1/btrobot: tick loop"), with
// the robot's name as hardware_id:
//
//   - tick loop: the rate asked for and measured, the worst lateness and
//     duration, overruns (ticks that started a period or more late, as
//     runtime.LoopStats counts them), long ticks (that took a period or
//     more: latch, tick and flush, on the loop's clock) and stalls since
//     the last message (and in all); WARN when there was any of the three
//     since the last message;
//   - inputs: every input of the profile, fresh or stale as the tree saw it
//     at its last latch, with the age of its newest message; WARN while one
//     is stale;
//   - mission: the root's status, the leaves running, the explanation of
//     the last failure (runtime.Tree.Explain); ERROR while the root's last
//     run failed and when the run ended on an error (a lost master, a dead
//     simulator), WARN while Groot2 holds the tree at a breakpoint.
type health struct {
	conn   *ros.Conn
	tree   *runtime.Tree
	bridge *Bridge // nil without a profile
	rate   float64
	period time.Duration
	paused func() bool
	pub    *ros.Publisher
	leaves []*runtime.Base // by UID; nil for the inner nodes
	quit   chan struct{}
	done   chan struct{}

	mu         sync.Mutex
	since      time.Time // wall time of the last message
	seq        uint32    // messages built
	win, total loopWindow
	running    []bool         // by UID
	status     runtime.Status // the root's, after the last tick
	failure    []runtime.Cause
	ended      string // how the run ended; "" while it runs
	endedBad   bool
}

// loopWindow counts tick reports.
type loopWindow struct {
	ticks, overruns, long, stalls uint64
	maxLate, maxDuration          time.Duration
}

func newHealth(conn *ros.Conn, tree *runtime.Tree, bridge *Bridge, rate float64, paused func() bool) (*health, error) {
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: conn, Topic: DiagnosticsTopic, Msg: typeOfDiagnosticArray})
	if err != nil {
		return nil, err
	}
	h := &health{
		conn: conn, tree: tree, bridge: bridge, rate: rate, period: time.Duration(float64(time.Second) / rate),
		paused: paused, pub: pub, quit: make(chan struct{}), done: make(chan struct{}), since: time.Now(),
	}
	for _, n := range tree.Nodes() {
		b := runtime.NodeOf(n)
		uid := int(b.UID())
		if uid >= len(h.leaves) {
			h.leaves = append(h.leaves, make([]*runtime.Base, uid+1-len(h.leaves))...)
		}
		if len(b.Children()) == 0 {
			h.leaves[uid] = b
		}
	}
	h.running = make([]bool, len(h.leaves))
	go h.run()
	return h, nil
}

// onTick notes a tick's report; on the tick's goroutine.
func (h *health) onTick(t runtime.TickReport) {
	var failure []runtime.Cause
	if t.Status == runtime.Failure {
		failure = h.tree.Explain() // after the tick that completed the root
	}
	h.mu.Lock()
	for _, w := range []*loopWindow{&h.win, &h.total} {
		w.ticks++
		if !t.Early && t.Lateness >= h.period {
			w.overruns++ // as runtime.LoopStats counts them
		}
		if t.Duration >= h.period {
			w.long++
		}
		w.maxDuration = max(w.maxDuration, t.Duration)
		if t.Stalled > 0 {
			w.stalls++
		}
		w.maxLate = max(w.maxLate, t.Lateness)
	}
	h.status = t.Status
	if failure != nil {
		h.failure = failure
	}
	h.mu.Unlock()
}

// OnTransitions notes the leaves that run (runtime.Observer).
func (h *health) OnTransitions(batch []runtime.Transition) {
	locked := false
	for i := range batch {
		tr := &batch[i]
		uid := int(tr.Node.UID())
		if uid >= len(h.leaves) || h.leaves[uid] == nil {
			continue
		}
		if !locked {
			h.mu.Lock()
			locked = true
		}
		h.running[uid] = tr.To == runtime.Running
	}
	if locked {
		h.mu.Unlock()
	}
}

func (h *health) run() {
	defer close(h.done)
	t := time.NewTicker(DiagnosticsEvery)
	defer t.Stop()
	for {
		select {
		case <-h.quit:
			return
		case <-t.C:
			h.pub.Publish(h.message())
		}
	}
}

// end publishes how the run ended (status: the root's last; err: the run's
// error) once more, waits until it is handed to the subscribers, and
// unadvertises the topic. Call it after the last tick.
func (h *health) end(status runtime.Status, err error) {
	close(h.quit)
	<-h.done
	failure := h.tree.Explain() // the tick is over: safe here
	h.mu.Lock()
	h.status = status
	if failure != nil && status == runtime.Failure {
		h.failure = failure
	}
	switch {
	case err != nil && !isCancel(err):
		h.ended, h.endedBad = "ended: "+err.Error(), true
	case status == runtime.Success:
		h.ended = "ended: the mission succeeded"
	case status == runtime.Failure:
		h.ended, h.endedBad = "ended: the mission failed", true
	default:
		h.ended = "ended: stopped"
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	h.pub.PublishWait(ctx, h.message())
	cancel()
	time.Sleep(stopGrace) // goroslib drops what is queued when a publisher closes
	h.pub.Close()
}

func isCancel(err error) bool { return errors.Is(err, context.Canceled) }

// message builds the DiagnosticArray of now, and starts a new window.
func (h *health) message() *diagnostic_msgs.DiagnosticArray {
	now := time.Now()
	h.mu.Lock()
	win, total, since := h.win, h.total, h.since
	h.win, h.since = loopWindow{}, now
	h.seq++
	seq := h.seq
	status, ended, bad := h.status, h.ended, h.endedBad
	failure := h.failure
	var running []string
	for uid, r := range h.running {
		if r {
			running = append(running, h.leaves[uid].Path())
		}
	}
	h.mu.Unlock()

	name, robot := h.conn.Name(), ros.RobotName(h.conn)
	msg := &diagnostic_msgs.DiagnosticArray{}
	msg.Header.Seq, msg.Header.Stamp = seq, h.conn.Clock().Now()
	msg.Status = []diagnostic_msgs.DiagnosticStatus{
		h.loopStatus(name+": tick loop", win, total, now.Sub(since)),
		h.inputStatus(name + ": inputs"),
		h.missionStatus(name+": mission", status, running, failure, ended, bad),
	}
	for i := range msg.Status {
		msg.Status[i].HardwareId = robot
	}
	return msg
}

func kv(key, value string) diagnostic_msgs.KeyValue {
	return diagnostic_msgs.KeyValue{Key: key, Value: value}
}

func millis(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 2, 64) }

func (h *health) loopStatus(name string, win, total loopWindow, span time.Duration) diagnostic_msgs.DiagnosticStatus {
	measured := 0.0
	if span > 0 {
		measured = float64(win.ticks) / span.Seconds()
	}
	s := diagnostic_msgs.DiagnosticStatus{Level: diagOK, Name: name}
	switch {
	case win.overruns > 0 || win.long > 0 || win.stalls > 0:
		s.Level = diagWarn
		s.Message = fmt.Sprintf("%d ticks late by a period, %d longer than a period, %d stalls in the last %.1f s",
			win.overruns, win.long, win.stalls, span.Seconds())
	default:
		s.Message = fmt.Sprintf("%d ticks in the last %.1f s, none late by a period", win.ticks, span.Seconds())
	}
	s.Values = []diagnostic_msgs.KeyValue{
		kv("rate_hz", strconv.FormatFloat(h.rate, 'g', -1, 64)),
		kv("ticks_per_s", strconv.FormatFloat(measured, 'f', 1, 64)),
		kv("lateness_max_ms", millis(win.maxLate)),
		kv("overruns", strconv.FormatUint(win.overruns, 10)),
		kv("long_ticks", strconv.FormatUint(win.long, 10)),
		kv("duration_max_ms", millis(win.maxDuration)),
		kv("stalls", strconv.FormatUint(win.stalls, 10)),
		kv("ticks_total", strconv.FormatUint(total.ticks, 10)),
		kv("overruns_total", strconv.FormatUint(total.overruns, 10)),
		kv("long_ticks_total", strconv.FormatUint(total.long, 10)),
		kv("stalls_total", strconv.FormatUint(total.stalls, 10)),
		kv("lateness_max_total_ms", millis(total.maxLate)),
	}
	return s
}

func (h *health) inputStatus(name string) diagnostic_msgs.DiagnosticStatus {
	s := diagnostic_msgs.DiagnosticStatus{Level: diagOK, Name: name}
	if h.bridge == nil || len(h.bridge.inputs) == 0 {
		s.Message = "no inputs"
		return s
	}
	now := h.conn.Clock().Now()
	var stale []string
	for _, in := range h.bridge.inputs {
		msg, at, _ := in.sub.Newest()
		var v string
		switch {
		case msg == nil:
			v = "no message yet"
		default:
			v = fmt.Sprintf("newest %.2f s old", now.Sub(at).Seconds())
		}
		if in.MaxAge > 0 {
			v += fmt.Sprintf(" (max_age %g s)", in.MaxAge.Seconds())
		}
		if msg == nil || in.latched.Load() { // nothing yet is stale, latched or not
			stale = append(stale, in.sub.Topic())
			v = "stale: " + v
		} else {
			v = "fresh: " + v
		}
		s.Values = append(s.Values, kv(in.sub.Topic(), v))
	}
	if len(stale) > 0 {
		s.Level = diagWarn
		s.Message = "stale: " + strings.Join(stale, ", ")
	} else {
		s.Message = fmt.Sprintf("%d inputs fresh", len(h.bridge.inputs))
	}
	return s
}

func (h *health) missionStatus(name string, status runtime.Status, running []string, failure []runtime.Cause, ended string, bad bool) diagnostic_msgs.DiagnosticStatus {
	s := diagnostic_msgs.DiagnosticStatus{Level: diagOK, Name: name}
	explanation := runtime.FormatExplanation(failure)
	last := ""
	if len(failure) > 0 {
		last = failure[len(failure)-1].String()
	}
	switch {
	case ended != "":
		s.Message = ended
		if bad {
			s.Level = diagError
		}
		if status == runtime.Failure && last != "" {
			s.Message += ": " + last
		}
	case status == runtime.Failure:
		s.Level, s.Message = diagError, "failed: "+last
	case h.paused != nil && h.paused():
		s.Level, s.Message = diagWarn, "paused at a Groot2 breakpoint: the robot is stopped"
	case len(running) > 0:
		s.Message = "running: " + strings.Join(running, ", ")
	default:
		s.Message = status.String()
	}
	s.Values = []diagnostic_msgs.KeyValue{
		kv("status", status.String()),
		kv("running", strings.Join(running, ", ")),
		kv("last_failure", strings.TrimSuffix(explanation, "\n")),
	}
	return s
}
