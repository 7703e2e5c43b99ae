package mission

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/view"
)

// LiveViewConf configures LiveView.
type LiveViewConf struct {
	// Out is where the view is drawn.
	Out io.Writer
	// Keys are the blackboard entries shown under the tree.
	Keys []string
	// Title heads the view [the mission's: btrobot run FILE · robot NAME ·
	// NODE @ MASTER].
	Title string
	// Headless draws plain lines even to a terminal.
	Headless bool
}

// LiveView makes the terminal's live view of a run, for RunConf.Display:
// redrawn in place when Out is a terminal (in colour unless NO_COLOR is
// set; never with TERM=dumb or Headless), plain lines elsewhere.
func LiveView(c LiveViewConf) func(Shown) Display {
	return func(s Shown) Display {
		cols, rows, isTerm := view.TerminalSize(c.Out)
		isTerm = isTerm && !c.Headless && os.Getenv("TERM") != "dumb"
		title := c.Title
		if title == "" {
			title = s.Mission.Title("btrobot run", s.Conn)
		}
		v := view.NewLive(view.LiveConf{
			Out: c.Out, Tree: s.Tree, Registry: s.Registry, Title: title,
			Terminal: isTerm, Color: isTerm && os.Getenv("NO_COLOR") == "",
			Size: func() (int, int) {
				if c, rw, ok := view.TerminalSize(c.Out); ok {
					return c, rw
				}
				return cols, rows
			},
			Rate: s.Rate, SimTime: s.Conn != nil && s.Conn.SimClock() != nil, Keys: c.Keys,
			Reason: func(n runtime.Node) string { return runtime.NodeOf(n).Reason() },
		})
		v.Start()
		return v
	}
}

// WriteEnd writes how the run ended when no live view has (quiet), and,
// when the mission failed, why: the chain of nodes that decided it, one
// node a line, indented by depth.
func (r Report) WriteEnd(w io.Writer, quiet bool) {
	if quiet {
		fmt.Fprintln(w, r.Summary())
	}
	if r.Outcome == Failed && len(r.Explanation) > 0 {
		fmt.Fprintln(w, "why:")
		view.Explanation(w, r.Explanation, "  ")
	}
}

// Backlog holds the lines said before a live view runs (a simulator's
// first events, a master's start) and passes them, and every line after
// them, to the view once it runs. Safe from any goroutine.
type Backlog struct {
	mu    sync.Mutex
	to    func(string)
	lines []string
}

// Println shows text in the view, or keeps it until the view runs.
func (b *Backlog) Println(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.to == nil {
		b.lines = append(b.lines, text)
		return
	}
	b.to(text)
}

// Show wraps a RunConf.Display so that the display shows the backlog, and
// every line after it, from its start.
func (b *Backlog) Show(display func(Shown) Display) func(Shown) Display {
	return func(s Shown) Display {
		d := display(s)
		b.mu.Lock()
		defer b.mu.Unlock()
		b.to = d.Log
		for _, l := range b.lines {
			d.Log(l)
		}
		b.lines = nil
		return d
	}
}
