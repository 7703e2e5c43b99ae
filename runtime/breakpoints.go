package runtime

import (
	"sort"
	"sync"
	"sync/atomic"
)

// HookAt says where a hook acts: before a node's tick or after it.
type HookAt uint8

const (
	Before HookAt = iota
	After
)

func (a HookAt) String() string {
	if a == After {
		return "after"
	}
	return "before"
}

// HookMode is what a hook does when the tick reaches it.
type HookMode uint8

const (
	// Breakpoint holds the tick (the whole tree stands still) until the
	// hook is unlocked, disabled, removed or turned into a Replace, or the
	// Breakpoints are closed.
	Breakpoint HookMode = iota
	// Replace returns Status at once.
	Replace
)

// Hook is a breakpoint or a replace-hook on one node: Groot2's hooks, and
// the studio's breakpoints and forced results.
type Hook struct {
	UID  uint32
	At   HookAt
	Mode HookMode
	// Status, when SUCCESS or FAILURE, replaces the node's: before its
	// tick the node is not ticked, after it its result is replaced. Any
	// other status leaves the node alone. An unlock may set it.
	Status  Status
	Once    bool // removed once it has acted
	Enabled bool
}

// BreakpointsConf configures NewBreakpoints.
type BreakpointsConf struct {
	// OnReach, when set, is called on the tick's goroutine when an enabled
	// hook is reached, before a breakpoint holds (Groot2 is told so).
	OnReach func(Hook)
	// OnPause, when set, is called on the tick's goroutine when the tree
	// is held (paused true, before the tick waits; the tree's action
	// leaves are suspended by then, see holdLocked) and when it goes on.
	// The loop's owner stops the robot (bridge.Run does, seeing Paused) and
	// keeps its watchdog quiet while Paused.
	OnPause func(n *Base, at HookAt, paused bool)
}

// Breakpoints is a table of hooks on a tree's nodes and the TickHook that
// runs them; attach it with Tree.Hook. A held tick waits on the tick's
// goroutine, so the tree stands still as in BehaviorTree.CPP; everything
// else (setting, unlocking, pausing) is safe from any goroutine. With no
// hook and no pause asked for, the tick pays one atomic load per node.
type Breakpoints struct {
	conf BreakpointsConf

	mu        sync.Mutex
	cond      *sync.Cond
	hooks     [2]map[uint32]*heldHook // by HookAt
	pauseNext bool                    // hold before the root's next tick
	held      *Base                   // the node the tick waits at
	heldAt    HookAt
	gen       uint64 // bumped by Continue: a held tick goes on
	closed    bool

	armed  atomic.Int32 // hooks + pauseNext
	paused atomic.Int32
}

type heldHook struct {
	Hook
	ready bool // unlocked: the held tick goes on
}

// NewBreakpoints returns an empty table.
func NewBreakpoints(conf BreakpointsConf) *Breakpoints {
	b := &Breakpoints{conf: conf, hooks: [2]map[uint32]*heldHook{{}, {}}}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *Breakpoints) rearm() {
	n := len(b.hooks[Before]) + len(b.hooks[After])
	if b.pauseNext {
		n++
	}
	b.armed.Store(int32(n))
}

// Set adds a hook, or updates the one at the same node and place. A held
// breakpoint updated into a Replace, or disabled, lets its tick go.
func (b *Breakpoints) Set(h Hook) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if old := b.hooks[h.At][h.UID]; old != nil {
		wasBreakpoint := old.Mode == Breakpoint
		old.Hook = h
		if wasBreakpoint && (h.Mode != Breakpoint || !h.Enabled) {
			old.ready = true
			b.cond.Broadcast()
		}
	} else {
		b.hooks[h.At][h.UID] = &heldHook{Hook: h}
	}
	b.rearm()
}

// Get returns the hook at a node and place.
func (b *Breakpoints) Get(uid uint32, at HookAt) (Hook, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.hooks[at][uid]; h != nil {
		return h.Hook, true
	}
	return Hook{}, false
}

// Unlock lets a held breakpoint go with the status its node should
// return (a status that is not SUCCESS or FAILURE: tick it as usual),
// removing the hook after when remove is set. It reports whether the
// hook exists.
func (b *Breakpoints) Unlock(uid uint32, at HookAt, st Status, remove bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hooks[at][uid]
	if h == nil {
		return false
	}
	h.Status = st
	h.Once = h.Once || remove
	if h.Mode == Breakpoint {
		h.ready = true
		b.cond.Broadcast()
	}
	return true
}

// Remove removes a hook (a tick it holds goes on); it reports whether
// there was one.
func (b *Breakpoints) Remove(uid uint32, at HookAt) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hooks[at][uid]
	if h == nil {
		return false
	}
	h.Enabled = false
	delete(b.hooks[at], uid)
	b.rearm()
	b.cond.Broadcast()
	return true
}

// RemoveAll removes every hook and the pause: a held tick goes on.
func (b *Breakpoints) RemoveAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for at := range b.hooks {
		for uid, h := range b.hooks[at] {
			h.Enabled = false
			delete(b.hooks[at], uid)
		}
	}
	b.pauseNext = false
	b.gen++
	b.rearm()
	b.cond.Broadcast()
}

// EnableAll enables or disables every hook (a held breakpoint disabled
// lets its tick go).
func (b *Breakpoints) EnableAll(enable bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for at := range b.hooks {
		for _, h := range b.hooks[at] {
			h.Enabled = enable
		}
	}
	b.cond.Broadcast()
}

