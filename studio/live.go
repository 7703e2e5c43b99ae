package studio

import (
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// PumpEvery is how often at most a run's changes are sent to its pages
// (a page's frame at 20 Hz).
const PumpEvery = 50 * time.Millisecond

// Sizes that bound a live run's memory whatever the tree does.
const (
	recentTransitions = 4000 // kept for the timeline of a page that connects
	// resumeWithin is how long after the last page left the run's events
	// are still made, so that a page that reconnects (a browser retries
	// within seconds) resumes from its last event; later, none are made
	// until a page connects, and it gets a snapshot.
	resumeWithin = 30 * time.Second
)

// latency buckets of the loop's histograms, upper bounds in ms (the last
// is open).
var histBounds = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300}

// trans is one transition as the page gets it: [n, uid, from, to, at ms,
// reason], n counting the run's transitions from 1.
type trans struct {
	N      uint64
	UID    uint32
	From   runtime.Status
	To     runtime.Status
	At     float64
	Reason string
}

func (t trans) MarshalJSON() ([]byte, error) {
	return t.appendJSON(make([]byte, 0, 48+len(t.Reason))), nil
}

// appendJSON appends the transition's JSON to b.
func (t trans) appendJSON(b []byte) []byte {
	b = append(b, '[')
	b = strconv.AppendUint(b, t.N, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(t.UID), 10)
	b = append(b, ",\""...)
	b = append(b, t.From.String()...)
	b = append(b, "\",\""...)
	b = append(b, t.To.String()...)
	b = append(b, "\","...)
	b = appendMs(b, t.At)
	b = append(b, ',')
	b = appendJSONString(b, t.Reason)
	return append(b, ']')
}

