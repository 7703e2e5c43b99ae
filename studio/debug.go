package studio

import (
	"github.com/btrobot/btrobot/runtime"
)

// Hold is where a debugger holds a tree: the node and whether before or
// after its tick ("before", "after").
type Hold struct {
	UID uint32 `json:"uid"`
	At  string `json:"at"`
}

// debugger is the studio's side of a run's breakpoints: the page's
// actions on a runtime.Breakpoints, the table and tick hook the Groot2
// server uses too. Each node has one hook before its tick and one after:
// a breakpoint before a node and a forced result (a Replace before it)
// take the same place, and the last one set wins.
type debugger struct {
	bp *runtime.Breakpoints
}

func newDebugger(onPause func(paused bool)) *debugger {
	return &debugger{bp: runtime.NewBreakpoints(runtime.BreakpointsConf{
		OnPause: func(_ *runtime.Base, _ runtime.HookAt, paused bool) { onPause(paused) },
	})}
}

func hookAt(at string) runtime.HookAt {
	if at == "after" {
		return runtime.After
	}
	return runtime.Before
}

// setBreakpoint sets or clears a breakpoint before or after uid.
func (d *debugger) setBreakpoint(uid uint32, at string, on bool) {
	if on {
		d.bp.Set(runtime.Hook{UID: uid, At: hookAt(at), Mode: runtime.Breakpoint, Status: runtime.Skipped, Enabled: true})
		return
	}
	if h, ok := d.bp.Get(uid, hookAt(at)); ok && h.Mode == runtime.Breakpoint {
		d.bp.Remove(uid, hookAt(at))
	}
}

// setForce makes uid return st without being ticked (IDLE: tick it again).
func (d *debugger) setForce(uid uint32, st runtime.Status) {
	if st.Completed() {
		d.bp.Set(runtime.Hook{UID: uid, At: runtime.Before, Mode: runtime.Replace, Status: st, Enabled: true})
		return
	}
	if h, ok := d.bp.Get(uid, runtime.Before); ok && h.Mode == runtime.Replace {
		d.bp.Remove(uid, runtime.Before)
	}
}

// debugState is what the page shows of the debugger.
type debugState struct {
	Held   *Hold             `json:"held,omitempty"`
	Before []uint32          `json:"before"`
	After  []uint32          `json:"after"`
	Force  map[uint32]string `json:"force"`
}

func (d *debugger) state() debugState {
	s := debugState{Before: []uint32{}, After: []uint32{}, Force: map[uint32]string{}}
	for _, h := range d.bp.List() {
		switch {
		case h.Mode == runtime.Replace:
			s.Force[h.UID] = h.Status.String()
		case h.At == runtime.Before:
			s.Before = append(s.Before, h.UID)
		default:
			s.After = append(s.After, h.UID)
		}
	}
	if n, at, ok := d.bp.Held(); ok {
		s.Held = &Hold{UID: n.UID(), At: at.String()}
	}
	return s
}
