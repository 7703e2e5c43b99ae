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

// grootHeld is a run's debugger with Groot2 beside its pause: the tree is
// held (the robot still) while either holds it.
type grootHeld struct {
	*holder
	srv *groot2.Server
}

func (h grootHeld) Paused() bool { return h.holder.Paused() || h.srv.Paused() }
func (h grootHeld) Resume()      { h.srv.Resume(); h.holder.Resume() }