// appendMs appends a time in ms, known to the µs, as the shortest decimal
// (what strconv's 'f', -1 writes for it, without its search).
func appendMs(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.Abs(v) > 1<<50 || math.Abs(math.Round(v*1000)-v*1000) > 1e-6 {
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	us := int64(math.Round(v * 1000))
	if us < 0 {
		b, us = append(b, '-'), -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	if f := us % 1000; f != 0 {
		d := [4]byte{'.', byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		n := 4
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return b
}

// appendJSONString appends s as a JSON string: as it is when it needs no
// escaping (a reason mostly), else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			r, _ := json.Marshal(s)
			return append(b, r...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// encodeDelta writes a delta as JSON, its transitions and nodes (the bulk
// of a busy tree's deltas) appended into one buffer rather than through
// encoding/json, so that a big delta costs few allocations (the
// collector's work would slow the tick).
func encodeDelta(d delta) []byte {
	trs, nodes := d.Transitions, d.Nodes
	d.Transitions, d.Nodes = nil, nil
	rest, _ := json.Marshal(d)
	b := make([]byte, 0, len(rest)+len(trs)*40+len(nodes)*32+len(d.Packed)+64)
	b = append(b, `{"transitions":[`...)
	for i, t := range trs {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.appendJSON(b)
	}
	b = append(b, "],"...)
	if len(d.Packed) > 0 {
		b = append(b, `"packed":`...)
		b = append(b, d.Packed...)
		b = append(b, ',')
	}
	if len(nodes) > 0 {
		b = append(b, `"nodes":[`...)
		for i, n := range nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = n.appendJSON(b)
		}
		b = append(b, "],"...)
	}
	return append(b, rest[1:]...)
}

// loopStats is the loop as the page shows it.
type loopStats struct {
	Ticks    uint64    `json:"ticks"`
	Early    uint64    `json:"early"`
	Overruns uint64    `json:"overruns"`
	Rate     float64   `json:"rate"`   // measured over the last second or so, Hz
	Target   float64   `json:"target"` // the loop's rate, Hz
	LastDur  float64   `json:"last_duration_ms"`
	MaxDur   float64   `json:"max_duration_ms"`
	MaxLate  float64   `json:"max_lateness_ms"`
	Late     []uint64  `json:"lateness"`
	Dur      []uint64  `json:"duration"`
	Bounds   []float64 `json:"bounds_ms"`
	LastTick float64   `json:"last_tick_ms"` // when the last tick started
	// TickWall is the wall time the last tick ended, in Unix ms: the page
	// measures how far behind the tick it is.
	TickWall float64 `json:"tick_wall_ms"`
}

// endInfo is how a run ended.
type endInfo struct {
	Summary     string      `json:"summary"`
	Outcome     string      `json:"outcome"`
	Explanation []causeInfo `json:"explanation"`
}

type causeInfo struct {
	Path   string `json:"path"`
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	Depth  int    `json:"depth"` // the line's indentation, as runtime.FormatExplanation's
}

// causes flattens an explanation into its lines, in
// runtime.FormatExplanation's order: a node's failed alternatives come
// under it, before the chain goes on.
func causes(cs []runtime.Cause) []causeInfo {
	out := []causeInfo{}
	var walk func(chain []runtime.Cause, depth int)
	walk = func(chain []runtime.Cause, depth int) {
		for i, c := range chain {
			out = append(out, causeInfo{Path: c.Path, Type: c.Type, Status: c.Status.String(), Reason: c.Reason, Depth: depth + i})
			for _, alt := range c.Alternatives {
				walk(alt, depth+i+1)
			}
		}
	}
	walk(cs, 0)
	return out
}

// live is a running tree shown by the studio: a mission.Debugger.
type live struct {
	run   *session
	tree  *runtime.Tree
	t0    time.Time
	dbg   *debugger
	scope []scope
	wake  chan struct{}
	// debugGen counts the debugger's changes (debugChanged): a delta
	// whose debugger state was read before a change does not clear dirty.
	debugGen atomic.Uint64
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	// The tick's goroutine's: whether the tree hands over the nodes each
	// batch changed (OnChanged) when asked (WantsChanges); whether it
	// notes them for this tick (a page reads: noting); whether the run's
	// state must be read from every node at this tick's end, because a
	// busy batch went by unnoted (stale, resync); the time of the last
	// batch.
	changed bool
	noting  bool
	stale   bool // a busy batch went unnoted: the run's state is not the tree's
	resync  bool
	at      time.Duration

	// mu guards what follows: the tick's goroutine writes each batch
	// into it (a lock a batch, never held while encoding); the pump and
	// snapshots read it.
	mu    sync.Mutex
	now   []nodeState     // each node as it is, by uid-1
	since []time.Duration // when each node last moved, since the run's start (the tree's clock)
	// moved has bit uid-1 set for each node written (its state or its
	// since-time) since the pages last got it: what a busy event sends.
	// A bit a node, not a copy of what was sent: the event reads no more
	// of the run's state than it sends (at 20 Hz the cores' caches have
	// moved on between events, and each cache line read costs).
	moved    []uint64
	nMoved   int // bits set in moved
	n        uint64
	recent   []trans // ring of recentTransitions, at recentAt
	recentAt int
	pending  []trans // at most maxDeltaTransitions, the newest
	dropped  int     // transitions not in pending since the last delta
	spent    []trans // the pending list last sent, reused
	loop     loopStats
	rateWin  []time.Time // wall times of the last ticks, for the rate
	lastExpl []causeInfo // the failure explanation of the last completed root
	end      *endInfo
	marks    []mark
	marksOut int  // how many marks the pages have
	dirty    bool // something beside transitions changed
	reread   bool // every node was read: the next delta sends the moved ones, as a busy one does
	unpacked bool // never pack (tests: the page shows the same either way)
	seen     map[string]uint64
}

// mark is an event of a run drawn on the page's timeline: a fault that
// struck, hil's verdicts.
type mark struct {
	At    float64 `json:"at"`    // ms since the run's start, as a transition's
	Kind  string  `json:"kind"`  // fault, pass or fail
	Label string  `json:"label"` // drawn on the timeline: F1, ✓, ✗
	Text  string  `json:"text"`  // shown on hover
}

// maxMarks bounds a run's marks; later ones are dropped.
const maxMarks = 200

// Mark shows an event of the run on the page's timeline, at its time on
// the tree's clock: hil marks each fault as it strikes (F1, F2...) and
// the verdicts at the end. kind is fault, pass or fail. It may be called
// from any goroutine, also after the run ended.
func (l *live) Mark(at time.Time, kind, label, text string) {
	l.mu.Lock()
	if len(l.marks) < maxMarks {
		l.marks = append(l.marks, mark{At: ms(at, l.t0), Kind: kind, Label: label, Text: text})
	}
	l.mu.Unlock()
	select {
	case <-l.done: // the run has ended: no pump to send it
		l.publish()
	default:
		l.touch()
	}
}

func newLive(s *session, tree *runtime.Tree, rate float64, every time.Duration) *live {
	if every <= 0 {
		every = PumpEvery
	}
	n := len(tree.Nodes())
	l := &live{
		run: s, tree: tree, t0: tree.Clock().Now(), scope: scopesOf(tree),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		now: make([]nodeState, n), since: make([]time.Duration, n), moved: make([]uint64, (n+63)/64),
		seen: map[string]uint64{}, noting: true,
	}
	l.loop.Target, l.loop.Bounds = rate, histBounds
	l.loop.Late, l.loop.Dur = make([]uint64, len(histBounds)+1), make([]uint64, len(histBounds)+1)
	l.dbg = newDebugger(func(paused bool) {
		if paused && l.stale {
			// Held (on the tick's goroutine): read as the tick left the
			// tree, for a page that connects while it waits.
			l.readAll(l.at)
		}
		l.debugChanged()
	})
	for i, nd := range tree.Nodes() {
		b := runtime.NodeOf(nd)
		l.now[i].status = b.Status()
		l.now[i].reason = b.Reason()
		if l.now[i] != (nodeState{}) {
			l.move(i) // the pages are taken to start from IDLE, no reason
		}
	}
	go l.pump(every)
	return l
}

// OnTransitions numbers the transitions (runtime.Observer, on the tick's
// goroutine) and queues them for the pages' timelines, under the lock
// (held for the batch, never while encoding). Of a batch longer than a
// delta carries (a busy tick) only the newest busyTransitions are kept,
// the rest counted: a busy tree's page draws its nodes' states.
//
// The nodes' states come from OnChanged, which the tree calls after
// each batch with the nodes it changed (a busy tree's node that went
// IDLE → SUCCESS → IDLE is read once, not written three times); until it
// does (the studio behind another observer that hands it batches alone),
// each transition writes its node's state here. While no page reads
// (WantsChanges said no), the transitions go into the ring for the
// timeline of a page that connects, and a quiet batch's (no more than a
// delta carries) write their nodes' states here too, so that the page
// gets the tree as it is; a busy batch's do not (the nodes are read
// again at the end of the first tick a page reads, or when the tree is
// held or the run ends).
func (l *live) OnTransitions(batch []runtime.Transition) {
	if len(batch) == 0 {
		return
	}
	keep := len(batch)
	if keep > maxDeltaTransitions {
		keep = busyTransitions
	}
	tail := len(batch) - keep
	l.at = batch[len(batch)-1].Time.Sub(l.t0)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n += uint64(tail)
	l.dropped += tail
	var at float64
	for i := tail; i < len(batch); i++ {
		t := &batch[i]
		if i == tail || t.Time != batch[i-1].Time { // a tick's carry one time
			at = durMs(t.Time.Sub(l.t0))
		}
		l.n++
		tr := trans{N: l.n, UID: t.Node.UID(), From: t.From, To: t.To, At: at, Reason: t.Reason}
		if len(l.recent) < recentTransitions {
			l.recent = append(l.recent, tr)
		} else {
			l.recent[l.recentAt] = tr
			l.recentAt = (l.recentAt + 1) % recentTransitions
		}
		if l.noting {
			l.pending = append(l.pending, tr)
		}
	}
	if !l.noting {
		// No page reads: none is sent (a page that connects gets a
		// snapshot).
		l.dropped += keep
		if l.stale || len(batch) > maxDeltaTransitions {
			l.stale = true
			return
		}
	} else {
		if len(l.pending) > maxDeltaTransitions || l.dropped > 0 {
			l.trimPending()
		}
		if l.changed {
			return
		}
	}
	for i := range batch {
		t := &batch[i]
		j := int(t.Node.UID()) - 1
		if uint(j) >= uint(len(l.now)) {
			continue
		}
		nd := &l.now[j]
		nd.status, l.since[j] = t.To, t.Time.Sub(l.t0)
		l.move(j)
		if t.To != runtime.Idle {
			nd.reason, nd.last = t.Reason, runtime.Idle
		} else {
			nd.last = t.From
		}
	}
}

// OnChanged writes the state of each node the batch changed, as the node
// is at the batch's end (runtime.ChangesObserver).
func (l *live) OnChanged(c *runtime.Changed) {
	l.changed = true
	if !l.noting {
		return // handed for another observer that wanted them
	}
	at := l.at
	if l.resync {
		// The first batch since the tree noted nothing: every node.
		l.resync = false
		l.readAll(at)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for b, left := range c.All() {
		i := int(b.UID()) - 1
		if uint(i) >= uint(len(l.now)) {
			continue
		}
		nd := &l.now[i]
		nd.status, l.since[i] = b.Status(), at
		l.move(i)
		switch {
		case nd.status != runtime.Idle:
			nd.last = runtime.Idle
		case left.Completed():
			// What it said about the result it left, as the
			// transition into that result carried it.
			nd.last = left
		default:
			nd.last = left // halted: the reason it ran with stays
			continue
		}
		if r := b.Reason(); r != nd.reason { // mostly the same: no write
			nd.reason = r
		}
	}
}

// WantsChanges says whether the nodes each batch changes are wanted this
// tick (runtime.ChangesOnDemand, at the start of each tick, on its
// goroutine): while no page reads (none connected, none that left
// recently enough to resume: the pump sleeps), they are not, and the
// tree notes none (OnTransitions keeps the state of a quiet tree). When
// they are wanted again after a busy batch went by, every node is read
// at the end of the first tick noted (OnChanged, or OnTick when it
// changed none): the state a page that connected meanwhile got in its
// snapshot is set right by the next delta.
func (l *live) WantsChanges() bool {
	l.changed = true
	want := !l.run.hub.unread.Load()
	if want && !l.noting && l.stale {
		l.resync = true
	}
	l.noting = want
	return want
}

// readAll reads every node into the run's state, as it is now, and has
// the next delta send each node that differs from what the pages have.
// A node whose state changed is stamped at (the nodes' moves were not
// noted). Call it on the tick's goroutine.
func (l *live) readAll(at time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, nd := range l.tree.Nodes() {
		b := runtime.NodeOf(nd)
		ns := &l.now[i]
		was := *ns
		ns.status = b.Status()
		switch res := b.LastResult(); {
		case ns.status != runtime.Idle:
			ns.last, ns.reason = runtime.Idle, b.Reason()
		case res.Completed():
			ns.last, ns.reason = res, b.Reason()
		case was.status != runtime.Idle:
			ns.last = was.status // halted: the reason it ran with stays
		}
		if *ns != was {
			l.since[i] = at
			l.move(i)
		}
	}
	l.reread, l.stale = true, false
}

// Armed reports whether the debugger has a breakpoint, a forced result
// or a pause to run (runtime.ArmedHook): while not, the tree runs no tick
// hook, and one set during a tick takes effect at the next.
func (l *live) Armed() bool { return l.dbg.bp.Armed() }

// trimPending keeps the transitions a delta carries: all of them up to
// maxDeltaTransitions; past that (a busy tree, whose nodes' states go
// instead) the newest busyTransitions, a sample for the timeline.
func (l *live) trimPending() {
	keep := len(l.pending)
	if l.dropped > 0 || keep > maxDeltaTransitions {
		keep = min(keep, busyTransitions)
	}
	if k := len(l.pending) - keep; k > 0 {
		l.dropped += k
		n := copy(l.pending, l.pending[k:])
		clear(l.pending[n:])
		l.pending = l.pending[:n]
	}
}

// durMs is a duration since the run's start in ms, as the page has
// times (to the µs, as ms does).
func durMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BeforeTick and AfterTick are the debugger's (runtime.TickHook).
func (l *live) BeforeTick(n *runtime.Base) runtime.Status { return l.dbg.bp.BeforeTick(n) }
func (l *live) AfterTick(n *runtime.Base, st runtime.Status) runtime.Status {
	return l.dbg.bp.AfterTick(n, st)
}

// OnTick counts the tick in the loop's figures and wakes the pump.
func (l *live) OnTick(t runtime.TickReport) {
	if l.resync { // a tick noted that changed nothing
		l.resync = false
		l.readAll(max(l.at, t.Start.Sub(l.t0)))
	}
	var expl []causeInfo
	if t.Status.Completed() {
		expl = causes(l.tree.Explain())
	}
	now := time.Now()
	l.mu.Lock()
	lp := &l.loop
	lp.Ticks++
	if t.Early {
		lp.Early++
	}
	if lp.Target > 0 && t.Lateness >= time.Duration(float64(time.Second)/lp.Target) {
		lp.Overruns++
	}
	late, dur := float64(t.Lateness.Microseconds())/1000, float64(t.Duration.Microseconds())/1000
	lp.Late[bucket(late)]++
	lp.Dur[bucket(dur)]++
	lp.LastDur, lp.MaxDur, lp.MaxLate = dur, max(lp.MaxDur, dur), max(lp.MaxLate, late)
	lp.LastTick = ms(t.Start, l.t0)
	lp.TickWall = float64(now.UnixMicro()) / 1000
	l.rateWin = append(l.rateWin, now)
	for len(l.rateWin) > 1 && now.Sub(l.rateWin[0]) > time.Second {
		l.rateWin = l.rateWin[1:]
	}
	if k := len(l.rateWin); k > 1 {
		lp.Rate = float64(k-1) / now.Sub(l.rateWin[0]).Seconds()
	}
	if expl != nil {
		l.lastExpl = expl
	}
	l.dirty = true
	l.mu.Unlock()
	l.touch()
}

func bucket(v float64) int {
	for i, b := range histBounds {
		if v <= b {
			return i
		}
	}
	return len(histBounds)
}

// debugChanged has the pump send the debugger's state even when nothing
// else changed: a breakpoint that holds the tree before its first node
// leaves no transition to carry it.
func (l *live) debugChanged() {
	l.debugGen.Add(1)
	l.mu.Lock()
	l.dirty = true
	l.mu.Unlock()
	l.touch()
}

// touch wakes the pump; never blocks.
func (l *live) touch() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Paused reports whether a breakpoint, a pause or a step holds the tree.
func (l *live) Paused() bool { return l.dbg.bp.Paused() }

// Resume lets a held tick go and holds no more: the run ends.
func (l *live) Resume() { l.dbg.bp.Close() }

// Close shows how the run ended and stops the pump after its last event.
func (l *live) Close(rep mission.Report) {
	l.dbg.bp.Close()
	if l.stale || l.resync {
		// The tree as the run left it (no tick follows), for a page
		// that connects to the ended run.
		l.readAll(l.at)
	}
	l.mu.Lock()
	l.end = &endInfo{Summary: rep.Summary(), Outcome: rep.Outcome.String(), Explanation: causes(rep.Explanation)}
	l.dirty = true
	l.mu.Unlock()
	l.shutdown()
}

// shutdown stops the pump once it has sent what is left.
func (l *live) shutdown() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// pump sends the run's changes to its pages when something changed (a
// tick, a mark, the debugger: touch), at once unless the last event left
// less than every ago, then when it has: at most one event a period
// whatever the tick rate, and a tick at a lower rate sent as soon as it
// ends, not at the next beat of a clock of the pump's own. While no page
// reads (none connected, and none that left recently enough to resume),
// it sleeps until one connects, which gets a snapshot: the tick then
// costs no wake-up of another goroutine.
func (l *live) pump(every time.Duration) {
	defer close(l.done)
	spacing := time.NewTimer(time.Hour)
	defer spacing.Stop()
	last := time.Now() // the first event a period after the start, as a beat would send it
	for {
		if l.run.hub.idle(resumeWithin) {
			select {
			case <-l.stop:
				l.publish()
				return
			case <-l.run.hub.joined:
			}
		}
		select {
		case <-l.stop:
			l.publish()
			return
		case <-l.wake:
		}
		if wait := every - time.Since(last); wait > 0 {
			spacing.Reset(wait)
			select {
			case <-l.stop:
				l.publish()
				return
			case <-spacing.C:
			}
		}
		last = time.Now()
		l.publish()
	}
}

// maxDeltaTransitions bounds the transitions of one delta: past it a page
// draws a busy tree from the nodes' states, and gets the newest
// busyTransitions for its timeline (a sample: at 10,000 transitions a
// tick no timeline shows them all; 100 an event, 2,000 a second at 20
// events a second, is ten seconds of the page's 20,000. 500 cost a busy
// tree's page about a tenth more CPU, BenchmarkBusyTreeSideBySide).
const (
	maxDeltaTransitions = 2000
	busyTransitions     = 100
)

// nodeState is a node as the page shows it.
type nodeState struct {
	status, last runtime.Status
	reason       string
}

// nodeJSON is a changed node of a compacted delta: [uid, status, last,
// reason, since].
type nodeJSON struct {
	uid   uint32
	state nodeState
	since float64
}

func (n nodeJSON) MarshalJSON() ([]byte, error) {
	return n.appendJSON(make([]byte, 0, 40+len(n.state.reason))), nil
}

func (n nodeJSON) appendJSON(b []byte) []byte {
	b = append(b, '[')
	b = strconv.AppendUint(b, uint64(n.uid), 10)
	b = append(b, ",\""...)
	b = append(b, n.state.status.String()...)
	b = append(b, "\",\""...)
	b = append(b, n.state.last.String()...)
	b = append(b, "\","...)
	b = appendJSONString(b, n.state.reason)
	b = append(b, ',')
	b = appendMs(b, n.since)
	return append(b, ']')
}

// statusChars are the statuses' characters in a packed event, by Status.
const statusChars = "IRSFK"

// statusChar is st's character in a packed event ('?' for none known).
func statusChar(st runtime.Status) byte {
	if int(st) < len(statusChars) {
		return statusChars[st]
	}
	return '?'
}

// packedJSON is every node of a busy tree's event, as the page's monitor
// decodes it:
//
//	{"status": "RISSI…", "last": "ISIIS…", "reasons": ["reason", uid, uid, "reason", uid, …], "since": [ms, count, …]}
//
// status and last a character a node in uid order (statusChars), the
// reasons of the nodes that have one (every other node's is empty), each
// written once for the nodes after it that have it (a busy tree's
// sequences mostly say the same), and
// the times each node last moved run-length coded: ms for count nodes in
// uid order (a busy tick moves most nodes at one time).
func packedJSON(now []nodeState, since []time.Duration) []byte {
	b := make([]byte, 0, 3*len(now)+64) // a reason in ten, as a busy tree of sequences has
	b = append(b, `{"status":"`...)
	for i := range now {
		b = append(b, statusChar(now[i].status))
	}
	b = append(b, `","last":"`...)
	for i := range now {
		b = append(b, statusChar(now[i].last))
	}
	b = append(b, `","reasons":[`...)
	cur := ""
	for i := range now {
		r := now[i].reason
		if r == "" {
			continue
		}
		if r != cur {
			if cur != "" {
				b = append(b, ',')
			}
			b = appendJSONString(b, r)
			cur = r
		}
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(i+1), 10)
	}
	b = append(b, `],"since":[`...)
	for i := 0; i < len(since); {
		j := i + 1
		for j < len(since) && since[j] == since[i] {
			j++
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMs(b, durMs(since[i]))
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(j-i), 10)
		i = j
	}
	return append(b, "]}"...)
}

// delta is what changed since the last event.
type delta struct {
	Now         float64     `json:"now"`
	Transitions []trans     `json:"transitions,omitempty"` // encodeDelta writes them
	Blackboard  []bbEntry   `json:"blackboard"`
	Loop        *loopStats  `json:"loop,omitempty"`
	Debug       debugState  `json:"debug"`
	End         *endInfo    `json:"end,omitempty"`
	Explanation []causeInfo `json:"explanation,omitempty"`
	Statuses    []string    `json:"statuses,omitempty"` // snapshot only
	Reasons     []string    `json:"reasons,omitempty"`
	Since       []float64   `json:"since,omitempty"`
	Last        []string    `json:"last,omitempty"` // snapshot only: the result each IDLE node left
	N           uint64      `json:"n"`              // the transitions counted so far
	// Dropped transitions of a busy tree are not in Transitions: Nodes
	// then says how the changed nodes are now.
	Dropped int        `json:"dropped,omitempty"`
	Nodes   []nodeJSON `json:"nodes,omitempty"`
	// Packed is every node, packed, instead of Nodes when more than a
	// quarter of them changed (packedJSON; encodeDelta writes it).
	Packed []byte         `json:"-"`
	Extra  map[string]any `json:"extra,omitempty"`
	// Marks are the run's marks, all of them: in a snapshot, and in a
	// delta when one was added.
	Marks []mark `json:"marks,omitempty"`
}

// publish sends one delta. The lock is held to apply the ticks' changes
// and take what is to be sent; the encoding happens outside it, so the
// tick never waits for it — but for a packed busy event, whose bytes (two
// a node, run-length since-times) cost about what copying the nodes out
// would (BenchmarkBusyEvent: 29–63 µs for 5,000 nodes). With no page to send it to (none connected,
// and none that left recently enough to resume), nothing is encoded: the
// state is kept for the snapshot the next page gets.
func (l *live) publish() {
	bb := readBlackboard(l.scope, l.t0, l.seen)
	// The debugger's state is read outside the lock; a change after it
	// (a breakpoint that held the tree as this delta was made) leaves
	// dirty set, and its wake-up sends it: clearing it lost the hold,
	// and the page never showed the tree held (one run in a few hundred
	// under load).
	gen := l.debugGen.Load()
	dbg := l.dbg.state()
	l.mu.Lock()
	if len(l.pending) == 0 && l.dropped == 0 && !l.reread && l.nMoved == 0 && len(bb) == 0 && !l.dirty && len(l.marks) == l.marksOut {
		l.mu.Unlock()
		return
	}
	if l.run.hub.idle(resumeWithin) {
		// Under l.mu, as snapshots are taken: a page that connects now
		// gets a snapshot holding all of this.
		l.pending, l.dropped, l.dirty, l.reread, l.marksOut = l.pending[:0], 0, false, false, len(l.marks)
		clear(l.moved)
		l.nMoved = 0
		l.mu.Unlock()
		return
	}
	d := delta{Now: l.loop.LastTick, Transitions: l.pending, Blackboard: bb, Debug: dbg, End: l.end, Explanation: l.lastExpl, N: l.n, Dropped: l.dropped}
	if len(l.marks) != l.marksOut {
		d.Marks, l.marksOut = slices.Clone(l.marks), len(l.marks)
	}
	if l.dropped == 0 && !l.reread {
		// Each node the transitions sent wrote, they carry.
		for _, tr := range l.pending {
			l.unmove(int(tr.UID) - 1)
		}
	}
	if l.nMoved > 0 {
		// A busy tree: the nodes written since the pages last got them
		// (moved), as they are now, and the last transitions for the
		// timeline. When more than a quarter of them moved, every node
		// packed (packedJSON): a character a status, not an object a
		// node. A node that moved and ended as it was (IDLE after
		// SUCCESS, tick after tick) is sent: its since-time changed.
		// Nodes written with no transition sent besides are sent so too:
		// those of a batch's changes (runtime.ChangesObserver) noted
		// after the event that carried the batch's count (the pump may
		// publish between a batch and its changes).
		if l.nMoved > len(l.now)/4 && !l.unpacked {
			d.Packed = packedJSON(l.now, l.since)
		} else {
			d.Nodes = slices.Grow(d.Nodes, l.nMoved)
			for w, word := range l.moved {
				for ; word != 0; word &= word - 1 {
					i := w<<6 + bits.TrailingZeros64(word)
					d.Nodes = append(d.Nodes, nodeJSON{uint32(i + 1), l.now[i], durMs(l.since[i])})
				}
			}
		}
		clear(l.moved)
		l.nMoved = 0
	}
	if l.dirty {
		lp := l.loop
		lp.Late, lp.Dur = slices.Clone(lp.Late), slices.Clone(lp.Dur)
		d.Loop = &lp
	}
	l.pending, l.spent = l.spent[:0], l.pending
	l.dropped, l.dirty, l.reread = 0, l.debugGen.Load() != gen, false
	l.mu.Unlock()
	data := encodeDelta(d)
	// A snapshot taken since holds these transitions already: the page
	// skips them by their count (N).
	l.run.hub.publish("delta", data)
}

// move marks node i+1 as written since the pages last got it (under
// l.mu).
func (l *live) move(i int) {
	w, bit := &l.moved[i>>6], uint64(1)<<(i&63)
	if *w&bit == 0 {
		*w |= bit
		l.nMoved++
	}
}

// unmove marks node i+1 as the pages have it (under l.mu).
func (l *live) unmove(i int) {
	if uint(i) >= uint(len(l.now)) {
		return
	}
	w, bit := &l.moved[i>>6], uint64(1)<<(i&63)
	if *w&bit != 0 {
		*w &^= bit
		l.nMoved--
	}
}

// snapshot is the whole state now, with the ID of the last event it
// includes.
func (l *live) snapshot() (uint64, []byte) {
	dbg := l.dbg.state()
	l.mu.Lock()
	defer l.mu.Unlock()
	// Every event published so far is in this state: the pump publishes
	// under l.mu. What the pump has not yet sent is in it too; the page
	// skips those transitions when they come (by their count, N).
	return l.run.hub.current(), l.snapshotLocked(dbg)
}

func (l *live) snapshotLocked(dbg debugState) []byte {
	d := delta{Now: l.loop.LastTick, Blackboard: readBlackboard(l.scope, l.t0, nil), Debug: dbg, End: l.end, Explanation: l.lastExpl, N: l.n,
		Marks: slices.Clone(l.marks)}
	lp := l.loop
	d.Loop = &lp
	d.Statuses = make([]string, len(l.now))
	d.Reasons = make([]string, len(l.now))
	d.Since = make([]float64, len(l.now))
	d.Last = make([]string, len(l.now))
	for i, nd := range l.now {
		d.Statuses[i], d.Reasons[i], d.Since[i] = nd.status.String(), nd.reason, durMs(l.since[i])
		d.Last[i] = nd.last.String()
	}
	d.Transitions = make([]trans, 0, len(l.recent))
	d.Transitions = append(d.Transitions, l.recent[l.recentAt:]...)
	d.Transitions = append(d.Transitions, l.recent[:l.recentAt]...)
	return encodeDelta(d)
}
