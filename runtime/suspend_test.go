package runtime

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdLeaf is a RUNNING leaf that is a Suspender: it records "name~" for a
// Suspend and "name^" for a Resume; its Suspend settles when the test says.
type holdLeaf struct {
	Base
	rec     *suspendLog
	settled chan struct{}
}

type suspendLog struct {
	mu     sync.Mutex
	events []string
}

func (l *suspendLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *suspendLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.Join(l.events, " ")
	l.events = nil
	return s
}

func (n *holdLeaf) Tick() (Status, error) { return Running, nil }
func (n *holdLeaf) Halt()                 {}
func (n *holdLeaf) Suspend() <-chan struct{} {
	n.rec.add(n.name + "~")
	return n.settled
}
func (n *holdLeaf) Resume() { n.rec.add(n.name + "^") }

// TestPauseSuspendsRunningLeaves: a tick held by the runtime's pause
// control (a pause, a breakpoint) suspends the tree's RUNNING Suspenders
// before Paused turns true, and resumes them when the tree goes on freely;
// not after a step, nor when the run ends (Close). Tree.Suspended says
// whether every suspended leaf has settled.
func TestPauseSuspendsRunningLeaves(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hold    func(b *Breakpoints, nav uint32)
		release func(b *Breakpoints, nav uint32)
		after   string // the events of the release and of one more tick
		still   bool   // the tree is still suspended after
	}{
		{name: "pause, continue: suspended, then resumed",
			hold: func(b *Breakpoints, _ uint32) { b.Pause() }, release: func(b *Breakpoints, _ uint32) { b.Continue(false) },
			after: "nav^"},
		{name: "breakpoint, unlock: suspended, then resumed",
			hold:    func(b *Breakpoints, nav uint32) { b.Set(Hook{UID: nav, Mode: Breakpoint, Enabled: true}) },
			release: func(b *Breakpoints, nav uint32) { b.Remove(nav, Before) },
			after:   "nav^"},
		{name: "Groot2's remove all: resumed",
			hold: func(b *Breakpoints, _ uint32) { b.Pause() }, release: func(b *Breakpoints, _ uint32) { b.RemoveAll() },
			after: "nav^"},
		{name: "step: held again, suspended again, never resumed meanwhile",
			hold: func(b *Breakpoints, _ uint32) { b.Pause() }, release: func(b *Breakpoints, _ uint32) { b.Continue(true) },
			after: "nav~", still: true},
		{name: "close (the run ends): not resumed",
			hold: func(b *Breakpoints, _ uint32) { b.Pause() }, release: func(b *Breakpoints, _ uint32) { b.Close() },
			after: "", still: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &suspendLog{}
			settled := make(chan struct{})
			reg := testRegistry(&eventLog{})
			reg.MustRegister(NodeType{ID: "Hold", Kind: ActionKind, New: func(*Config) (Node, error) {
				return &holdLeaf{rec: rec, settled: settled}, nil
			}})
			// A leaf that is not RUNNING is not suspended.
			tree, _ := buildWith(t, reg, N("Parallel", A("success_count", "-1"),
				N("Hold", A("name", "nav")), S("done", "S")))
			b := NewBreakpoints(BreakpointsConf{})
			defer tree.Hook(b)()
			st, err := tree.TickExactlyOnce()
			require.NoError(t, err)
			require.Equal(t, Running, st)
			on, _, _ := tree.Suspended()
			require.False(t, on)

			var nav uint32
			for _, nd := range tree.Nodes() {
				if NodeOf(nd).Name() == "nav" {
					nav = NodeOf(nd).UID()
				}
			}
			tc.hold(b, nav)
			done := tickUntilHeld(t, tree, b)
			assert.Equal(t, "nav~", rec.take(), "suspended before Paused")
			on, n, ok := tree.Suspended()
			assert.True(t, on)
			assert.Equal(t, 1, n)
			assert.False(t, ok, "settled before the leaf said so")
			close(settled)
			_, _, ok = tree.Suspended()
			assert.True(t, ok, "settled")

			tc.release(b, nav)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				require.Fail(t, "the tick was not let go")
			}
			if tc.name == "step: held again, suspended again, never resumed meanwhile" {
				again := make(chan struct{})
				go func() { _, _ = tree.TickExactlyOnce(); close(again) }()
				require.Eventually(t, b.Paused, 5*time.Second, time.Millisecond, "held again")
				assert.Equal(t, tc.after, rec.take())
				on, _, _ = tree.Suspended()
				assert.Equal(t, tc.still, on)
				b.Close()
				<-again
				return
			}
			assert.Equal(t, tc.after, rec.take())
			on, _, _ = tree.Suspended()
			assert.Equal(t, tc.still, on)
			tree.Halt()
			on, _, _ = tree.Suspended()
			assert.False(t, on, "a halted tree is not suspended")
		})
	}
}
