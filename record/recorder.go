package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/view"
)

// Conf configures a Recorder.
type Conf struct {
	// Path is the file to write. Its extension picks the format: ".btlog"
	// is BT.CPP's FileLogger2 (Groot2 opens it; it holds the tree and the
	// status transitions only), ".db3" or ".btdb" a SQLite database with
	// BT.CPP's SqliteLogger tables and btrobot's own (blackboard, ticks,
	// reasons, the run). An existing file is replaced.
	Path string
	// Tree is the tree to record and Document the document it was built
	// from (its specs give the tree's XML).
	Tree     *runtime.Tree
	Document *runtime.Document
	// Palette, when set, adds the palette's node models to the tree's XML.
	Palette *runtime.Registry
	// Profile is the robot profile's text, kept as given.
	Profile []byte
	// RunID identifies the run (a new random one when zero); Version is
	// btrobot's version and Seed the tree's seed.
	RunID   uuid.UUID
	Version string
	Seed    uint64
	// Reason, when set, is asked for the reason of every node that
	// completes, when the transition's batch reaches the recorder (the
	// tick's end: runtime.Observer); when nil, the reason is the one
	// the transition carries (runtime.Transition.Reason).
	Reason func(*runtime.Base) string
	// FlushEvery is how often what was observed reaches the file (200 ms
	// when 0; at most a second): a killed process loses at most that much.
	FlushEvery time.Duration
	// MaxPending bounds the events held in memory between two flushes
	// (1<<20 when 0). Past it events are dropped, counted, and Close says
	// so: the tick never waits for the disk.
	MaxPending int
}

// Recorder writes a tree's transitions, blackboard changes and ticks to a
// file. It is a runtime.Observer and a blackboard change hook, attached
// together by Attach (with runtime.Tree.TrackTicking, to know which node
// writes the blackboard); OnTick takes the loop's tick reports
// (runtime.LoopConf's Observe).
//
// Observing costs the tick an append to a buffer under a mutex; a goroutine
// of the recorder encodes and writes the buffer every FlushEvery (also
// while a breakpoint holds the tree). Close writes what is left. A
// blackboard value is encoded (as JSON) by that goroutine, after the
// write: like every blackboard value, it must not be changed in place once
// written.
type Recorder struct {
	conf   Conf
	clock  runtime.Clock
	header Header
	sink   sink
	scopes map[*runtime.Blackboard]string
	// ticksDropped: the format keeps no ticks (a .btlog)
	ticksDropped bool

	mu      sync.Mutex
	pending *batch // filling; handed to the writer when it holds batchSize events
	dropped uint64
	closed  bool
	full    chan *batch // to the writer
	free    chan *batch // back from the writer, for reuse

	done chan struct{}
	err  error // the writer goroutine's first error; read after done
}

// batchSize is how many events a batch holds before it goes to the writer:
// the tick appends into slices that were grown once and are reused.
const batchSize = 4096

// batch is what was observed since the last flush.
type batch struct {
	transitions []transitionRec
	reasons     []string
	changes     []rawChange
	ticks       []tickRec
}

// transitionRec and tickRec hold no pointers, so that appending them costs
// the tick no write barriers and the collector nothing to scan.
type transitionRec struct {
	at       int64 // Unix ns
	uid      uint32
	from, to runtime.Status
	reason   int32 // index in batch.reasons, -1 for none
}

type tickRec struct {
	seq                       uint64
	start, lateness, duration int64 // Unix ns, ns, ns
	early                     bool
	status                    runtime.Status
}

func (b *batch) len() int { return len(b.transitions) + len(b.changes) + len(b.ticks) }

func (b *batch) reset() {
	clear(b.changes) // drop references to values
	clear(b.reasons)
	b.transitions, b.reasons, b.changes, b.ticks = b.transitions[:0], b.reasons[:0], b.changes[:0], b.ticks[:0]
}

// rawChange is a blackboard change as the tick leaves it: the writer
// goroutine names its scope, type and writer and encodes its value.
type rawChange struct {
	Change
	value  any
	scope  *runtime.Blackboard
	typ    reflect.Type
	writer *runtime.Base
}

// sink is one file format.
type sink interface {
	begin(h *Header) error
	write(b *batch) error // all of b, handed to the OS
	close() error
}

