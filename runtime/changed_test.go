package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changes is a ChangesObserver that keeps, for each batch, the nodes the
// tree said it changed: "name status left" (left when the node is IDLE),
// in UID order.
type changes struct {
	t   *testing.T
	got [][]string
}

func (c *changes) OnTransitions([]Transition) {}

func (c *changes) OnChanged(set *Changed) {
	var out []string
	for b, left := range set.All() {
		s := b.Name() + " " + b.Status().String()
		if b.Status() == Idle {
			s += " after " + left.String()
		}
		out = append(out, s)
	}
	require.Len(c.t, out, set.Len(), "Len counts the nodes All gives")
	c.got = append(c.got, out)
}

// TestChangesObserverGetsTheNodesABatchChanged: after each batch, an
// observer that wants them is given the nodes the batch changed — each
// once however often it moved, as it is at the batch's end, with what it
// left when it last went IDLE — and none once it is removed.
func TestChangesObserverGetsTheNodesABatchChanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		tree *NodeSpec
		run  func(t *testing.T, tree *Tree, remove func())
		want [][]string
	}{
		{
			name: "a tick: each node once, IDLE after what it returned",
			tree: N("Sequence", A("name", "s"), S("a", "S"), S("b", "S")),
			run: func(t *testing.T, tree *Tree, _ func()) {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
			},
			want: [][]string{{"s IDLE after SUCCESS", "a IDLE after SUCCESS", "b IDLE after SUCCESS"}},
		},
		{
			name: "a tick that runs, then a halt: RUNNING, then IDLE after what each was",
			tree: N("Sequence", A("name", "s"), S("a", "S"), S("b", "R"), S("c", "S")),
			run: func(t *testing.T, tree *Tree, _ func()) {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				tree.Halt()
			},
			want: [][]string{
				{"s RUNNING", "a SUCCESS", "b RUNNING"},
				{"s IDLE after RUNNING", "a IDLE after SUCCESS", "b IDLE after RUNNING"},
			},
		},
		{
			name: "a tick that changes nothing: no batch",
			tree: N("Sequence", A("name", "s"), S("a", "R")),
			run: func(t *testing.T, tree *Tree, _ func()) {
				for range 3 {
					_, err := tree.TickExactlyOnce()
					require.NoError(t, err)
				}
			},
			want: [][]string{{"s RUNNING", "a RUNNING"}},
		},
		{
			name: "removed: no more sets, and the tree notes none",
			tree: N("Sequence", A("name", "s"), S("a", "S")),
			run: func(t *testing.T, tree *Tree, remove func()) {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				remove()
				require.Nil(t, tree.changed, "a tree with no ChangesObserver notes no changes")
				_, err = tree.TickExactlyOnce()
				require.NoError(t, err)
			},
			want: [][]string{{"s IDLE after SUCCESS", "a IDLE after SUCCESS"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, _ := buildTest(t, tc.tree, &eventLog{})
			c := &changes{t: t}
			tc.run(t, tree, tree.Observe(c))
			assert.Equal(t, tc.want, c.got)
		})
	}
}

// TestChangesOfAnObserversOwnTransitionsComeWithTheirBatch: transitions
// an observer makes while a tick's batch is delivered are delivered as a
// batch of their own after it, and their nodes come in that batch's set
// too (the set being delivered shows them as they are at its end).
func TestChangesOfAnObserversOwnTransitionsComeWithTheirBatch(t *testing.T) {
	tree, _ := buildTest(t, N("Sequence", A("name", "s"), S("a", "S"), S("b", "R")), &eventLog{})
	other := NodeOf(tree.Nodes()[2]) // b
	tree.Observe(ObserverFunc(func(tr Transition) {
		if tr.Node.Name() == "a" && tr.To == Success {
			other.SetStatus(Failure) // during the delivery of the tick's batch
		}
	}))
	c := &changes{t: t}
	tree.Observe(c)
	_, err := tree.TickExactlyOnce()
	require.NoError(t, err)
	assert.Equal(t, [][]string{
		{"s RUNNING", "a SUCCESS", "b FAILURE"}, // the tick's, read at its end
		{"b FAILURE"},                           // the observer's own transition's
	}, c.got)
}

// armedHook is an ArmedHook that counts its calls.
type armedHook struct {
	armed bool
	calls int
}

func (h *armedHook) Armed() bool                        { return h.armed }
func (h *armedHook) BeforeTick(*Base) Status            { h.calls++; return Idle }
func (h *armedHook) AfterTick(_ *Base, _ Status) Status { h.calls++; return Idle }

// plainHook is a TickHook that cannot say it has nothing to do.
type plainHook struct{ calls int }

func (h *plainHook) BeforeTick(*Base) Status            { h.calls++; return Idle }
func (h *plainHook) AfterTick(_ *Base, _ Status) Status { h.calls++; return Idle }

