package studio

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// PumpEvery is how often at most a run's changes are sent to its pages.
const PumpEvery = 50 * time.Millisecond

// Sizes that bound a live run's memory whatever the tree does.
const (
	recentTransitions  = 4000  // kept for the timeline of a page that connects
	pendingTransitions = 50000 // between two pumps; beyond, pages get a snapshot
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
	return json.Marshal([]any{t.N, t.UID, t.From.String(), t.To.String(), t.At, t.Reason})
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
}

func causes(cs []runtime.Cause) []causeInfo {
	out := []causeInfo{}
	for _, c := range cs {
		out = append(out, causeInfo{Path: c.Path, Type: c.Type, Status: c.Status.String(), Reason: c.Reason})
	}
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
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu       sync.Mutex // what the tick's goroutine writes; the pump and snapshots read
	status   []runtime.Status
	reason   []string
	since    []float64
	n        uint64
	recent   []trans // ring of recentTransitions, at recentAt
	recentAt int
	pending  []trans
	overflow bool
	loop     loopStats
	rateWin  []time.Time // wall times of the last ticks, for the rate
	lastExpl []causeInfo // the failure explanation of the last completed root
	end      *endInfo
	dirty    bool // something beside transitions changed
	seen     map[string]uint64
}

func newLive(s *session, tree *runtime.Tree, rate float64, every time.Duration) *live {
	if every <= 0 {
		every = PumpEvery
	}
	n := len(tree.Nodes())
	l := &live{
		run: s, tree: tree, t0: tree.Clock().Now(), scope: scopesOf(tree),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		status: make([]runtime.Status, n), reason: make([]string, n), since: make([]float64, n),
		seen: map[string]uint64{},
	}
	l.loop.Target, l.loop.Bounds = rate, histBounds
	l.loop.Late, l.loop.Dur = make([]uint64, len(histBounds)+1), make([]uint64, len(histBounds)+1)
	var root uint32
	if tree.Root() != nil {
		root = runtime.NodeOf(tree.Root()).UID()
	}
	l.dbg = newDebugger(root, func(Hold, bool) { l.touch() })
	for i, nd := range tree.Nodes() {
		b := runtime.NodeOf(nd)
		l.status[i] = b.Status()
		l.reason[i] = b.Reason()
	}
	go l.pump(every)
	return l
}

// OnTransition keeps the node's status and queues the transition
// (runtime.Observer, on the tick's goroutine).
func (l *live) OnTransition(t runtime.Transition) {
	i := int(t.Node.UID()) - 1
	at := ms(t.Time, l.t0)
	l.mu.Lock()
	if i >= 0 && i < len(l.status) {
		l.status[i], l.since[i] = t.To, at
		if t.To != runtime.Idle {
			l.reason[i] = t.Reason
		}
	}
	l.n++
	tr := trans{N: l.n, UID: t.Node.UID(), From: t.From, To: t.To, At: at, Reason: t.Reason}
	if len(l.recent) < recentTransitions {
		l.recent = append(l.recent, tr)
	} else {
		l.recent[l.recentAt] = tr
		l.recentAt = (l.recentAt + 1) % recentTransitions
	}
	if len(l.pending) < pendingTransitions {
		l.pending = append(l.pending, tr)
	} else {
		l.overflow = true
	}
	l.mu.Unlock()
}

// BeforeTick and AfterTick are the debugger's (runtime.TickHook).
func (l *live) BeforeTick(n *runtime.Base) runtime.Status { return l.dbg.BeforeTick(n) }
func (l *live) AfterTick(n *runtime.Base, st runtime.Status) runtime.Status {
	return l.dbg.AfterTick(n, st)
}

// OnTick counts the tick in the loop's figures and wakes the pump.
func (l *live) OnTick(t runtime.TickReport) {
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

// touch wakes the pump; never blocks.
func (l *live) touch() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Paused reports whether a breakpoint, a pause or a step holds the tree.
func (l *live) Paused() bool { return l.dbg.paused.Load() }

// Resume lets a held tick go and holds no more: the run ends.
func (l *live) Resume() { l.dbg.release() }

// Close shows how the run ended and stops the pump after its last event.
func (l *live) Close(rep mission.Report) {
	l.dbg.release()
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

// pump sends the run's changes to its pages, at most every period.
func (l *live) pump(every time.Duration) {
	defer close(l.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			l.publish()
			return
		case <-t.C:
		}
		select {
		case <-l.wake:
			l.publish()
		default:
		}
	}
}

// delta is what changed since the last event.
type delta struct {
	Now         float64        `json:"now"`
	Transitions []trans        `json:"transitions"`
	Blackboard  []bbEntry      `json:"blackboard"`
	Loop        *loopStats     `json:"loop,omitempty"`
	Debug       debugState     `json:"debug"`
	End         *endInfo       `json:"end,omitempty"`
	Explanation []causeInfo    `json:"explanation,omitempty"`
	Statuses    []string       `json:"statuses,omitempty"` // snapshot only
	Reasons     []string       `json:"reasons,omitempty"`
	Since       []float64      `json:"since,omitempty"`
	N           uint64         `json:"n"` // the transitions counted so far
	Extra       map[string]any `json:"extra,omitempty"`
}

// publish sends one delta (or, after an overflow, a snapshot).
func (l *live) publish() {
	bb := readBlackboard(l.scope, l.t0, l.seen)
	dbg := l.dbg.state()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.overflow {
		l.overflow, l.pending, l.dirty = false, l.pending[:0], false
		data := l.snapshotLocked(dbg)
		l.run.hub.publish("snapshot", data)
		return
	}
	if len(l.pending) == 0 && len(bb) == 0 && !l.dirty {
		return
	}
	d := delta{Now: l.loop.LastTick, Transitions: l.pending, Blackboard: bb, Debug: dbg, End: l.end, Explanation: l.lastExpl, N: l.n}
	if l.dirty {
		lp := l.loop
		d.Loop = &lp
	}
	data, _ := json.Marshal(d)
	l.pending, l.dirty = l.pending[:0], false
	l.run.hub.publish("delta", data)
}

// snapshot is the whole state now, with the ID of the last event it
// includes.
func (l *live) snapshot() (uint64, []byte) {
	dbg := l.dbg.state()
	l.mu.Lock()
	defer l.mu.Unlock()
	// Every event published so far is in this state: the pump publishes
	// under l.mu.
	return l.run.hub.current(), l.snapshotLocked(dbg)
}

func (l *live) snapshotLocked(dbg debugState) []byte {
	d := delta{Now: l.loop.LastTick, Blackboard: readBlackboard(l.scope, l.t0, nil), Debug: dbg, End: l.end, Explanation: l.lastExpl, N: l.n}
	lp := l.loop
	d.Loop = &lp
	d.Statuses = make([]string, len(l.status))
	for i, s := range l.status {
		d.Statuses[i] = s.String()
	}
	d.Reasons, d.Since = l.reason, l.since
	d.Transitions = make([]trans, 0, len(l.recent))
	d.Transitions = append(d.Transitions, l.recent[l.recentAt:]...)
	d.Transitions = append(d.Transitions, l.recent[:l.recentAt]...)
	data, _ := json.Marshal(d)
	return data
}