// List returns the hooks, those before a tick first, each by UID.
func (b *Breakpoints) List() []Hook {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Hook
	for at := range b.hooks {
		uids := make([]uint32, 0, len(b.hooks[at]))
		for uid := range b.hooks[at] {
			uids = append(uids, uid)
		}
		sort.Slice(uids, func(i, j int) bool { return uids[i] < uids[j] })
		for _, uid := range uids {
			out = append(out, b.hooks[at][uid].Hook)
		}
	}
	return out
}

// Pause holds the tree before its root's next tick.
func (b *Breakpoints) Pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pauseNext = true
	b.rearm()
}

// Continue lets a held tick go, whatever holds it (the hook stays); with
// step, the tree is held again before its root's next tick, so that the
// rest of one tick runs.
func (b *Breakpoints) Continue(step bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pauseNext = step
	b.gen++
	b.rearm()
	b.cond.Broadcast()
}

// Held returns the node the tick waits at, and where.
func (b *Breakpoints) Held() (n *Base, at HookAt, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, b.heldAt, b.held != nil
}

// Armed reports whether a hook is set or a pause asked for
// (runtime.ArmedHook): while not, the tree runs no tick hook, and a hook
// set during a tick takes effect at the next one.
func (b *Breakpoints) Armed() bool { return b.armed.Load() > 0 }

// Paused reports whether a tick is held now.
func (b *Breakpoints) Paused() bool { return b.paused.Load() > 0 }

// Close lets a held tick go and holds no more: the run ends.
func (b *Breakpoints) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.cond.Broadcast()
}

// BeforeTick holds the tick before the root when a pause asked for it,
// then runs n's hook before its tick (TickHook).
func (b *Breakpoints) BeforeTick(n *Base) Status {
	if b.armed.Load() == 0 {
		return Idle
	}
	b.mu.Lock()
	held := false
	if b.pauseNext && n.tree != nil && n.tree.root != nil && n.tree.root.base() == n && !b.closed {
		b.pauseNext = false
		b.rearm()
		gen := b.gen
		b.holdLocked(n, Before, func() bool { return b.gen != gen || b.closed })
		held = true
	}
	b.mu.Unlock()
	return b.run(n, Before, held)
}

// AfterTick runs n's hook after its tick (TickHook).
func (b *Breakpoints) AfterTick(n *Base, _ Status) Status {
	if b.armed.Load() == 0 {
		return Idle
	}
	return b.run(n, After, false)
}

// run is BT.CPP's: say the hook was reached; a breakpoint then waits to
// be unlocked; the hook's status replaces the node's when it is SUCCESS
// or FAILURE. A node just held by a pause is not held again by its own
// breakpoint.
func (b *Breakpoints) run(n *Base, at HookAt, justHeld bool) Status {
	b.mu.Lock()
	h := b.hooks[at][n.uid]
	if h == nil || !h.Enabled || b.closed {
		b.mu.Unlock()
		return Skipped
	}
	reached := h.Hook
	b.mu.Unlock()
	if b.conf.OnReach != nil {
		b.conf.OnReach(reached)
	}
	b.mu.Lock()
	if h.Mode == Breakpoint && h.Enabled && !h.ready && !b.closed && !justHeld {
		gen := b.gen
		b.holdLocked(n, at, func() bool {
			return h.ready || !h.Enabled || b.closed || h.Mode != Breakpoint || b.gen != gen
		})
	}
	h.ready = false
	if !h.Enabled || b.closed {
		b.mu.Unlock()
		return Skipped
	}
	st := h.Status
	if h.Once {
		h.Enabled = false
		if b.hooks[at][n.uid] == h {
			delete(b.hooks[at], n.uid)
			b.rearm()
		}
	}
	b.mu.Unlock()
	return st
}

// holdLocked waits, with mu held, until done says the tick may go on.
//
// A held tree holds its robot: the tree's RUNNING Suspenders (the action
// leaves: navigation, docking) are suspended before Paused turns true, so
// a goal in flight is cancelled and none leaves while held, and the loop's
// owner, seeing Paused, sends the zero velocity. They resume when the tree
// goes on freely; not after a step (the tree is held again at its next
// tick: its leaves are ticked suspended) nor when the Breakpoints close
// (the run ends: the halt cancels the goals, nothing is sent again).
//
// Held says the tree is held from the moment Paused does, not while the
// observers are shown the tick or the leaves suspended: a page drawing the
// hold from what the observers tell it must not show the robot held
// before it is.
func (b *Breakpoints) holdLocked(n *Base, at HookAt, done func() bool) {
	b.mu.Unlock()
	if n.tree != nil {
		n.tree.Deliver() // the observers show the tick as far as it went
		n.tree.Suspend()
	}
	b.mu.Lock()
	b.held, b.heldAt = n, at
	b.paused.Add(1)
	b.mu.Unlock()
	if b.conf.OnPause != nil {
		b.conf.OnPause(n, at, true)
	}
	b.mu.Lock()
	for !done() {
		b.cond.Wait()
	}
	b.held = nil
	resume := !b.closed && !b.pauseNext
	b.mu.Unlock()
	if resume && n.tree != nil {
		n.tree.Resume()
	}
	b.paused.Add(-1)
	if b.conf.OnPause != nil {
		b.conf.OnPause(n, at, false)
	}
	b.mu.Lock()
}