// New creates the file, writes the header and starts the recorder's
// writer. Attach it to the tree, and give OnTick to the loop.
func New(conf Conf) (*Recorder, error) {
	if conf.Tree == nil {
		return nil, errors.New("record: no tree")
	}
	if conf.FlushEvery <= 0 {
		conf.FlushEvery = 200 * time.Millisecond
	}
	conf.FlushEvery = min(conf.FlushEvery, time.Second)
	if conf.MaxPending <= 0 {
		conf.MaxPending = 1 << 20
	}
	if conf.RunID == uuid.Nil {
		conf.RunID = uuid.New()
	}
	var s sink
	var err error
	switch formatOf(conf.Path) {
	case formatBTLog:
		s, err = newBTLogSink(conf.Path)
	case formatSQLite:
		s, err = newSQLiteSink(conf.Path)
	default:
		return nil, fmt.Errorf("record %s: unknown format %q: name the file .btlog (BT.CPP's FileLogger2, for Groot2) or .db3 (SQLite)", conf.Path, strings.ToLower(filepath.Ext(conf.Path)))
	}
	if err != nil {
		return nil, err
	}
	xml, err := TreeXML(conf.Tree, conf.Document, conf.Palette)
	var tooMany *TooManyNodesError
	if err != nil && !(errors.As(err, &tooMany) && !isBTLog(s)) {
		s.close()
		return nil, fmt.Errorf("record %s: %w", conf.Path, err)
	}
	r := &Recorder{
		conf:  conf,
		clock: conf.Tree.Clock(),
		header: Header{
			RunID: conf.RunID, Version: conf.Version, Seed: conf.Seed,
			Start: conf.Tree.Clock().Now(), TreeXML: xml, Profile: conf.Profile,
			Nodes: nodeInfos(conf.Tree),
		},
		sink:    s,
		scopes:  ScopeNames(conf.Tree),
		pending: &batch{},
		full:    make(chan *batch, max(1, conf.MaxPending/batchSize)),
		free:    make(chan *batch, max(1, conf.MaxPending/batchSize)+2),
		done:    make(chan struct{}),
	}
	r.ticksDropped = isBTLog(s)
	if err := s.begin(&r.header); err != nil {
		s.close()
		return nil, fmt.Errorf("record %s: %w", conf.Path, err)
	}
	go r.writeLoop()
	return r, nil
}

func isBTLog(s sink) bool { _, ok := s.(*btlogSink); return ok }

// Header returns the recording's header.
func (r *Recorder) Header() Header { return r.header }

// Attach makes r observe its tree: transitions, and for a format that
// holds them blackboard changes (replacing the blackboard's change hook:
// one such recorder per tree), with the tree following the node ticking
// (runtime.Tree.TrackTicking) to know which node writes.
// A .btlog holds transitions only and observes nothing else. Call Attach,
// and the function it returns, between ticks.
func (r *Recorder) Attach() (detach func()) {
	t := r.conf.Tree
	unobserve := t.Observe(r)
	if isBTLog(r.sink) {
		return unobserve
	}
	untrack := t.TrackTicking()
	t.Blackboard().OnChange(r.onChange)
	return func() {
		t.Blackboard().OnChange(nil)
		untrack()
		unobserve()
	}
}

// OnTransitions records a batch of status transitions (runtime.Observer),
// under one lock.
func (r *Recorder) OnTransitions(batch []runtime.Transition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range batch {
		t := &batch[i]
		tr := transitionRec{at: t.Time.UnixNano(), uid: t.Node.UID(), from: t.From, to: t.To, reason: -1}
		var reason string
		if t.To.Completed() {
			reason = t.Reason
			if r.conf.Reason != nil {
				reason = r.conf.Reason(t.Node)
			}
		}
		if !r.room() {
			continue
		}
		p := r.pending
		if reason != "" {
			tr.reason = int32(len(p.reasons))
			p.reasons = append(p.reasons, reason)
		}
		p.transitions = append(p.transitions, tr)
	}
}

// OnTick records a tick report (runtime.LoopConf's Observe); a .btlog
// has no place for it.
func (r *Recorder) OnTick(rep runtime.TickReport) {
	if r.ticksDropped {
		return
	}
	tk := tickRec{seq: rep.Seq, start: rep.Start.UnixNano(), lateness: int64(rep.Lateness), duration: int64(rep.Duration), early: rep.Early, status: rep.Status}
	r.mu.Lock()
	if r.room() {
		r.pending.ticks = append(r.pending.ticks, tk)
	}
	r.mu.Unlock()
}

func (r *Recorder) onChange(c runtime.Change) {
	rc := rawChange{Change: Change{At: r.clock.Now(), Stamp: c.Stamp, Key: c.Key, Seq: c.Seq}, value: c.Value,
		scope: c.Scope, typ: c.Type, writer: r.conf.Tree.Ticking()}
	r.mu.Lock()
	if r.room() {
		r.pending.changes = append(r.pending.changes, rc)
	}
	r.mu.Unlock()
}

