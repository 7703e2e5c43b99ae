package studio

import (
	"sync"
	"sync/atomic"

	"github.com/btrobot/btrobot/runtime"
)

// Hold is where a debugger holds a tree: the node and whether before or
// after its tick ("before", "after"); the zero Hold holds nothing.
type Hold struct {
	UID uint32 `json:"uid"`
	At  string `json:"at"`
}

// debugger holds a tree's tick where the page asked (a runtime.TickHook,
// on the tick's goroutine): at a breakpoint before or after a node, or
// before the root's next tick (pause, step). A forced result replaces a
// node's tick. The tick waits on a condition variable until the page
// resumes or steps, or the run ends (release).
type debugger struct {
	root uint32

	mu       sync.Mutex
	cond     *sync.Cond
	before   map[uint32]bool
	after    map[uint32]bool
	force    map[uint32]runtime.Status
	pauseNow bool   // hold before the root's next tick
	held     Hold   // where the tick waits now
	go_      uint64 // bumped to let a held tick go
	released bool   // the run ends: hold nothing more

	armed   atomic.Int32 // breakpoints + forces + pauseNow: 0 lets the hook return at once
	paused  atomic.Bool
	onPause func(Hold, bool) // on the tick's goroutine, outside mu
}

func newDebugger(root uint32, onPause func(Hold, bool)) *debugger {
	d := &debugger{root: root, before: map[uint32]bool{}, after: map[uint32]bool{}, force: map[uint32]runtime.Status{}, onPause: onPause}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// rearm recounts what the hook must look at; under mu.
func (d *debugger) rearm() {
	n := len(d.before) + len(d.after) + len(d.force)
	if d.pauseNow {
		n++
	}
	d.armed.Store(int32(n))
}

// BeforeTick holds the tick at a breakpoint before n (or before the root
// when a pause or a step asked for it), then replaces n's tick by its
// forced result, if one is set.
func (d *debugger) BeforeTick(n *runtime.Base) runtime.Status {
	if d.armed.Load() == 0 {
		return runtime.Idle
	}
	uid := n.UID()
	d.mu.Lock()
	if !d.released && (d.before[uid] || uid == d.root && d.pauseNow) {
		if uid == d.root {
			d.pauseNow = false
			d.rearm()
		}
		d.hold(Hold{UID: uid, At: "before"})
	}
	st, ok := d.force[uid]
	d.mu.Unlock()
	if ok {
		return st
	}
	return runtime.Idle
}

// AfterTick holds the tick at a breakpoint after n.
func (d *debugger) AfterTick(n *runtime.Base, _ runtime.Status) runtime.Status {
	if d.armed.Load() == 0 {
		return runtime.Idle
	}
	uid := n.UID()
	d.mu.Lock()
	if !d.released && d.after[uid] {
		d.hold(Hold{UID: uid, At: "after"})
	}
	d.mu.Unlock()
	return runtime.Idle
}

// hold waits, with mu held, until the page lets the tick go.
func (d *debugger) hold(h Hold) {
	d.held = h
	gen := d.go_
	d.paused.Store(true)
	d.mu.Unlock()
	if d.onPause != nil {
		d.onPause(h, true)
	}
	d.mu.Lock()
	for d.go_ == gen && !d.released {
		d.cond.Wait()
	}
	d.held = Hold{}
	d.paused.Store(false)
	d.mu.Unlock()
	if d.onPause != nil {
		d.onPause(h, false)
	}
	d.mu.Lock()
}

// setBreakpoint sets or clears a breakpoint before or after uid.
func (d *debugger) setBreakpoint(uid uint32, at string, on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.before
	if at == "after" {
		m = d.after
	}
	if on {
		m[uid] = true
	} else {
		delete(m, uid)
	}
	d.rearm()
}

// setForce makes uid return st without being ticked (IDLE: tick it again).
func (d *debugger) setForce(uid uint32, st runtime.Status) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st.Completed() {
		d.force[uid] = st
	} else {
		delete(d.force, uid)
	}
	d.rearm()
}

// pause holds the tree before the root's next tick.
func (d *debugger) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pauseNow = true
	d.rearm()
}

// resume lets a held tick go; step lets it go and holds the tree again
// before the root's next tick, so that one tick (the rest of the held
// one) runs.
func (d *debugger) resume(step bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pauseNow = step
	d.rearm()
	d.go_++
	d.cond.Broadcast()
}

// release lets a held tick go and holds nothing more: the run ends.
func (d *debugger) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.released = true
	d.cond.Broadcast()
}

// debugState is what the page shows of the debugger.
type debugState struct {
	Held   *Hold             `json:"held,omitempty"`
	Before []uint32          `json:"before"`
	After  []uint32          `json:"after"`
	Force  map[uint32]string `json:"force"`
}

func (d *debugger) state() debugState {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := debugState{Before: keys(d.before), After: keys(d.after), Force: map[uint32]string{}}
	if d.held.UID != 0 {
		h := d.held
		s.Held = &h
	}
	for uid, st := range d.force {
		s.Force[uid] = st.String()
	}
	return s
}

func keys(m map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortUIDs(out)
	return out
}
