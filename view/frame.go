package view

import (
	"fmt"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// render lays the frame out in at most rows lines of at most cols columns.
func (v *Live) render(f *liveFrame, cols, rows int) []string {
	cols, rows = max(cols, 20), max(rows, 6)
	st := styler{color: v.conf.Color && v.conf.Terminal}
	var head []string
	if v.conf.Title != "" {
		head = append(head, st.line(cols, seg{v.conf.Title, styleBold}))
	}
	clock := "up " + ClockText(f.elapsed)
	if v.conf.SimTime {
		clock = "sim " + ClockText(f.elapsed)
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
func (v *Live) treeRows(f *liveFrame, room int) []row {
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
func (v *Live) rows(f *liveFrame, expand func(int) bool, window int) []row {
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
func (v *Live) rowText(f *liveFrame, r row, cols int, st styler) string {
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
	if why := f.reasons[r.node]; why != "" {
		segs = append(segs, seg{"  " + why, styleFailure})
	}
	left := st.line(leftCols, segs...)
	if right == "" {
		return left
	}
	pad := leftCols - visibleLen(segs, leftCols) + 2
	return left + strings.Repeat(" ", pad) + st.text(right, style)
}
