package executor

import (
	"slices"
	"sync"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// feedbacks publishes a run's feedback to the goal it answers: on every
// tick that changed the running leaves, and at least every period while
// the run lasts (a paused tree does not tick).
type feedbacks struct {
	s       *Server
	a       *active
	mission string
	every   time.Duration

	mu   sync.Mutex
	last ros.ExecuteMissionActionFeedback
	sent time.Time
	to   *goal
}

// onTick is called on the tick's goroutine.
func (f *feedbacks) onTick(tree *runtime.Tree, t runtime.TickReport) {
	fb := ros.ExecuteMissionActionFeedback{Mission: f.mission, Tick: t.Seq}
	for _, n := range tree.Nodes() {
		b := runtime.NodeOf(n)
		if len(b.Children()) == 0 && b.Status() == runtime.Running {
			fb.Running = append(fb.Running, b.Path())
			fb.Reasons = append(fb.Reasons, b.Reason())
		}
	}
	f.s.mu.Lock()
	g := f.a.goal
	f.s.mu.Unlock()
	f.mu.Lock()
	changed := g != f.to || !slices.Equal(fb.Running, f.last.Running) || !slices.Equal(fb.Reasons, f.last.Reasons)
	due := changed || time.Since(f.sent) >= f.every
	f.last = fb
	if due {
		f.sent, f.to = time.Now(), g
	}
	f.mu.Unlock()
	if due {
		g.feedback(&fb)
	}
}

// keepAlive sends the last feedback again when none went out for a
// period, until quit closes.
func (f *feedbacks) keepAlive(quit <-chan struct{}) {
	t := time.NewTicker(f.every / 4)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
		}
		f.s.mu.Lock()
		g := f.a.goal
		f.s.mu.Unlock()
		f.mu.Lock()
		due := time.Since(f.sent) >= f.every
		fb := f.last
		fb.Mission = f.mission
		if due {
			f.sent, f.to = time.Now(), g
		}
		f.mu.Unlock()
		if due && g.feedback != nil {
			g.feedback(&fb)
		}
	}
}
