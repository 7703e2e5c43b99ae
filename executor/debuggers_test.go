package executor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// plainDebugger is a mission.Debugger that cannot say whether it is armed.
type plainDebugger struct{}

func (plainDebugger) OnTransitions([]runtime.Transition)                     {}
func (plainDebugger) BeforeTick(*runtime.Base) runtime.Status                { return runtime.Idle }
func (plainDebugger) AfterTick(*runtime.Base, runtime.Status) runtime.Status { return runtime.Idle }
func (plainDebugger) OnTick(runtime.TickReport)                              {}
func (plainDebugger) Paused() bool                                           { return false }
func (plainDebugger) Resume()                                                {}
func (plainDebugger) Close(mission.Report)                                   {}

// changesDebugger also wants the nodes a batch changed, as the studio's
// live view does.
type changesDebugger struct {
	grootHold
	got int
}

func (changesDebugger) Paused() bool                    { return false }
func (changesDebugger) Resume()                         {}
func (d *changesDebugger) OnChanged(c *runtime.Changed) { d.got++ }

// TestDebuggersAreArmedOnlyWhenOneIs: the run's combined debugger lets the
// tree skip its hooks while no member has anything to do (no pause asked,
// no breakpoint), counts a member that cannot say as armed, and passes the
// changed nodes on only when a member wants them.
func TestDebuggersAreArmedOnlyWhenOneIs(t *testing.T) {
	paused := newHolder(true)
	idle := newHolder(false)
	cd := &changesDebugger{}
	cases := []struct {
		name    string
		list    []mission.Debugger
		armed   bool
		changes bool
	}{
		{"the server's holder alone, not paused", []mission.Debugger{idle}, false, false},
		{"the holder and Groot2, neither asked anything", []mission.Debugger{idle, grootHold{}}, false, false},
		{"the holder paused", []mission.Debugger{paused, grootHold{}}, true, false},
		{"a debugger that cannot say", []mission.Debugger{idle, plainDebugger{}}, true, false},
		{"the studio's live view", []mission.Debugger{idle, cd}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := (&debuggers{list: tc.list}).debugger()
			a, ok := d.(runtime.ArmedHook)
			require.True(t, ok, "%T is not an ArmedHook", d)
			assert.Equal(t, tc.armed, a.Armed())
			co, ok := d.(runtime.ChangesObserver)
			assert.Equal(t, tc.changes, ok, "%T wants the changed nodes", d)
			if ok {
				before := cd.got
				co.OnChanged(&runtime.Changed{})
				assert.Equal(t, before+1, cd.got, "the member's OnChanged was called")
			}
		})
	}
}