// TestTickHooksRunOnlyWhileOneIsArmed: a tree whose hooks all say they
// have nothing armed runs none of them; one armed (asked at the start of
// each tick) runs them all from that tick on; a hook that cannot say runs
// always.
func TestTickHooksRunOnlyWhileOneIsArmed(t *testing.T) {
	const perTick = 6 // s, a, b: before and after each
	for _, tc := range []struct {
		name  string
		hooks func() []TickHook
		// during is called by an observer of the first tick (at the
		// tick's end, before the next).
		during func(hooks []TickHook)
		want   []int // calls of each hook after two ticks
	}{
		{
			name:  "none armed: none runs",
			hooks: func() []TickHook { return []TickHook{&armedHook{}, &armedHook{}} },
			want:  []int{0, 0},
		},
		{
			name:  "one armed: all run",
			hooks: func() []TickHook { return []TickHook{&armedHook{}, &armedHook{armed: true}} },
			want:  []int{2 * perTick, 2 * perTick},
		},
		{
			name:   "armed by an observer of a tick: from the next tick",
			hooks:  func() []TickHook { return []TickHook{&armedHook{}} },
			during: func(hooks []TickHook) { hooks[0].(*armedHook).armed = true },
			want:   []int{perTick},
		},
		{
			name:   "disarmed by an observer of a tick: none runs in the next",
			hooks:  func() []TickHook { return []TickHook{&armedHook{armed: true}} },
			during: func(hooks []TickHook) { hooks[0].(*armedHook).armed = false },
			want:   []int{perTick},
		},
		{
			name:  "beside one that cannot say: all run",
			hooks: func() []TickHook { return []TickHook{&armedHook{}, &plainHook{}} },
			want:  []int{2 * perTick, 2 * perTick},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, _ := buildTest(t, N("Sequence", A("name", "s"), S("a", "S"), S("b", "S")), &eventLog{})
			hooks := tc.hooks()
			for _, h := range hooks {
				defer tree.Hook(h)()
			}
			if tc.during != nil {
				a := NodeOf(tree.Nodes()[1])
				remove := tree.Observe(ObserverFunc(func(tr Transition) {
					if tr.Node == a && tr.To == Success && tree.Ticks() == 1 {
						tc.during(hooks)
					}
				}))
				defer remove()
			}
			for range 2 {
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
			}
			var got []int
			for _, h := range hooks {
				switch h := h.(type) {
				case *armedHook:
					got = append(got, h.calls)
				case *plainHook:
					got = append(got, h.calls)
				}
			}
			assert.Equal(t, tc.want, got, "calls of each hook over two ticks")
		})
	}
}

// onDemand is a changes observer that says at each tick's start whether
// it wants the tick's changes (want, read then), counting the askings.
type onDemand struct {
	changes
	want  []bool // by tick, the last repeated
	asked int
}

func (o *onDemand) WantsChanges() bool {
	o.asked++
	return o.want[min(o.asked, len(o.want))-1]
}

// TestChangesAreNotedOnlyWhileWanted: a ChangesOnDemand that says at a
// tick's start that it wants no changes is given no set for that tick
// nor for what follows it before the next tick (a halt), and the tree
// notes none (no set to note into); one that wants them again gets the
// sets from that tick on; beside a ChangesObserver that cannot say, every
// batch is noted, nobody is asked, and both get the sets.
func TestChangesAreNotedOnlyWhileWanted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		want  []bool
		plain bool // a ChangesObserver that cannot say beside it
		noted []bool
		sets  [][]string
		asked int
	}{
		{
			name:  "wanted: the sets, as a ChangesObserver's",
			want:  []bool{true},
			noted: []bool{true, true},
			sets: [][]string{
				{"s RUNNING", "a SUCCESS", "b RUNNING"},
				{"s IDLE after RUNNING", "a IDLE after SUCCESS", "b IDLE after RUNNING"},
				{"s RUNNING", "a SUCCESS", "b RUNNING"},
			},
			asked: 2,
		},
		{
			name:  "not wanted: no set, not even the halt's, and nothing noted",
			want:  []bool{false},
			noted: []bool{false, false},
			asked: 2,
		},
		{
			name:  "wanted again: the sets from that tick on",
			want:  []bool{false, true},
			noted: []bool{false, true},
			sets:  [][]string{{"s RUNNING", "a SUCCESS", "b RUNNING"}},
			asked: 2,
		},
		{
			name:  "beside a ChangesObserver that cannot say: every set, nobody asked",
			want:  []bool{false},
			plain: true,
			noted: []bool{true, true},
			sets: [][]string{
				{"s RUNNING", "a SUCCESS", "b RUNNING"},
				{"s IDLE after RUNNING", "a IDLE after SUCCESS", "b IDLE after RUNNING"},
				{"s RUNNING", "a SUCCESS", "b RUNNING"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, _ := buildTest(t, N("Sequence", A("name", "s"), S("a", "S"), S("b", "R")), &eventLog{})
			o := &onDemand{changes: changes{t: t}, want: tc.want}
			defer tree.Observe(o)()
			if tc.plain {
				defer tree.Observe(&changes{t: t})()
			}
			var noted []bool
			for range 2 { // a tick and a halt, then a tick
				_, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				noted = append(noted, tree.changed != nil)
				if len(noted) == 1 {
					tree.Halt()
				}
			}
			assert.Equal(t, tc.noted, noted, "the tree notes changes, after each tick")
			assert.Equal(t, tc.sets, o.got, "the sets given")
			assert.Equal(t, tc.asked, o.asked, "times asked")
		})
	}
}