// room reports whether one more event fits; r.mu is held. A full batch
// goes to the writer and a recycled one takes its place; when the writer
// is MaxPending events behind, the event is dropped and counted.
func (r *Recorder) room() bool {
	if r.closed {
		r.dropped++
		return false
	}
	if r.pending.len() < batchSize {
		return true
	}
	select {
	case r.full <- r.pending:
	default:
		r.dropped++
		return false
	}
	select {
	case r.pending = <-r.free:
	default:
		r.pending = &batch{}
	}
	return true
}

// Flush hands what was observed so far to the writer now.
func (r *Recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handOver()
}

// handOver sends the pending batch to the writer if it holds anything;
// r.mu is held.
func (r *Recorder) handOver() {
	if r.closed || r.pending.len() == 0 {
		return
	}
	select {
	case r.full <- r.pending:
		select {
		case r.pending = <-r.free:
		default:
			r.pending = &batch{}
		}
	default: // the writer is behind: it takes this one at its next pass
	}
}

// Close writes what is left, closes the file and reports the first write
// error, or how many events were dropped. Detach first.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.done
		return r.err
	}
	r.closed = true
	r.mu.Unlock()
	close(r.full)
	<-r.done
	if err := r.sink.close(); err != nil && r.err == nil {
		r.err = fmt.Errorf("record %s: %w", r.conf.Path, err)
	}
	if r.err == nil && r.dropped > 0 {
		r.err = fmt.Errorf("record %s: %d events dropped: the disk did not keep up (raise MaxPending or record less)", r.conf.Path, r.dropped)
	}
	return r.err
}

// writeLoop writes the batches handed over, and every FlushEvery takes
// the one being filled, so that nothing waits longer than that.
func (r *Recorder) writeLoop() {
	defer close(r.done)
	ticker := time.NewTicker(r.conf.FlushEvery)
	defer ticker.Stop()
	for {
		select {
		case b, open := <-r.full:
			if !open {
				// Closed: the batch being filled is the last.
				r.write(r.pending)
				return
			}
			r.write(b)
		case <-ticker.C:
			// Take the batch being filled; the batches handed over before
			// it (len(r.full) then: only holders of r.mu add) go first.
			r.mu.Lock()
			b := r.pending
			if b.len() > 0 {
				select {
				case r.pending = <-r.free:
				default:
					r.pending = &batch{}
				}
			} else {
				b = nil // still the one being filled: not the writer's
			}
			older := len(r.full)
			r.mu.Unlock()
			for range older {
				ob, open := <-r.full
				if !open {
					break
				}
				r.write(ob)
			}
			if b != nil {
				r.write(b)
			}
		}
	}
}

// write writes b (if the file is still good) and recycles it.
func (r *Recorder) write(b *batch) {
	if b.len() > 0 && r.err == nil {
		r.resolve(b.changes)
		if err := r.sink.write(b); err != nil {
			r.err = fmt.Errorf("record %s: %w", r.conf.Path, err)
		}
	}
	b.reset()
	select {
	case r.free <- b:
	default:
	}
}

// resolve names the scope, the type and the writer of changes and turns
// their values into JSON, off the tick.
func (r *Recorder) resolve(changes []rawChange) {
	for i := range changes {
		c := &changes[i]
		if c.scope != nil {
			if c.Scope = r.scopes[c.scope]; c.Scope == "" {
				c.Scope = "?"
			}
			c.scope = nil
		} else if c.Scope == "" {
			c.Scope = "?"
		}
		if c.typ != nil {
			c.Type = runtime.TypeName(c.typ)
			c.typ = nil
		}
		if c.writer != nil {
			c.Writer = c.writer.Path()
			c.writer = nil
		}
		if c.value == nil {
			c.Value = nil
			continue
		}
		c.Value = recordedValue(c.value)
		c.value = nil
	}
}

// recordedValue is a blackboard value as a recording holds it: JSON, with
// a message, a struct, a list or a map in the form view.ValueJSON gives
// (the fields by their ROS names, times as seconds, NaN as "nan"), which
// `replay --json` prints and the studio shows as rostopic echo does, and
// which a replayed script reads by the names a ROS user writes
// (battery.percentage). A number, a string or a bool is its JSON.
func recordedValue(v any) json.RawMessage {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
		if rv.Type() != reflect.TypeOf(time.Time{}) {
			return view.ValueJSON(v)
		}
	}
	if b, err := json.Marshal(v); err == nil {
		return b
	}
	return view.ValueJSON(v) // NaN, an infinity
}
