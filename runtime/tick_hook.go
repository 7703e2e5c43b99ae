package runtime

import (
	"sync"
	"sync/atomic"
)

// TickHook is called around the tick of every node of a tree: a debugger
// pauses or replaces nodes there (Groot2's breakpoints and replace-hooks),
// a recorder learns which node is running when the blackboard changes.
// Attach one with [Tree.Hook]. A tree without hooks pays one nil check per
// node tick.
//
// The calls happen on the tick's goroutine, for every [Execute]: BeforeTick
// after the node's pre-conditions did not decide its status, AfterTick once
// its status is known (after its post-conditions), even when the tick
// failed with an error (then with FAILURE, and its result is ignored).
// Both may return a completed status (SUCCESS or FAILURE) to replace the
// node's, as BehaviorTree.CPP's pre- and post-tick callbacks do; any other
// status leaves the node alone. BeforeTick is skipped for a node whose
// status is already completed, as in BehaviorTree.CPP.
type TickHook interface {
	BeforeTick(n *Base) Status
	AfterTick(n *Base, st Status) Status
}

// Hook attaches h to every node of the tree from now on and returns a
// function that detaches it. Call both between ticks. With several hooks,
// BeforeTick runs in the order they were attached and AfterTick in the
// reverse order; the first completed status returned by a BeforeTick
// replaces the tick.
//
// A hook that is an ArmedHook and says it has nothing armed costs the
// tick nothing: the tree asks each hook at the start of each tick of its
// root, and runs none of them through a tick while none is armed (so a
// hook armed during a tick takes effect at the next one).
func (t *Tree) Hook(h TickHook) (remove func()) {
	t.setHooks(append(t.attached[:len(t.attached):len(t.attached)], h))
	return func() {
		for i, x := range t.attached {
			if x == h {
				t.setHooks(append(t.attached[:i:i], t.attached[i+1:]...))
				return
			}
		}
	}
}

// ArmedHook is a TickHook that can say it has nothing to do for a whole
// tick (a debugger with no breakpoint set and no pause asked for): Armed
// is asked at the start of each tick, on the tick's goroutine, and while
// every hook of the tree says false the tick runs none of them.
type ArmedHook interface {
	TickHook
	Armed() bool
}

// setHooks sets the hooks attached and what Execute runs of them.
func (t *Tree) setHooks(attached []TickHook) {
	t.attached = attached
	t.armable = len(attached) > 0
	for _, h := range attached {
		if _, ok := h.(ArmedHook); !ok {
			t.armable = false
		}
	}
	t.runHooks(!t.armable || t.anyArmed())
}

// armHooks runs the hooks through the coming tick when one is armed.
func (t *Tree) armHooks() { t.runHooks(t.anyArmed()) }

func (t *Tree) anyArmed() bool {
	for _, h := range t.attached {
		if h.(ArmedHook).Armed() {
			return true
		}
	}
	return false
}

// runHooks sets what Execute runs: the hooks attached when armed; none
// when there are none (or none armed) and no one follows the node
// ticking (TrackTicking), so that Execute takes its common path, which
// every node is told (detourHooks).
func (t *Tree) runHooks(armed bool) {
	var hooks []TickHook
	switch {
	case len(t.attached) > 0 && armed:
		hooks = t.attached
	case t.ticking != nil:
		hooks = []TickHook{} // not nil: Execute notes the node ticking
	}
	if (hooks != nil) != (t.hooks != nil) {
		t.setDetour(detourHooks, hooks != nil)
	}
	t.hooks = hooks
}

// TrackTicking makes the tree note which node's tick is under way, for
// Ticking, until the function it returns is called (each call of
// TrackTicking needs its own). Call both between ticks. While it is on,
// every node's tick costs two atomic stores more (and takes Execute's
// hooked path); a recorder uses it to name the node that wrote each
// blackboard change without a tick hook of its own.
func (t *Tree) TrackTicking() (stop func()) {
	if t.tracking == 0 {
		t.ticking = new(atomic.Pointer[Base])
	}
	t.tracking++
	t.setHooks(t.attached)
	var once sync.Once
	return func() {
		once.Do(func() {
			if t.tracking--; t.tracking == 0 {
				t.ticking = nil
			}
			t.setHooks(t.attached)
		})
	}
}

// Ticking returns the innermost node whose tick is under way, nil between
// ticks or when TrackTicking is off. It is safe from any goroutine: a
// blackboard write from a ROS callback during a tick sees the node ticking
// then.
func (t *Tree) Ticking() *Base {
	if p := t.ticking; p != nil {
		return p.Load()
	}
	return nil
}

// executeHooked is Execute with the tree's tick hooks around the tick, and
// the node noted as ticking while TrackTicking is on.
func executeHooked(n Node, b *Base, hooks []TickHook) (Status, error) {
	if p := b.tree.ticking; p != nil {
		prev := p.Swap(b)
		st, err := executeHooks(n, b, hooks)
		p.Store(prev)
		return st, err
	}
	return executeHooks(n, b, hooks)
}

func executeHooks(n Node, b *Base, hooks []TickHook) (st Status, err error) {
	decided := false
	if b.conds() != nil {
		if st, decided, err = b.conds().checkPre(n); err != nil {
			afterTick(b, hooks, Failure)
			return Failure, b.abandon(err)
		}
	}
	if !decided && !b.status.Completed() {
		for _, h := range hooks {
			if s := h.BeforeTick(b); s.Completed() {
				st, decided = s, true
				break
			}
		}
	}
	if !decided {
		if st, err = n.Tick(); err != nil {
			afterTick(b, hooks, Failure)
			return Failure, b.abandon(err)
		}
	}
	if b.conds() != nil && st.Completed() {
		if err := b.conds().checkPost(b, st); err != nil {
			afterTick(b, hooks, Failure)
			return Failure, b.abandon(err)
		}
	}
	if s := afterTick(b, hooks, st); s.Completed() {
		st = s
	}
	return b.commit(st)
}

// afterTick runs the hooks' AfterTick in reverse order and returns the last
// completed status one of them asked for (IDLE when none did).
func afterTick(b *Base, hooks []TickHook, st Status) Status {
	replaced := Idle
	for i := len(hooks) - 1; i >= 0; i-- {
		if s := hooks[i].AfterTick(b, st); s.Completed() {
			replaced, st = s, s
		}
	}
	return replaced
}
