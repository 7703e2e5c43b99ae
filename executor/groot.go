package executor

import (
	"fmt"
	"sync"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record/groot2"
	"github.com/btrobot/btrobot/runtime"
)

// grootView keeps Groot2 attached across goals (Conf.Groot): one Groot2
// server for the server's life, serving each goal's tree while it runs
// (groot2.Server.SetTree: a new tree UUID, so Groot2 reloads) and, while
// no mission runs, a tree of one node that says so and names the last
// result — not the last mission's tree, stale.
type grootView struct {
	srv   *groot2.Server
	clock runtime.Clock

	mu     sync.Mutex
	detach func() // the running tree's, nil while idle
}

// newGrootView starts the Groot2 server, showing the idle tree.
func newGrootView(host string, port int, clock runtime.Clock) (*grootView, error) {
	idle, doc, err := idleTree("idle", clock)
	if err != nil {
		return nil, err
	}
	srv, err := groot2.New(groot2.Conf{Tree: idle, Document: doc, Host: host, Port: port})
	if err != nil {
		return nil, fmt.Errorf("groot2 on port %d: %w", port, err)
	}
	return &grootView{srv: srv, clock: clock}, nil
}

// idleTree is what Groot2 shows while no mission runs: a tree "Idle"
// whose one node is named by the server's state.
func idleTree(state string, clock runtime.Clock) (*runtime.Tree, *runtime.Document, error) {
	doc := &runtime.Document{Main: "Idle", Trees: []*runtime.TreeSpec{{ID: "Idle", Root: runtime.N("AlwaysSuccess", runtime.A("name", state))}}}
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock})
	return tree, doc, err
}

// show serves a goal's tree and attaches the server to it, before its
// first tick; a tree Groot2 cannot show leaves the idle one (logged).
func (g *grootView) show(sh mission.Shown) error {
	if err := g.srv.SetTree(sh.Tree, sh.Mission.Doc, sh.Registry); err != nil {
		return err
	}
	g.mu.Lock()
	g.detach = g.srv.Attach()
	g.mu.Unlock()
	return nil
}

// idle detaches the ended goal's tree and shows the idle one, naming
// lastResult.
func (g *grootView) idle(lastResult string) error {
	g.mu.Lock()
	if g.detach != nil {
		g.detach()
		g.detach = nil
	}
	g.mu.Unlock()
	tree, doc, err := idleTree(clipName("idle; last: "+lastResult), g.clock)
	if err != nil {
		return err
	}
	return g.srv.SetTree(tree, doc, nil)
}

func (g *grootView) close() { g.srv.Close() }

// clipName bounds a node name made of a result.
func clipName(s string) string {
	const most = 200
	if len(s) > most {
		return s[:most] + "…"
	}
	return s
}

// debuggers is a run's debugger made of several (the server's pause,
// Groot2's, the studio's): each sees every transition and tick; a hook
// that returns a status decides the tick (the first in order); the tree
// is held (the robot still) while any holds it.
type debuggers struct{ list []mission.Debugger } // by pointer: the tree tells hooks apart by ==

func (ds *debuggers) OnTransitions(batch []runtime.Transition) {
	for _, d := range ds.list {
		d.OnTransitions(batch)
	}
}

func (ds *debuggers) BeforeTick(n *runtime.Base) runtime.Status {
	for _, d := range ds.list {
		if st := d.BeforeTick(n); st != runtime.Idle {
			return st
		}
	}
	return runtime.Idle
}

func (ds *debuggers) AfterTick(n *runtime.Base, st runtime.Status) runtime.Status {
	for _, d := range ds.list {
		if got := d.AfterTick(n, st); got != runtime.Idle {
			return got
		}
	}
	return runtime.Idle
}

// Armed says whether any of the debuggers has something to do this tick
// (runtime.ArmedHook): one that cannot say counts as armed.
func (ds *debuggers) Armed() bool {
	for _, d := range ds.list {
		if a, ok := d.(runtime.ArmedHook); !ok || a.Armed() {
			return true
		}
	}
	return false
}

// changesDebuggers is debuggers of which one or more wants the nodes a
// batch changed (runtime.ChangesObserver, the studio's live view): only
// then does the tree note them.
type changesDebuggers struct{ *debuggers }

func (ds changesDebuggers) OnChanged(c *runtime.Changed) {
	for _, d := range ds.list {
		if o, ok := d.(runtime.ChangesObserver); ok {
			o.OnChanged(c)
		}
	}
}

// WantsChanges says whether a member wants this tick's changed nodes
// (runtime.ChangesOnDemand: the studio's live view with no page reading
// wants none); a member that cannot say always does.
func (ds changesDebuggers) WantsChanges() bool {
	for _, d := range ds.list {
		if o, ok := d.(runtime.ChangesOnDemand); ok {
			if o.WantsChanges() {
				return true
			}
		} else if _, ok := d.(runtime.ChangesObserver); ok {
			return true
		}
	}
	return false
}

// debugger returns ds as the run's one debugger: its only member itself,
// or ds, with OnChanged when a member wants it.
func (ds *debuggers) debugger() mission.Debugger {
	if len(ds.list) == 1 {
		return ds.list[0]
	}
	for _, d := range ds.list {
		if _, ok := d.(runtime.ChangesObserver); ok {
			return changesDebuggers{ds}
		}
	}
	return ds
}

func (ds *debuggers) OnTick(t runtime.TickReport) {
	for _, d := range ds.list {
		d.OnTick(t)
	}
}

func (ds *debuggers) Paused() bool {
	for _, d := range ds.list {
		if d.Paused() {
			return true
		}
	}
	return false
}

func (ds *debuggers) Resume() {
	for _, d := range ds.list {
		d.Resume()
	}
}

func (ds *debuggers) Close(r mission.Report) {
	for _, d := range ds.list {
		d.Close(r)
	}
}

// grootHold is Groot2's part of a run's debuggers: its breakpoints hold
// the tree (the server attached its hooks and observer itself).
type grootHold struct{ srv *groot2.Server }

func (grootHold) OnTransitions([]runtime.Transition)                     {}
func (grootHold) BeforeTick(*runtime.Base) runtime.Status                { return runtime.Idle }
func (grootHold) AfterTick(*runtime.Base, runtime.Status) runtime.Status { return runtime.Idle }
func (grootHold) OnTick(runtime.TickReport)                              {}
func (grootHold) Armed() bool                                            { return false }
func (g grootHold) Paused() bool                                         { return g.srv.Paused() }
func (g grootHold) Resume()                                              { g.srv.Resume() }
func (grootHold) Close(mission.Report)                                   {}
