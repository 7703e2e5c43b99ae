package runtime

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBreakpoints: the hook table both the Groot2 server and the studio
// hold trees with. Each case sets hooks on a Sequence of two actions and
// says what a tick does: whether it is held (and where), and the root's
// status and the actions' ticks once it is let go.
func TestBreakpoints(t *testing.T) {
	for _, tc := range []struct {
		name     string
		set      func(b *Breakpoints)
		held     string               // the name of the node it holds at ("": not held)
		release  func(b *Breakpoints) // lets it go
		status   Status
		ticks    [2]int // of the two actions
		heldNext bool   // the next tick is held too
	}{
		{name: "no hook: the tick runs", set: func(*Breakpoints) {}, status: Success, ticks: [2]int{1, 1}},
		{name: "a breakpoint before the first action holds, unlocked it ticks it",
			set:     func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint, Enabled: true}) },
			held:    "a",
			release: func(b *Breakpoints) { b.Unlock(2, Before, Skipped, false) },
			status:  Success, ticks: [2]int{1, 1}, heldNext: true},
		{name: "unlocked with FAILURE, the action is not ticked and fails",
			set:     func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint, Enabled: true}) },
			held:    "a",
			release: func(b *Breakpoints) { b.Unlock(2, Before, Failure, true) },
			status:  Failure, ticks: [2]int{0, 0}},
		{name: "a breakpoint after the second action holds after its tick",
			set:     func(b *Breakpoints) { b.Set(Hook{UID: 3, At: After, Mode: Breakpoint, Enabled: true}) },
			held:    "b",
			release: func(b *Breakpoints) { b.Continue(false) },
			status:  Success, ticks: [2]int{1, 1}, heldNext: true},
		{name: "a replace-hook: no hold, the node not ticked",
			set: func(b *Breakpoints) {
				b.Set(Hook{UID: 3, Mode: Replace, Status: Failure, Enabled: true})
			},
			status: Failure, ticks: [2]int{1, 0}},
		{name: "a disabled hook does nothing",
			set:    func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint}) },
			status: Success, ticks: [2]int{1, 1}},
		{name: "a once breakpoint holds once",
			set:     func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint, Once: true, Enabled: true}) },
			held:    "a",
			release: func(b *Breakpoints) { b.Unlock(2, Before, Skipped, false) },
			status:  Success, ticks: [2]int{1, 1}},
		{name: "pause holds before the root; step runs the tick and holds the next",
			set:     func(b *Breakpoints) { b.Pause() },
			held:    "seq",
			release: func(b *Breakpoints) { b.Continue(true) },
			status:  Success, ticks: [2]int{1, 1}, heldNext: true},
		{name: "a pause and a breakpoint on the root hold once",
			set: func(b *Breakpoints) {
				b.Set(Hook{UID: 1, Mode: Breakpoint, Enabled: true})
				b.Pause()
			},
			held:    "seq",
			release: func(b *Breakpoints) { b.Continue(false) },
			status:  Success, ticks: [2]int{1, 1}, heldNext: true},
		{name: "a breakpoint turned into a replace-hook lets the tick go with its status",
			set:  func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint, Enabled: true}) },
			held: "a",
			release: func(b *Breakpoints) {
				b.Set(Hook{UID: 2, Mode: Replace, Status: Success, Enabled: true})
			},
			status: Success, ticks: [2]int{0, 1}},
		{name: "removing every hook lets the tick go",
			set:     func(b *Breakpoints) { b.Set(Hook{UID: 3, Mode: Breakpoint, Enabled: true}) },
			held:    "b",
			release: func(b *Breakpoints) { b.RemoveAll() },
			status:  Success, ticks: [2]int{1, 1}},
		{name: "closed, nothing holds any more",
			set:     func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint, Enabled: true}) },
			held:    "a",
			release: func(b *Breakpoints) { b.Close() },
			status:  Success, ticks: [2]int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			tree, _ := buildTest(t, N("Sequence", A("name", "seq"), S("a", "S,S"), S("b", "S,S")), log)
			countTicks := func() (n [2]int) {
				for _, e := range log.take() {
					switch e {
					case "a":
						n[0]++
					case "b":
						n[1]++
					}
				}
				return n
			}
			b := NewBreakpoints(BreakpointsConf{})
			defer tree.Hook(b)()
			tc.set(b)
			done := make(chan Status, 1)
			go func() {
				st, err := tree.TickExactlyOnce()
				assert.NoError(t, err)
				done <- st
			}()
			if tc.held != "" {
				require.Eventually(t, b.Paused, 5*time.Second, time.Millisecond, "held")
				n, _, ok := b.Held()
				require.True(t, ok)
				assert.Equal(t, tc.held, n.Name())
				select {
				case <-done:
					require.Fail(t, "the tick went on while held")
				case <-time.After(50 * time.Millisecond):
				}
				tc.release(b)
			}
			select {
			case st := <-done:
				assert.Equal(t, tc.status, st)
			case <-time.After(5 * time.Second):
				require.Fail(t, "the tick was not let go")
			}
			assert.Equal(t, tc.ticks, countTicks())
			assert.False(t, b.Paused())
			go func() { st, _ := tree.TickExactlyOnce(); done <- st }()
			select {
			case <-done:
				assert.False(t, tc.heldNext, "the next tick was not held")
			case <-time.After(200 * time.Millisecond):
				assert.True(t, tc.heldNext, "the next tick was held")
				b.Close()
				<-done
			}
		})
	}
}

