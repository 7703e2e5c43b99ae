package executor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/inproc"
)

// serveInproc is a server of waitTree's missions on the in-process graph
// (no robot profile), its Conf.Changed counted.
func serveInproc(t *testing.T) (*served, *atomic.Int64) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.xml"), []byte(waitTree), 0o644))
	cat, err := LoadCatalog(CatalogConf{Dir: dir})
	require.NoError(t, err)
	graph := inproc.NewGraph()
	conn, err := ros.Connect(ros.Conf{Graph: graph, Name: "btrobot"})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	var changes atomic.Int64
	srv, err := New(Conf{Conn: conn, Catalog: cat, Changed: func() { changes.Add(1) }})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	cconn, client := executeClient(t, ros.Conf{Graph: graph, Name: "client"})
	return &served{srv: srv, conn: conn, client: client, cconn: cconn}, &changes
}

// TestServerView: what View shows of the server — its state, the goal
// that runs, the queue, the goals' ends newest first — and its bounds: the
// history keeps the last MaxHistory goals, a payload its first
// MaxShownPayload bytes; Cancel ends a running or a waiting goal.
func TestServerView(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s *served, changes *atomic.Int64)
	}{
		{name: "preemption, queue and rejection, newest first", run: func(t *testing.T, s *served, changes *atomic.Int64) {
			v := s.srv.View()
			assert.Equal(t, "idle", v.State)
			assert.Empty(t, v.History)
			before := changes.Load()
			first := s.send("Wait", "", "")
			require.Eventually(t, func() bool { return s.srv.View().State == "running" }, 20*time.Second, time.Millisecond)
			assert.Greater(t, changes.Load(), before, "Changed told of the start")
			since := s.srv.View().Since
			queued := s.send("Brief", "", "queue")
			require.Eventually(t, func() bool { return len(s.srv.View().Queue) == 1 }, 20*time.Second, time.Millisecond)
			second := s.send("WaitToo", "", "replace")
			assert.Equal(t, OutcomePreempted, first.wait(t).outcome())
			require.Eventually(t, func() bool { return s.srv.View().Mission == "WaitToo" }, 20*time.Second, time.Millisecond)
			bad := s.send("Wiat", "", "")
			bad.wait(t)
			v = s.srv.View()
			assert.Equal(t, "running", v.State)
			assert.True(t, v.Since.After(since), "since the second goal started")
			require.NotNil(t, v.Running)
			assert.Equal(t, uint64(3), v.Running.Goal)
			require.Len(t, v.Queue, 1)
			assert.Equal(t, Queue, v.Queue[0].Preempt)
			require.Len(t, v.History, 2)
			assert.Equal(t, OutcomeRejected, v.History[0].Outcome)
			assert.Contains(t, v.History[0].Explanation[0], "did you mean Wait")
			assert.Equal(t, OutcomePreempted, v.History[1].Outcome)
			assert.Contains(t, v.History[1].Explanation[0], "preempted by WaitToo")
			assert.Positive(t, v.History[1].Duration)

			msg, err := s.srv.Cancel(2, "cancelled in a test")
			require.NoError(t, err)
			assert.Contains(t, msg, "before it started")
			assert.Equal(t, OutcomePreempted, queued.wait(t).outcome())
			_, err = s.srv.Cancel(3, "cancelled in a test")
			require.NoError(t, err)
			assert.Equal(t, OutcomePreempted, second.wait(t).outcome())
			_, err = s.srv.Cancel(3, "again")
			require.ErrorIs(t, err, ErrNoSuchGoal)
			s.idle(t)
			v = s.srv.View()
			assert.Equal(t, "idle", v.State)
			require.Len(t, v.History, 4)
			assert.Equal(t, []uint64{3, 2}, []uint64{v.History[0].Goal, v.History[1].Goal})
			assert.Contains(t, v.History[0].Explanation[0], "cancelled in a test")
			assert.Zero(t, v.History[1].Duration, "a goal that never ran")
		}},
		{name: "bounded: the last MaxHistory goals, payloads cut", run: func(t *testing.T, s *served, _ *atomic.Int64) {
			big := "key: " + strings.Repeat("x", 10_000)
			for i := range MaxHistory + 5 {
				s.send(fmt.Sprintf("Nope%d", i), big, "").wait(t)
			}
			v := s.srv.View()
			require.Equal(t, MaxHistory, len(v.History), "the history kept")
			assert.Equal(t, fmt.Sprintf("Nope%d", MaxHistory+4), v.History[0].Mission, "the newest first")
			assert.Equal(t, "Nope5", v.History[MaxHistory-1].Mission, "the oldest dropped")
			assert.Equal(t, len(big), v.History[0].PayloadBytes)
			assert.LessOrEqual(t, len(v.History[0].Payload), MaxShownPayload+len("…"))
			assert.True(t, strings.HasPrefix(big, strings.TrimSuffix(v.History[0].Payload, "…")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, changes := serveInproc(t)
			tc.run(t, s, changes)
		})
	}
}

// BenchmarkServerView: View of a full history (MaxHistory goals, each
// payload at MaxShownPayload) and its JSON, as the studio sends it at
// most ten times a second.
func BenchmarkServerView(b *testing.B) {
	s := &Server{conf: Conf{Preempt: Replace}, catalog: &Catalog{}, stateKey: "idle  0", stateSince: time.Now()}
	for i := range MaxHistory {
		p, n := shownPayload("key: " + strings.Repeat("x", 10_000))
		s.history = append(s.history, Ended{Queued: Queued{Goal: uint64(i + 1), Mission: "Patrol", Preempt: Replace, Payload: p, PayloadBytes: n},
			Outcome: OutcomePreempted, Explanation: []string{"preempted by Dock; robot stopped", "Patrol/patrol/go (NavigateTo) HALTED"}})
	}
	var size int
	for b.Loop() {
		out, err := json.Marshal(s.View())
		if err != nil {
			require.NoError(b, err) // guarded: the loop pays for the check only on failure
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes/view")
}
