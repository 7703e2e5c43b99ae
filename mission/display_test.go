package mission

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/btrobot/btrobot/runtime"
)

// logDisplay is a Display that keeps its log lines.
type logDisplay struct {
	mu    sync.Mutex
	lines []string
}

func (d *logDisplay) OnTransition(runtime.Transition)                {}
func (d *logDisplay) OnTick(runtime.TickReport)                      {}
func (d *logDisplay) NodeLog(at time.Time, level, node, text string) {}
func (d *logDisplay) Close(end string)                               {}
func (d *logDisplay) Log(line string)                                { d.mu.Lock(); d.lines = append(d.lines, line); d.mu.Unlock() }

// TestBacklogShowsEveryLineOnce: lines said before the view runs are
// shown first, in order, and lines after go straight to the view.
func TestBacklogShowsEveryLineOnce(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after []string
	}{
		{name: "nothing before", after: []string{"c"}},
		{name: "lines before and after", before: []string{"a", "b"}, after: []string{"c"}},
		{name: "lines before only", before: []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Backlog
			for _, l := range tc.before {
				b.Println(l)
			}
			d := &logDisplay{}
			got := b.Show(func(Shown) Display { return d })(Shown{})
			assert.Same(t, d, got)
			for _, l := range tc.after {
				b.Println(l)
			}
			assert.Equal(t, append(append([]string{}, tc.before...), tc.after...), append([]string{}, d.lines...))
		})
	}
}