// TestHeldShowsOnlyOnceTheTreeIsHeld: while a hold delivers the tick as
// far as it went and suspends the tree's leaves, Held does not yet say the
// tree is held; it does once Paused does, when OnPause says so. A page
// that drew the hold from what the observers were shown (the studio sends
// at once) told its user the tree was held, robot still, before it was.
func TestHeldShowsOnlyOnceTheTreeIsHeld(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(b *Breakpoints)
	}{
		{"a breakpoint before a node", func(b *Breakpoints) { b.Set(Hook{UID: 2, Mode: Breakpoint, Enabled: true}) }},
		{"a breakpoint after a node", func(b *Breakpoints) { b.Set(Hook{UID: 2, At: After, Mode: Breakpoint, Enabled: true}) }},
		{"a pause", func(b *Breakpoints) { b.Pause() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, _ := buildTest(t, N("Sequence", A("name", "seq"), S("a", "S,S"), S("b", "S,S")), &eventLog{})
			var b *Breakpoints
			var mu sync.Mutex
			var early []string // what an observer saw held before the tree was
			var onPause []bool // Held when OnPause said paused
			b = NewBreakpoints(BreakpointsConf{OnPause: func(_ *Base, _ HookAt, paused bool) {
				if paused {
					_, _, held := b.Held()
					mu.Lock()
					onPause = append(onPause, held)
					mu.Unlock()
				}
			}})
			defer tree.Hook(b)()
			tree.Observe(ObserverFunc(func(tr Transition) {
				if n, _, held := b.Held(); held && !b.Paused() {
					mu.Lock()
					early = append(early, fmt.Sprintf("held at %s when %s went %v", n.Name(), tr.Node.Name(), tr.To))
					mu.Unlock()
				}
			}))
			tc.set(b)
			done := tickUntilHeld(t, tree, b)
			b.Close()
			<-done
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, early, "observers were shown the tree held before it was")
			assert.Equal(t, []bool{true}, onPause, "Held when OnPause says the tree is held")
		})
	}
}

// tickUntilHeld ticks tree once on a goroutine of its own and returns
// once b holds it; the channel closes when the tick returns.
func tickUntilHeld(t *testing.T, tree *Tree, b *Breakpoints) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := tree.TickExactlyOnce()
		assert.NoError(t, err)
	}()
	require.Eventually(t, b.Paused, 5*time.Second, time.Millisecond, "held")
	return done
}
