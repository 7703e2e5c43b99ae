package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObserveRemove: removing an observer stops its transitions and
// leaves the others; an ObserverFunc (a func, not comparable) can be
// removed too, and removing twice does nothing.
func TestObserveRemove(t *testing.T) {
	tree, _ := buildWith(t, testRegistry(nil), N("AlwaysSuccess", nil))
	var a, b int
	removeA := tree.Observe(ObserverFunc(func(Transition) { a++ }))
	removeB := tree.Observe(ObserverFunc(func(Transition) { b++ }))
	_, err := tree.TickOnce()
	require.NoError(t, err)
	assert.Positive(t, a)
	assert.Positive(t, b)
	require.NotPanics(t, removeA)
	require.NotPanics(t, removeA)
	seenA, seenB := a, b
	_, err = tree.TickOnce()
	require.NoError(t, err)
	assert.Equal(t, seenA, a, "a removed observer still called")
	assert.Greater(t, b, seenB, "the other observer removed too")
	removeB()
	_, err = tree.TickOnce()
	require.NoError(t, err)
}

// batches is an Observer that keeps every batch it is given (copied: the
// slice is the tree's).
type batches struct{ got [][]Transition }

func (b *batches) OnTransitions(batch []Transition) {
	b.got = append(b.got, append([]Transition(nil), batch...))
}

// all returns the transitions of every batch as "node from>to", in order.
func (b *batches) all() []string {
	var out []string
	for _, batch := range b.got {
		for _, tr := range batch {
			out = append(out, tr.Node.Name()+" "+tr.From.String()+">"+tr.To.String())
		}
	}
	return out
}

// advanceLeaf moves the tree's clock by a second and succeeds: a tick
// that takes time.
type advanceLeaf struct {
	Base
	clock *ManualClock
}

func (n *advanceLeaf) Tick() (Status, error) {
	n.clock.Advance(time.Second)
	return Success, nil
}

// TestObserversGetBatches: observers are given the transitions in
// batches — a tick's at its end with one time, a halt's at its end, one
// made outside a tick at once, a tick held at a breakpoint as far as it
// went before it waits, a tick that loops in batches of at most maxBatch —
// each in the order the transitions happened, the same as an
// ObserverFunc sees them one by one.
func TestObserversGetBatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		tree *NodeSpec
		// run drives the tree; it returns the transitions of each batch
		// wanted, by count.
		run  func(t *testing.T, tree *Tree, clock *ManualClock, seen *batches) (wantBatches []int)
		same bool // every transition carries one time
	}{
		{
			name: "a tick: one batch at its end, one time though the clock moved",
			tree: N("Sequence", A("name", "s"), N("Advance", A("name", "a")), N("Advance", A("name", "b"))),
			run: func(t *testing.T, tree *Tree, _ *ManualClock, _ *batches) []int {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				return []int{7} // a and b IDLE>SUCCESS>IDLE, s IDLE>SUCCESS>IDLE (running first)
			},
			same: true,
		},
		{
			name: "a halt: one batch at its end",
			tree: N("Sequence", A("name", "s"), S("a", "S"), S("b", "R")),
			run: func(t *testing.T, tree *Tree, _ *ManualClock, _ *batches) []int {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				tree.Halt()
				return []int{3, 3} // s RUNNING, a SUCCESS, b RUNNING; then all three to IDLE
			},
		},
		{
			name: "SetStatus outside a tick: at once",
			tree: N("Sequence", A("name", "s"), S("a", "R")),
			run: func(t *testing.T, tree *Tree, _ *ManualClock, _ *batches) []int {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				NodeOf(tree.Nodes()[1]).SetStatus(Success)
				NodeOf(tree.Nodes()[1]).SetStatus(Idle)
				return []int{2, 1, 1}
			},
		},
		{
			name: "a breakpoint: the tick so far before it holds (read again after), the rest at its end",
			tree: N("Sequence", A("name", "s"), S("a", "S"), S("b", "S")),
			run: func(t *testing.T, tree *Tree, clock *ManualClock, seen *batches) []int {
				var bp *Breakpoints
				var atHold []string
				bp = NewBreakpoints(BreakpointsConf{OnPause: func(_ *Base, _ HookAt, paused bool) {
					if paused {
						atHold = seen.all()
						clock.Advance(time.Second)
						bp.Continue(false)
					}
				}})
				bp.Set(Hook{UID: 3, At: Before, Mode: Breakpoint, Enabled: true})
				defer tree.Hook(bp)()
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				assert.Equal(t, []string{"s IDLE>RUNNING", "a IDLE>SUCCESS"}, atHold, "what the observers had when the tick held at b")
				require.Len(t, seen.got, 2)
				assert.Equal(t, time.Second, seen.got[1][0].Time.Sub(seen.got[0][0].Time), "the clock read again after the hold")
				return []int{2, 5}
			},
		},
		{
			name: "a tick of more than maxBatch transitions: batches of maxBatch, one time",
			tree: N("Sequence", A("name", "s"), manySuccesses(maxBatch)...),
			run: func(t *testing.T, tree *Tree, _ *ManualClock, _ *batches) []int {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				// each leaf IDLE>SUCCESS, then each reset; s RUNNING, SUCCESS, IDLE
				return []int{maxBatch, maxBatch, 3}
			},
			same: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewManualClock(testEpoch)
			reg := testRegistry(&eventLog{})
			reg.MustRegister(NodeType{ID: "Advance", Kind: ActionKind, New: func(*Config) (Node, error) {
				return &advanceLeaf{clock: clock}, nil
			}})
			tree, err := Build(reg, &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: tc.tree}}}, BuildConf{Clock: clock, Seed: 42})
			require.NoError(t, err)
			b := &batches{}
			var one []string
			tree.Observe(b)
			tree.Observe(ObserverFunc(func(tr Transition) {
				one = append(one, tr.Node.Name()+" "+tr.From.String()+">"+tr.To.String())
			}))
			want := tc.run(t, tree, clock, b)
			var got []int
			for _, batch := range b.got {
				got = append(got, len(batch))
			}
			assert.Equal(t, want, got, "transitions per batch")
			assert.Equal(t, one, b.all(), "the batches hold the transitions in the order they happened")
			if tc.same {
				for _, batch := range b.got {
					for _, tr := range batch {
						require.Equal(t, b.got[0][0].Time, tr.Time, "%s: the tick's one time", tr.Node.Name())
					}
				}
			}
		})
	}
}

// manySuccesses returns n AlwaysSuccess leaves.
func manySuccesses(n int) []*NodeSpec {
	out := make([]*NodeSpec, n)
	for i := range out {
		out[i] = N("AlwaysSuccess", nil)
	}
	return out
}
