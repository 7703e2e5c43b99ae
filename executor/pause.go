package executor

import (
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// holder is a run's pause: a mission.Debugger whose only hold is the one
// ~pause asks for. A held tree keeps its state (control nodes keep their
// place); runtime.Breakpoints suspends its action leaves (their goals
// cancelled, sent again on resume) and bridge.Run, seeing Paused, holds the
// robot still with a zero velocity whose delivery it checks.
type holder struct{ bp *runtime.Breakpoints }

func newHolder(paused bool) *holder {
	h := &holder{bp: runtime.NewBreakpoints(runtime.BreakpointsConf{})}
	if paused {
		h.bp.Pause()
	}
	return h
}

func (h *holder) OnTransitions([]runtime.Transition)        {}
func (h *holder) BeforeTick(n *runtime.Base) runtime.Status { return h.bp.BeforeTick(n) }
func (h *holder) AfterTick(n *runtime.Base, st runtime.Status) runtime.Status {
	return h.bp.AfterTick(n, st)
}
func (h *holder) OnTick(runtime.TickReport) {}
func (h *holder) Armed() bool               { return h.bp.Armed() }
func (h *holder) Paused() bool              { return h.bp.Paused() }
func (h *holder) Resume()                   { h.bp.Close() }
func (h *holder) Close(mission.Report)      { h.bp.Close() }

func (h *holder) pause()   { h.bp.Pause() }
func (h *holder) carryOn() { h.bp.Continue(false) }
