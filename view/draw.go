package view

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// draw is the view's goroutine: every Interval it asks the tick side for
// a fresh frame and draws the one it has, or writes the queued lines.
func (v *Live) draw() {
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
func (v *Live) copyFrame(f *liveFrame) {
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
	f.reasons = make(map[int]string, len(s.reasons))
	for k, r := range s.reasons {
		f.reasons[k] = r
	}
	f.keys = slices.Clone(s.keys)
	f.logs = slices.Clone(v.logs)
	if last := v.lastWall.Load(); last != 0 && s.ticks > 0 {
		f.idleWall = v.conf.Wall().Sub(time.Unix(0, last))
	}
}

func (v *Live) writeLines() {
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

func (v *Live) writeOut(s string) { io.WriteString(v.conf.Out, s) }

// writeFrame draws lines over the previous frame: the cursor goes back up
// to the frame's first line, each line clears what is left of the old one,
// and what the old frame had below is cleared.
func (v *Live) writeFrame(lines []string) {
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
func (v *Live) Close(end string) {
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
func (v *Live) summaryLine(f *liveFrame) string {
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
func (v *Live) statsText(f *liveFrame) string {
	parts := []string{fmt.Sprintf("%d ticks", f.ticks)}
	if f.rate > 0 {
		parts = append(parts, fmt.Sprintf("%.1f Hz", f.rate))
	}
	parts = append(parts, "late p99 "+shortDuration(f.lateP99)+" max "+shortDuration(f.lateMax))
	if v.conf.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%d overruns", f.overruns))
	}
	if f.stalls > 0 {
		parts = append(parts, stallText(f.stalls, f.longest))
	}
	return strings.Join(parts, " · ")
}
