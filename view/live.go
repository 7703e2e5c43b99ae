package view

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// LiveConf configures a live view. Zero fields take the defaults in
// brackets.
type LiveConf struct {
	Out  io.Writer
	Tree *runtime.Tree
	// Registry, when set, gives the input ports whose values are shown
	// beside running leaves (NavigateTo goal=kitchen).
	Registry *runtime.Registry
	// Title is the first line of the terminal view and of the plain log.
	Title string
	// Terminal redraws the view in place with ANSI escapes; otherwise the
	// view writes plain lines (see OnTransitions).
	Terminal bool
	// Color adds ANSI colours to the terminal view.
	Color bool
	// Size returns the terminal's columns and rows [80×24].
	Size func() (cols, rows int)
	// Interval is the time between redraws, and the time lines wait before
	// they are written [100 ms].
	Interval time.Duration
	// Heartbeat is how often the plain log writes a summary line (tick
	// rate, lateness, what runs) [10 s; negative: never].
	Heartbeat time.Duration
	// Rate is the loop's tick rate, to count overruns (0: not counted).
	Rate float64
	// SimTime says the tree's clock is simulated: the header shows sim time
	// and how many times faster than real time it runs.
	SimTime bool
	// Keys are root blackboard entries shown under the tree.
	Keys []string
	// Wall is the wall clock [time.Now]; tests replace it.
	Wall func() time.Time
	// Reason, when set, gives the reason a node stated for its last
	// status; the view shows it beside a failed node's status (the plain
	// log on the FAILURE line, the terminal after the node's label). It is
	// called on the tick's goroutine.
	Reason func(n runtime.Node) string
}

// mark is what the view shows of a node: its current status when it has
// one, else what it last did.
type mark uint8

const (
	markNever mark = iota
	markRunning
	markSuccess
	markFailure
	markHalted
)

func markOf(s runtime.Status) mark {
	switch s {
	case runtime.Running:
		return markRunning
	case runtime.Success:
		return markSuccess
	case runtime.Failure:
		return markFailure
	}
	return markNever
}

var markWords = [...]string{"IDLE", "RUNNING", "SUCCESS", "FAILURE", "HALTED"}
var markSymbols = [...]string{"·", "▶", "✓", "✗", "■"}

// nodeState is one node as the view knows it.
type nodeState struct {
	status runtime.Status // now
	mark   mark           // now, or last
	since  time.Time      // tree clock: when mark last changed
	at     time.Time      // tree clock: when the node last entered mark
}

// viewNode is the fixed part of a node: where it sits in the tree.
type viewNode struct {
	node     runtime.Node
	label    string
	path     string
	depth    int
	children []int
	desc     int // descendants
	leaf     bool
	ports    []string // input ports shown while the leaf runs
}

// liveFrame is what one redraw shows: a copy of the tick side's state,
// taken between ticks.
type liveFrame struct {
	states   []nodeState
	ports    map[int]string // running leaves' input values
	reasons  map[int]string // failed nodes' reasons (LiveConf.Reason)
	keys     []string       // "key=value" of the watched entries
	logs     []string       // the newest log lines
	ticks    uint64
	now      time.Time     // tree clock at the last tick
	elapsed  time.Duration // tree clock since the first tick
	wall     time.Duration // wall clock since the first tick
	rate     float64       // ticks per second of tree time, recent
	speed    float64       // tree seconds per wall second, recent
	lateP99  time.Duration // recent ticks
	lateMax  time.Duration // all ticks
	overruns uint64
	stalls   uint64        // the process's stalls (TickReport.Stalled)
	longest  time.Duration // the longest stall
	idleWall time.Duration // wall time since the last tick
	final    bool          // the run has ended
}

