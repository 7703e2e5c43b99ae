package executor

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

// waitTree holds missions that run until they are halted (the catalog's
// missions that need a robot's action servers would end on their own),
// and one that ends at once.
const waitTree = `<root BTCPP_format="4">
  <BehaviorTree ID="Wait"><Sleep msec="3600000"/></BehaviorTree>
  <BehaviorTree ID="WaitToo"><Sleep msec="3600000"/></BehaviorTree>
  <BehaviorTree ID="Brief"><Sleep msec="5"/></BehaviorTree>
</root>`

// missionsDir is a copy of the shipped missions with wait.xml beside them.
func missionsDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(shipped)
	require.NoError(t, err)
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".xml" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(shipped, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.xml"), []byte(waitTree), 0o644))
	return dir
}

// served is a mission server on the embedded master, with a client
// connection beside it.
type served struct {
	srv    *Server
	conn   *ros.Conn // the server's
	client *ros.ActionClient
	cconn  *ros.Conn
}

// serve starts a server of the missions of dir with the sim profile on a
// master of its own; everything is closed when t ends.
func serve(t testing.TB, dir string, mod func(*Conf)) *served {
	t.Helper()
	uri := rostest.StartMaster(t)
	conn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "btrobot", MasterCheck: -1})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	cat, err := LoadCatalog(CatalogConf{Dir: dir, Profile: "../robots/sim.yaml", Places: "../worlds/office"})
	require.NoError(t, err)
	c := Conf{Conn: conn, Catalog: cat}
	if mod != nil {
		mod(&c)
	}
	srv, err := New(c)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	cconn, client := executeClient(t, ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "client", MasterCheck: -1})
	return &served{srv: srv, conn: conn, client: client, cconn: cconn}
}

// executeClient joins the graph as conf says with an action client of the
// server's /btrobot/execute, connected to the server.
func executeClient(t testing.TB, conf ros.Conf) (*ros.Conn, *ros.ActionClient) {
	t.Helper()
	cconn, err := ros.Connect(conf)
	require.NoError(t, err)
	t.Cleanup(func() { cconn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := DialExecute(ctx, cconn, "/btrobot/execute")
	require.NoError(t, err)
	return cconn, client
}

// sent is a goal on its way: its outcome arrives on done.
type sent struct {
	cancel context.CancelFunc
	done   chan goalEnd
}

type goalEnd struct {
	out ros.GoalOutcome
	err error
}

// send sends a goal without waiting for its outcome.
func (s *served) send(mission, payload, preempt string) *sent {
	ctx, cancel := context.WithCancel(context.Background())
	g := &sent{cancel: cancel, done: make(chan goalEnd, 1)}
	go func() {
		out, err := s.client.Run(ctx, &ros.ExecuteMissionActionGoal{Mission: mission, Payload: payload, Preempt: preempt}, ros.GoalConf{})
		g.done <- goalEnd{out, err}
	}()
	return g
}

// wait returns the goal's outcome (within a generous bound).
func (g *sent) wait(t testing.TB) goalEnd {
	t.Helper()
	select {
	case e := <-g.done:
		return e
	case <-time.After(30 * time.Second):
		buf := make([]byte, 1<<20)
		require.FailNow(t, "no outcome within 30 s", "%s", buf[:goruntime.Stack(buf, true)])
		return goalEnd{}
	}
}

// outcome is the result's outcome of an ended goal.
func (e goalEnd) outcome() string {
	if r, ok := e.out.Result.(*ros.ExecuteMissionActionResult); ok {
		return r.Outcome
	}
	return ""
}

// idle waits until no mission runs and no goal waits.
func (s *served) idle(t testing.TB) {
	t.Helper()
	require.Eventually(t, func() bool {
		st := s.srv.Status()
		return st.Mission == "" && st.Waiting == 0
	}, 30*time.Second, time.Millisecond, "the server is idle")
}
