package mission

import (
	"math"
	"strings"
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

func (d *logDisplay) OnTransitions([]runtime.Transition)             {}
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

// TestDemoConfProblems: every setting out of range is named, each once;
// StartDemo refuses them before starting anything.
func TestDemoConfProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf DemoConf
		want []string
	}{
		{name: "the defaults of btrobot demo", conf: DemoConf{Rounds: 2, Speed: 10, Battery: 0.3}},
		{name: "as fast as possible, full", conf: DemoConf{Rounds: 1, Speed: 0, Battery: 1}},
		{name: "no rounds", conf: DemoConf{Rounds: 0, Speed: 1, Battery: 0.3}, want: []string{"rounds 0: want at least 1"}},
		{name: "everything wrong", conf: DemoConf{Rounds: -1, Speed: math.NaN(), Battery: 0.05}, want: []string{
			"rounds -1: want at least 1",
			"speed NaN: want 0 (as fast as possible) or a factor of real time up to 1000",
			"battery 0.05: want a charge above 0.05 and at most 1"}},
		{name: "too fast, overcharged", conf: DemoConf{Rounds: 1, Speed: 1001, Battery: 1.01}, want: []string{
			"speed 1001: want 0 (as fast as possible) or a factor of real time up to 1000",
			"battery 1.01: want a charge above 0.05 and at most 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.conf.Problems())
			if tc.want != nil {
				_, err := StartDemo(tc.conf)
				assert.EqualError(t, err, "demo: "+strings.Join(tc.want, "; "))
			}
		})
	}
}
