package main

// The live view lives in the command rather than in a package of its own:
// only the binary draws on a terminal (DESIGN.md's layout has no view
// package), and everything it needs from the engine is public — it is a
// runtime.Observer plus a reader of the loop's TickReports, as any user's
// own display would be.

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// liveViewConf configures a live view. Zero fields take the defaults in
// brackets.
type liveViewConf struct {
	Out  io.Writer
	Tree *runtime.Tree
	// Registry, when set, gives the input ports whose values are shown
	// beside running leaves (NavigateTo goal=kitchen).
	Registry *runtime.Registry
	// Title is the first line of the terminal view and of the plain log.
	Title string
	// Terminal redraws the view in place with ANSI escapes; otherwise the
	// view writes plain lines (see OnTransition).
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
	idleWall time.Duration // wall time since the last tick
	final    bool          // the run has ended
}

// liveView shows a running tree: in a terminal it redraws the tree in
// place at most every Interval, the running path highlighted and finished
// subtrees collapsed when the tree does not fit; elsewhere it writes one
// line per change of what a node did (see OnTransition) and a summary
// every Heartbeat. OnTransition and OnTick run on the tick's goroutine and
// never wait for the output: drawing happens on the view's own goroutine.
type liveView struct {
	conf  liveViewConf
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

// newLiveView returns a view of conf.Tree; register it with Tree.Observe,
// feed it the loop's TickReports with OnTick, Start it, and Close it when
// the loop has ended.
func newLiveView(conf liveViewConf) *liveView {
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
	v := &liveView{
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
func (v *liveView) Start() {
	if !v.conf.Terminal && v.conf.Title != "" {
		v.lines <- v.conf.Title
	}
	go v.draw()
}

// Log adds a log line (a ROS warning, say): the terminal view keeps the
// newest few under the tree, the plain log writes it. Safe from any
// goroutine.
func (v *liveView) Log(line string) {
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
func (v *liveView) NodeLog(at time.Time, level, node, text string) {
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
func (v *liveView) emit(line string) {
	select {
	case v.lines <- line:
	default:
		v.dropped.Add(1)
	}
}

// OnTransition records a node's status change. The plain log writes a
// line when what a node did changes: a leaf starting (RUNNING, written at
// the end of the tick and only if it still runs then), finishing
// differently from last time (SUCCESS, FAILURE) or being halted while it
// ran (HALTED), any node failing, and the root's every change. A condition re-ticked
// with the same result, a node reset to IDLE, and control nodes starting or
// succeeding write nothing: their leaves' lines say it.
func (v *liveView) OnTransition(t runtime.Transition) {
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
func (v *liveView) report(i int, m mark, at time.Time, seq uint64) {
	vn := &v.nodes[i]
	v.reported[i] = m
	line := fmt.Sprintf("%10.3fs #%-6d %-7s %s", at.Sub(v.start).Seconds(), seq, markWords[m], vn.path)
	if m == markRunning && len(vn.ports) > 0 {
		if p := portValues(vn); p != "" {
			line += "  " + p
		}
	}
	v.emit(line)
}

// OnTick records a tick's timing and, when the drawing side asked, copies
// the state for the next frame.
func (v *liveView) OnTick(r runtime.TickReport) {
	if v.start.IsZero() {
		v.start, v.wall0 = r.Start, v.conf.Wall()
	}
	v.seq = r.Seq
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
func (v *liveView) fill(f *liveFrame) {
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
}

// recentRates returns the tick rate in ticks per tree-clock second and the
// tree clock's speed against the wall, over about the last second of tree
// time.
func (v *liveView) recentRates() (rate, speed float64) {
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
		s = fmt.Sprint(v)
	}
	if r := []rune(s); len(r) > 24 {
		s = string(r[:23]) + "…"
	}
	return s
}

// draw is the view's goroutine: every Interval it asks the tick side for
// a fresh frame and draws the one it has, or writes the queued lines.
func (v *liveView) draw() {
	defer close(v.done)
	tick := time.NewTicker(v.conf.Interval)
	defer tick.Stop()
	var f liveFrame
	f.states = make([]nodeState, len(v.nodes))
	lastBeat := v.conf.Wall()
	if v.conf.Terminal {
		v.writeOut("\x1b[?25l") // hide the cursor while redrawing
	}
	for {
		select {
		case <-v.quit:
			return
		case <-tick.C:
		}
		v.want.Store(true)
		if !v.conf.Terminal {
			v.writeLines()
			if v.conf.Heartbeat > 0 && v.conf.Wall().Sub(lastBeat) >= v.conf.Heartbeat {
				lastBeat = v.conf.Wall()
				v.copyFrame(&f)
				if f.ticks > 0 {
					v.writeOut(v.summaryLine(&f) + "\n")
				}
			}
			continue
		}
		v.copyFrame(&f)
		cols, rows := v.conf.Size()
		v.writeFrame(v.render(&f, cols, rows))
	}
}

// copyFrame takes the newest shared frame.
func (v *liveView) copyFrame(f *liveFrame) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := &v.snap
	states := f.states
	copy(states, s.states)
	*f = *s
	f.states = states
	f.ports = make(map[int]string, len(s.ports))
	for k, p := range s.ports {
		f.ports[k] = p
	}
	f.keys = slices.Clone(s.keys)
	f.logs = slices.Clone(v.logs)
	if last := v.lastWall.Load(); last != 0 && s.ticks > 0 {
		f.idleWall = v.conf.Wall().Sub(time.Unix(0, last))
	}
}

func (v *liveView) writeLines() {
	var b strings.Builder
	for {
		select {
		case l := <-v.lines:
			b.WriteString(l)
			b.WriteByte('\n')
			continue
		default:
		}
		break
	}
	if n := v.dropped.Swap(0); n > 0 {
		fmt.Fprintf(&b, "(%d lines left out: the output was too slow)\n", n)
	}
	if b.Len() > 0 {
		v.writeOut(b.String())
	}
}

func (v *liveView) writeOut(s string) { io.WriteString(v.conf.Out, s) }

// writeFrame draws lines over the previous frame: the cursor goes back up
// to the frame's first line, each line clears what is left of the old one,
// and what the old frame had below is cleared.
func (v *liveView) writeFrame(lines []string) {
	var b strings.Builder
	if v.drawn > 0 {
		fmt.Fprintf(&b, "\r\x1b[%dA", v.drawn)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\x1b[K\n")
	}
	b.WriteString("\x1b[J")
	v.drawn = len(lines)
	v.writeOut(b.String())
}

// Close stops drawing and writes the final state: the last frame in a
// terminal, the remaining lines and a summary otherwise, each ending with
// end (how the run ended). Call it once the loop has returned; it may be
// called more than once.
func (v *liveView) Close(end string) {
	v.closing.Do(func() {
		close(v.quit)
		<-v.done
		var f liveFrame
		f.states = make([]nodeState, len(v.nodes))
		v.fill(&f)
		f.final = true
		f.logs = slices.Clone(v.logs)
		if v.conf.Terminal {
			// How the run ended goes below the frame, whole: it may be
			// wider than the terminal.
			cols, rows := v.conf.Size()
			v.writeFrame(v.render(&f, cols, rows-1))
			io.WriteString(v.conf.Out, "\x1b[?25h"+end+"\n")
			return
		}
		v.writeLines()
		v.writeOut(v.summaryLine(&f) + "\n")
		if end != "" {
			v.writeOut(end + "\n")
		}
	})
}

// summaryLine is the plain log's heartbeat: time, ticks, rate, lateness,
// and the running leaves.
func (v *liveView) summaryLine(f *liveFrame) string {
	var run []string
	for i, s := range f.states {
		if s.status == runtime.Running && v.nodes[i].leaf {
			run = append(run, v.nodes[i].path)
		}
	}
	line := fmt.Sprintf("%10.3fs #%-6d %s", f.elapsed.Seconds(), f.ticks, v.statsText(f))
	if len(run) > 0 {
		line += " · running " + strings.Join(run, ", ")
	}
	return line
}

// statsText is the loop's figures in one phrase.
func (v *liveView) statsText(f *liveFrame) string {
	parts := []string{fmt.Sprintf("%d ticks", f.ticks)}
	if f.rate > 0 {
		parts = append(parts, fmt.Sprintf("%.1f Hz", f.rate))
	}
	parts = append(parts, "late p99 "+shortDuration(f.lateP99)+" max "+shortDuration(f.lateMax))
	if v.conf.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%d overruns", f.overruns))
	}
	return strings.Join(parts, " · ")
}

// render lays the frame out in at most rows lines of at most cols columns.
func (v *liveView) render(f *liveFrame, cols, rows int) []string {
	cols, rows = max(cols, 20), max(rows, 6)
	st := styler{color: v.conf.Color && v.conf.Terminal}
	var head []string
	if v.conf.Title != "" {
		head = append(head, st.line(cols, seg{v.conf.Title, styleBold}))
	}
	clock := "up " + clockText(f.elapsed)
	if v.conf.SimTime {
		clock = "sim " + clockText(f.elapsed)
		if f.speed > 0 {
			clock += fmt.Sprintf(" (×%.1f)", f.speed)
		}
	}
	segs := []seg{{clock + " · " + v.statsText(f), styleNone}}
	if !f.final && f.idleWall >= time.Second {
		segs = append(segs, seg{" · no tick for " + shortDuration(f.idleWall.Round(100*time.Millisecond)), styleFailure})
	}
	head = append(head, st.line(cols, segs...))
	var foot []string
	if len(f.keys) > 0 {
		foot = append(foot, st.line(cols, seg{strings.Join(f.keys, "  "), styleDim}))
	}
	for _, l := range f.logs {
		foot = append(foot, st.line(cols, seg{l, styleDim}))
	}
	room := rows - 1 - len(head) - len(foot) // the last row stays free for the cursor
	if room < 1 {
		foot, room = nil, max(1, rows-1-len(head))
	}
	body := v.treeRows(f, room)
	out := make([]string, 0, len(head)+len(body)+len(foot))
	out = append(out, head...)
	for _, r := range body {
		out = append(out, v.rowText(f, r, cols, st))
	}
	return append(out, foot...)
}

// haltWindow is how close in time halts count as one: the halts of one
// tick, or of one Tree.Halt, take microseconds.
const haltWindow = 10 * time.Millisecond

// row is one line of the tree: a node (with its hidden descendants when
// collapsed) or a note that siblings were left out.
type row struct {
	node   int // -1 for an elision
	depth  int
	hidden int // collapsed descendants, or elided siblings
}

// treeRows picks the rows that fit in room: the whole tree if it fits,
// else only the running nodes expanded (finished subtrees collapse into
// their root; after a halt, the nodes the halt stopped), else also only a window of siblings around the running
// child, and at worst the first rows.
func (v *liveView) treeRows(f *liveFrame, room int) []row {
	if len(v.nodes) == 0 {
		return nil
	}
	all := func(int) bool { return true }
	// The running path; once halted (Ctrl-C), the path that was running.
	var lastHalt time.Time
	for _, s := range f.states {
		if s.mark == markHalted && s.at.After(lastHalt) {
			lastHalt = s.at
		}
	}
	running := func(i int) bool {
		s := f.states[i]
		return i == 0 || s.status == runtime.Running || s.mark == markHalted && !s.at.Before(lastHalt.Add(-haltWindow))
	}
	if rs := v.rows(f, all, -1); len(rs) <= room {
		return rs
	}
	var rs []row
	for _, w := range []int{-1, 3, 2, 1, 0} {
		rs = v.rows(f, running, w)
		if len(rs) <= room {
			return rs
		}
	}
	cut := rs[:room-1]
	return append(cut, row{node: -1, depth: 0, hidden: -(len(rs) - len(cut))})
}

// rows walks the tree, expanding the nodes expand says, showing of each
// expanded node's children those to expand and at most window siblings
// either side of the focus child (all when window < 0).
func (v *liveView) rows(f *liveFrame, expand func(int) bool, window int) []row {
	var out []row
	var walk func(i int)
	walk = func(i int) {
		n := &v.nodes[i]
		if len(n.children) == 0 || !expand(i) {
			out = append(out, row{node: i, depth: n.depth, hidden: n.desc})
			return
		}
		out = append(out, row{node: i, depth: n.depth})
		kids := n.children
		keep := func(int) bool { return true }
		if window >= 0 && len(kids) > 2*window+1 {
			c := focusChild(f, kids, expand)
			keep = func(k int) bool { return k >= c-window && k <= c+window || expand(kids[k]) }
		}
		hidden := 0
		for k, c := range kids {
			if !keep(k) {
				hidden++
				continue
			}
			if hidden > 0 {
				out = append(out, row{node: -1, depth: n.depth + 1, hidden: hidden})
				hidden = 0
			}
			walk(c)
		}
		if hidden > 0 {
			out = append(out, row{node: -1, depth: n.depth + 1, hidden: hidden})
		}
	}
	walk(0)
	return out
}

// focusChild is the child to centre a window on: the first one to expand
// (running, or halted last), else the one that changed last.
func focusChild(f *liveFrame, kids []int, expand func(int) bool) int {
	best := 0
	for k, c := range kids {
		if expand(c) {
			return k
		}
		if f.states[c].at.After(f.states[kids[best]].at) {
			best = k
		}
	}
	return best
}

// rowText draws one row: indentation, symbol, label, values, and on the
// right the status and how long ago it changed.
func (v *liveView) rowText(f *liveFrame, r row, cols int, st styler) string {
	indent := strings.Repeat("  ", r.depth)
	if r.node < 0 {
		if r.hidden < 0 {
			return st.line(cols, seg{fmt.Sprintf("%s… %d more rows", indent, -r.hidden), styleDim})
		}
		return st.line(cols, seg{fmt.Sprintf("%s… %d more", indent, r.hidden), styleDim})
	}
	n := &v.nodes[r.node]
	s := f.states[r.node]
	live := s.status != runtime.Idle
	style := markStyles[s.mark]
	if !live {
		style = styleDim
	}
	right := ""
	if s.mark != markNever {
		right = fmt.Sprintf("%-7s %11s", markWords[s.mark], spanText(f.now.Sub(s.since)))
		if !live {
			right = fmt.Sprintf("%-7s %11s", strings.ToLower(markWords[s.mark]), agoText(f.now.Sub(s.at)))
		}
	}
	leftCols := cols - 1
	if right != "" && cols >= 40 {
		leftCols = cols - len([]rune(right)) - 2
	} else {
		right = ""
	}
	labelStyle := styleNone
	if s.status == runtime.Running {
		labelStyle = styleRunningPath
	} else if !live {
		labelStyle = styleDim
	}
	segs := []seg{{indent, styleNone}, {markSymbols[s.mark] + " ", style}, {n.label, labelStyle}}
	if r.hidden > 0 {
		segs = append(segs, seg{fmt.Sprintf(" [+%d]", r.hidden), styleDim})
	}
	if p := f.ports[r.node]; p != "" {
		segs = append(segs, seg{"  " + p, styleDim})
	}
	left := st.line(leftCols, segs...)
	if right == "" {
		return left
	}
	pad := leftCols - visibleLen(segs, leftCols) + 2
	return left + strings.Repeat(" ", pad) + st.text(right, style)
}

// Styles of the terminal view.
type style uint8

const (
	styleNone style = iota
	styleBold
	styleDim
	styleRunning
	styleRunningPath
	styleSuccess
	styleFailure
	styleHalted
)

var styleCodes = [...]string{
	styleNone:        "",
	styleBold:        "\x1b[1m",
	styleDim:         "\x1b[2m",
	styleRunning:     "\x1b[1;33m",
	styleRunningPath: "\x1b[1;7;33m",
	styleSuccess:     "\x1b[32m",
	styleFailure:     "\x1b[1;31m",
	styleHalted:      "\x1b[35m",
}

var markStyles = [...]style{styleDim, styleRunning, styleSuccess, styleFailure, styleHalted}

// seg is a piece of a line in one style.
type seg struct {
	text  string
	style style
}

// styler writes styled segments, cut to a width.
type styler struct{ color bool }

func (s styler) text(t string, st style) string {
	if !s.color || styleCodes[st] == "" || t == "" {
		return t
	}
	return styleCodes[st] + t + "\x1b[0m"
}

// line joins segments, cutting them (by runes) to width columns; a cut
// line ends with "…".
func (s styler) line(width int, segs ...seg) string {
	var b strings.Builder
	left := width
	for i, g := range segs {
		r := []rune(g.text)
		if len(r) > left || len(r) == left && i < len(segs)-1 && hasText(segs[i+1:]) {
			if left > 0 {
				b.WriteString(s.text(string(r[:left-1])+"…", g.style))
			}
			return b.String()
		}
		b.WriteString(s.text(g.text, g.style))
		left -= len(r)
	}
	return b.String()
}

func hasText(segs []seg) bool {
	for _, g := range segs {
		if g.text != "" {
			return true
		}
	}
	return false
}

// visibleLen is the width styler.line gives segs within width.
func visibleLen(segs []seg, width int) int {
	n := 0
	for _, g := range segs {
		n += len([]rune(g.text))
	}
	return min(n, width)
}

// spanText writes how long a node has been in its status: to the
// millisecond under a second, then to the tenth, then to the second.
func spanText(d time.Duration) string {
	switch {
	case d < time.Second:
		return shortDuration(d.Round(time.Millisecond))
	case d < 10*time.Second:
		return shortDuration(d.Round(100 * time.Millisecond))
	}
	return shortDuration(d.Round(time.Second))
}

// agoText writes how long ago something happened.
func agoText(d time.Duration) string { return spanText(d) + " ago" }

// clockText writes a duration as h:mm:ss.t.
func clockText(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	h := int(d / time.Hour)
	m := int(d/time.Minute) % 60
	s := (d % time.Minute).Seconds()
	return fmt.Sprintf("%d:%02d:%04.1f", h, m, s)
}

// shortDuration writes a duration in at most about six characters.
func shortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.3gms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.3gs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// ring keeps the last 256 durations.
type ring struct {
	buf [256]time.Duration
	n   int // total added
}

func (r *ring) add(d time.Duration) { r.buf[r.n%len(r.buf)] = d; r.n++ }
func (r *ring) len() int            { return min(r.n, len(r.buf)) }

// at returns the i-th kept duration, oldest first.
func (r *ring) at(i int) time.Duration {
	if r.n <= len(r.buf) {
		return r.buf[i]
	}
	return r.buf[(r.n+i)%len(r.buf)]
}

func (r *ring) quantile(q float64) time.Duration {
	n := r.len()
	if n == 0 {
		return 0
	}
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = r.at(i)
	}
	slices.Sort(s)
	k := int(q*float64(n)+0.999999) - 1
	return s[min(max(k, 0), n-1)]
}