// Live shows a running tree: in a terminal it redraws the tree in
// place at most every Interval, the running path highlighted and finished
// subtrees collapsed when the tree does not fit; elsewhere it writes one
// line per change of what a node did (see OnTransitions) and a summary
// every Heartbeat. OnTransitions and OnTick run on the tick's goroutine and
// never wait for the output: drawing happens on the view's own goroutine.
type Live struct {
	conf  LiveConf
	nodes []viewNode

	// Tick side: touched only on the tick's goroutine.
	cur      []nodeState
	reported []mark // plain log: the mark last written per node
	started  []int  // plain log: leaves that went RUNNING this tick
	seq      uint64 // ticks seen
	start    time.Time
	wall0    time.Time
	late     ring
	starts   ring // tree-clock tick starts, as durations since start
	walls    ring // wall-clock tick times, as durations since wall0
	lateMax  time.Duration
	overruns uint64
	stalls   uint64
	longest  time.Duration // the longest stall

	want     atomic.Bool  // the drawing side asks for a fresh frame
	lastWall atomic.Int64 // wall time of the last tick, Unix ns
	mu       sync.Mutex   // guards the shared frame and logs
	snap     liveFrame
	logs     []string

	lines   chan string
	dropped atomic.Int64
	quit    chan struct{}
	done    chan struct{}
	closing sync.Once

	drawn int // lines of the last frame drawn (drawing side)
}

