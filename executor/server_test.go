package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

func TestMain(m *testing.M) { rostest.VerifyTestMain(m) }

// TestMissionsAreReadyBeforeTheFirstGoal: what a mission's build sets up
// on the connection (its skills' action clients) is there once the server
// has started or a reload has answered, before any goal, so that a goal
// pays only for its tree.
func TestMissionsAreReadyBeforeTheFirstGoal(t *testing.T) {
	const announce = `<root BTCPP_format="4"><BehaviorTree ID="Announce">
  <Publish topic="/announcements" msg_type="std_msgs/String" fields="data=hello"/>
</BehaviorTree></root>`
	for _, tc := range []struct {
		name          string
		start, reload bool // announce.xml is there at start, or added before a reload
	}{
		{name: "at start", start: true},
		{name: "after a reload", reload: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.xml"), []byte(waitTree), 0o644))
			if tc.start {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "announce.xml"), []byte(announce), 0o644))
			}
			s := serve(t, dir, nil)
			if tc.reload {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "announce.xml"), []byte(announce), 0o644))
				res := s.srv.Reload()
				require.True(t, res.Success, res.Errors)
			}
			pub, err := s.cconn.NodePublishes("/btrobot", "/announcements")
			require.NoError(t, err)
			assert.True(t, pub, "the server's node publishes /announcements before any goal")
		})
	}
}

func copyShipped(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(shipped, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
}

// TestQueueIsBounded: goals wait at most MaxQueue; one beyond is rejected
// saying why, and a place freed (a cancel, a replace) is taken again.
func TestQueueIsBounded(t *testing.T) {
	type step struct {
		mission, preempt string
		cancelQueued     int    // cancel this many of the queued goals first
		want             string // "" accepted, else the rejection's explanation contains it
	}
	queued := func(n int) []step {
		out := make([]step, n)
		for i := range out {
			out[i] = step{mission: "Brief", preempt: "queue"}
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		steps       []step
		wantWaiting int
	}{
		{name: "16 wait, the 17th is rejected",
			steps:       append(queued(MaxQueue), step{mission: "Brief", preempt: "queue", want: "16 goals wait already"}),
			wantWaiting: MaxQueue},
		{name: "a full queue rejects a replace too",
			steps:       append(queued(MaxQueue), step{mission: "WaitToo", preempt: "replace", want: "16 goals wait already"}),
			wantWaiting: MaxQueue},
		{name: "a cancelled goal frees its place",
			steps:       append(queued(MaxQueue), step{mission: "Brief", preempt: "queue", cancelQueued: 1}),
			wantWaiting: MaxQueue},
		{name: "reject while a mission runs",
			steps:       []step{{mission: "Brief", preempt: "reject", want: "busy with Wait (preempt: reject)"}},
			wantWaiting: 0},
		{name: "an unknown mission is rejected before the queue counts it",
			steps:       append(queued(MaxQueue), step{mission: "Wiat", preempt: "queue", want: `unknown mission "Wiat" (did you mean Wait`}),
			wantWaiting: MaxQueue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, missionsDir(t), nil)
			running := s.send("Wait", "", "")
			require.Eventually(t, func() bool { return s.srv.Status().Mission == "Wait" }, 20*time.Second, 5*time.Millisecond)
			var waiting []*sent
			for i, st := range tc.steps {
				for range st.cancelQueued {
					waiting[0].cancel()
					waiting = waiting[1:]
				}
				want := len(waiting)
				require.Eventually(t, func() bool { return s.srv.Status().Waiting == want }, 20*time.Second, 5*time.Millisecond,
					"step %d: %d goals wait before it", i, want)
				g := s.send(st.mission, "", st.preempt)
				if st.want == "" {
					waiting = append(waiting, g)
					continue
				}
				end := g.wait(t)
				require.NoError(t, end.err)
				assert.Equal(t, ros.GoalRejected, end.out.State, "step %d", i)
				res, ok := end.out.Result.(*ros.ExecuteMissionActionResult)
				require.True(t, ok, "step %d: a result", i)
				assert.Equal(t, "REJECTED", res.Outcome)
				assert.Contains(t, strings.Join(res.Explanation, "\n"), st.want, "step %d", i)
			}
			want := tc.wantWaiting
			require.Eventually(t, func() bool { return s.srv.Status().Waiting == want }, 20*time.Second, 5*time.Millisecond)
			assert.Equal(t, "Wait", s.srv.Status().Mission, "the running mission is untouched")
			for _, g := range waiting {
				g.cancel()
			}
			running.cancel()
			s.idle(t)
		})
	}
}
