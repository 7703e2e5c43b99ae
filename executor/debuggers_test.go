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

// onDemandDebugger wants the changed nodes only while wants, as the
// studio's live view does only while a page reads.
type onDemandDebugger struct {
	changesDebugger
	wants bool
}

func (d *onDemandDebugger) WantsChanges() bool { return d.wants }

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
		wants   bool // the tick's changed nodes are wanted (runtime.ChangesOnDemand)
	}{
		{"the server's holder alone, not paused", []mission.Debugger{idle}, false, false, false},
		{"the holder and Groot2, neither asked anything", []mission.Debugger{idle, grootHold{}}, false, false, false},
		{"the holder paused", []mission.Debugger{paused, grootHold{}}, true, false, false},
		{"a debugger that cannot say", []mission.Debugger{idle, plainDebugger{}}, true, false, false},
		{"a view that always wants the changes", []mission.Debugger{idle, cd}, false, true, true},
		{"the studio's live view, no page reading", []mission.Debugger{idle, &onDemandDebugger{changesDebugger: changesDebugger{}}}, false, true, false},
		{"the studio's live view, a page reading", []mission.Debugger{idle, &onDemandDebugger{wants: true}}, false, true, true},
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
				od, ok := d.(runtime.ChangesOnDemand)
				require.True(t, ok, "%T cannot say whether it wants the changes", d)
				assert.Equal(t, tc.wants, od.WantsChanges())
				var got func() int
				switch m := tc.list[1].(type) {
				case *changesDebugger:
					got = func() int { return m.got }
				case *onDemandDebugger:
					got = func() int { return m.got }
				}
				before := got()
				co.OnChanged(&runtime.Changed{})
				assert.Equal(t, before+1, got(), "the member's OnChanged was called")
			}
		})
	}
}