// NewLive returns a view of conf.Tree; register it with Tree.Observe,
// feed it the loop's TickReports with OnTick, Start it, and Close it when
// the loop has ended.
func NewLive(conf LiveConf) *Live {
	if conf.Interval <= 0 {
		conf.Interval = 100 * time.Millisecond
	}
	if conf.Heartbeat == 0 {
		conf.Heartbeat = 10 * time.Second
	}
	if conf.Size == nil {
		conf.Size = func() (int, int) { return 80, 24 }
	}
	if conf.Wall == nil {
		conf.Wall = time.Now
	}
	v := &Live{
		conf:  conf,
		lines: make(chan string, 4096),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	v.nodes = layoutNodes(conf.Tree, conf.Registry)
	v.cur = make([]nodeState, len(v.nodes))
	v.reported = make([]mark, len(v.nodes))
	v.snap.states = make([]nodeState, len(v.nodes))
	return v
}

// layoutNodes records the shape of the tree: depth, children and labels.
func layoutNodes(tree *runtime.Tree, reg *runtime.Registry) []viewNode {
	all := tree.Nodes()
	nodes := make([]viewNode, len(all))
	var walk func(n runtime.Node, depth int) int
	walk = func(n runtime.Node, depth int) int {
		b := runtime.NodeOf(n)
		i := int(b.UID()) - 1
		vn := &nodes[i]
		vn.node, vn.path, vn.depth = n, b.Path(), depth
		vn.label = nodeLabel(n)
		kids := b.Children()
		vn.leaf = len(kids) == 0
		for _, c := range kids {
			ci := int(runtime.NodeOf(c).UID()) - 1
			nodes[i].children = append(nodes[i].children, ci)
			nodes[i].desc += 1 + walk(c, depth+1)
		}
		if vn.leaf && reg != nil {
			if t, ok := reg.Lookup(b.Type()); ok {
				for _, p := range t.Ports {
					if p.Dir != runtime.Output && runtime.PortGiven(n, p.Name) {
						vn.ports = append(vn.ports, p.Name)
					}
				}
			}
		}
		return nodes[i].desc
	}
	if root := tree.Root(); root != nil {
		walk(root, 0)
	}
	return nodes
}

// nodeLabel is the name a node is shown by: its name, with its type when
// the name is not the type's, and the tree a SubTree runs.
func nodeLabel(n runtime.Node) string {
	b := runtime.NodeOf(n)
	if st, ok := n.(*runtime.SubTree); ok {
		if b.Name() == b.Type() || b.Name() == st.TreeID() {
			return st.TreeID() + " (SubTree)"
		}
		return b.Name() + " (SubTree " + st.TreeID() + ")"
	}
	if b.Name() == b.Type() {
		return b.Name()
	}
	return b.Name() + " (" + b.Type() + ")"
}

// Start starts drawing.
func (v *Live) Start() {
	if !v.conf.Terminal && v.conf.Title != "" {
		v.lines <- v.conf.Title
	}
	go v.draw()
}

// Log adds a log line (a ROS warning, say): the terminal view keeps the
// newest few under the tree, the plain log writes it. Safe from any
// goroutine.
func (v *Live) Log(line string) {
	if v.conf.Terminal {
		v.mu.Lock()
		v.logs = append(v.logs, line)
		if len(v.logs) > 3 {
			v.logs = v.logs[len(v.logs)-3:]
		}
		v.mu.Unlock()
		return
	}
	v.emit(line)
}

// NodeLog shows what a Log node said at tree time at: a line of the plain
// log, in order with the transitions, or a line under the tree. Call it on
// the tick's goroutine.
func (v *Live) NodeLog(at time.Time, level, node, text string) {
	if v.conf.Terminal {
		v.Log(level + ": " + text)
		return
	}
	if v.start.IsZero() {
		v.start, v.wall0 = at, v.conf.Wall()
	}
	v.emit(fmt.Sprintf("%10.3fs #%-6d %-7s %s: %s", at.Sub(v.start).Seconds(), v.seq+1, strings.ToUpper(level), node, text))
}

// emit queues a plain line; a line that finds the queue full is counted,
// not waited for, since the tick must not wait on the output.
func (v *Live) emit(line string) {
	select {
	case v.lines <- line:
	default:
		v.dropped.Add(1)
	}
}

// onTransition records a node's status change. The plain log writes a
// line when what a node did changes: a leaf starting (RUNNING, written at
// the end of the tick and only if it still runs then), finishing
// differently from last time (SUCCESS, FAILURE) or being halted while it
// ran (HALTED), any node failing, and the root's every change. A condition re-ticked
// with the same result, a node reset to IDLE, and control nodes starting or
// succeeding write nothing: their leaves' lines say it.
//
// OnTransitions takes a batch (runtime.Observer).
func (v *Live) OnTransitions(batch []runtime.Transition) {
	for i := range batch {
		v.onTransition(&batch[i])
	}
}

func (v *Live) onTransition(t *runtime.Transition) {
	i := int(t.Node.UID()) - 1
	if i < 0 || i >= len(v.cur) {
		return
	}
	if v.start.IsZero() {
		v.start, v.wall0 = t.Time, v.conf.Wall()
	}
	s := &v.cur[i]
	s.status = t.To
	m := markOf(t.To)
	if t.To == runtime.Idle {
		if t.From != runtime.Running {
			return // a reset: the node keeps showing what it did
		}
		m = markHalted
	}
	if s.mark != m || m == markRunning {
		s.since = t.Time
	}
	s.mark, s.at = m, t.Time
	if v.conf.Terminal || v.reported[i] == m {
		return
	}
	vn := &v.nodes[i]
	switch {
	case vn.depth == 0: // the root: every change
	case !vn.leaf && m != markFailure:
		return
	case m == markRunning:
		// Whether the leaf keeps running is known at the end of the
		// tick: a synchronous action is RUNNING while it works.
		v.started = append(v.started, i)
		return
	case m == markHalted && v.reported[i] != markRunning:
		return // halted in the tick it started: its start was not written
	}
	v.report(i, m, t.Time, v.seq+1)
}

// report writes the plain line of node i entering m.
func (v *Live) report(i int, m mark, at time.Time, seq uint64) {
	vn := &v.nodes[i]
	v.reported[i] = m
	line := fmt.Sprintf("%10.3fs #%-6d %-7s %s", at.Sub(v.start).Seconds(), seq, markWords[m], vn.path)
	if m == markRunning && len(vn.ports) > 0 {
		if p := portValues(vn); p != "" {
			line += "  " + p
		}
	}
	if m == markFailure && v.conf.Reason != nil {
		if r := v.conf.Reason(vn.node); r != "" {
			line += ": " + r
		}
	}
	v.emit(line)
}

// OnTick records a tick's timing and, when the drawing side asked, copies
// the state for the next frame.
func (v *Live) OnTick(r runtime.TickReport) {
	if v.start.IsZero() {
		v.start, v.wall0 = r.Start, v.conf.Wall()
	}
	v.seq = r.Seq
	if r.Stalled > 0 {
		v.stalls++
		v.longest = max(v.longest, r.Stalled)
	}
	wall := v.conf.Wall()
	v.lastWall.Store(wall.UnixNano())
	if !r.Early {
		v.late.add(r.Lateness)
		v.lateMax = max(v.lateMax, r.Lateness)
		if v.conf.Rate > 0 && r.Lateness >= time.Duration(float64(time.Second)/v.conf.Rate) {
			v.overruns++
		}
	}
	for _, i := range v.started {
		if v.cur[i].status == runtime.Running && v.reported[i] != markRunning {
			v.report(i, markRunning, v.cur[i].since, r.Seq)
		}
	}
	v.started = v.started[:0]
	v.starts.add(r.Start.Sub(v.start))
	v.walls.add(wall.Sub(v.wall0))
	if v.want.CompareAndSwap(true, false) {
		v.mu.Lock()
		v.fill(&v.snap)
		v.mu.Unlock()
	}
}

// fill copies the tick side's state into f; on the tick's goroutine or
// after the loop has ended.
func (v *Live) fill(f *liveFrame) {
	copy(f.states, v.cur)
	clear(f.ports)
	for i := range v.nodes {
		vn := &v.nodes[i]
		if vn.leaf && v.cur[i].status == runtime.Running && len(vn.ports) > 0 {
			if f.ports == nil {
				f.ports = map[int]string{}
			}
			f.ports[i] = portValues(vn)
		}
	}
	clear(f.reasons)
	if v.conf.Reason != nil {
		for i := range v.nodes {
			if v.cur[i].mark != markFailure {
				continue
			}
			if r := v.conf.Reason(v.nodes[i].node); r != "" {
				if f.reasons == nil {
					f.reasons = map[int]string{}
				}
				f.reasons[i] = r
			}
		}
	}
	f.keys = f.keys[:0]
	for _, k := range v.conf.Keys {
		if val, ok := v.conf.Tree.Blackboard().Get(k); ok {
			f.keys = append(f.keys, k+"="+shortValue(val))
		}
	}
	f.ticks = v.seq
	if n := v.starts.len(); n > 0 {
		last := v.starts.at(n - 1)
		f.now = v.start.Add(last)
		f.elapsed = last
		f.wall = v.walls.at(n - 1)
		f.rate, f.speed = v.recentRates()
	}
	f.lateP99 = v.late.quantile(0.99)
	f.lateMax = v.lateMax
	f.overruns = v.overruns
	f.stalls, f.longest = v.stalls, v.longest
}

// recentRates returns the tick rate in ticks per tree-clock second and the
// tree clock's speed against the wall, over about the last second of tree
// time.
func (v *Live) recentRates() (rate, speed float64) {
	n := v.starts.len()
	if n < 2 {
		return 0, 0
	}
	last := v.starts.at(n - 1)
	j := n - 2
	for j > 0 && last-v.starts.at(j) < time.Second {
		j--
	}
	dt := last - v.starts.at(j)
	dw := v.walls.at(n-1) - v.walls.at(j)
	if dt > 0 {
		rate = float64(n-1-j) / dt.Seconds()
	}
	if dw > 0 {
		speed = dt.Seconds() / dw.Seconds()
	}
	return rate, speed
}

// portValues reads a leaf's input ports for display: on the tick's
// goroutine only.
func portValues(vn *viewNode) string {
	var b strings.Builder
	for _, p := range vn.ports {
		val, err := runtime.GetInput[any](vn.node, p)
		if err != nil || val == nil || val == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p + "=" + shortValue(val))
	}
	return b.String()
}

// shortValue prints a value in a few characters.
func shortValue(v any) string {
	var s string
	switch x := v.(type) {
	case float64:
		s = fmt.Sprintf("%.3g", x)
	case float32:
		s = fmt.Sprintf("%.3g", x)
	case string:
		s = x
	default:
		s = ValueLine(v) // a message as rostopic echo shows it, folded
	}
	if r := []rune(s); len(r) > 24 {
		s = string(r[:23]) + "…"
	}
	return s
}
