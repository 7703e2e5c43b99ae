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
			settled := func(i int) {
				want := len(waiting)
				require.Eventually(t, func() bool { return s.srv.Status().Waiting == want }, 20*time.Second, 5*time.Millisecond,
					"step %d: %d goals wait before it", i, want)
			}
			for i, st := range tc.steps {
				settled(i) // the goals before it are counted
				if st.cancelQueued > 0 {
					for range st.cancelQueued {
						waiting[0].cancel()
						waiting = waiting[1:]
					}
					settled(i) // and the cancels too
				}
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
			require.Eventually(t, func() bool { return s.srv.Status().Waiting == want }, 20*time.Second, 5*time.Millisecond, "%d wait at the end", want)
			assert.Equal(t, "Wait", s.srv.Status().Mission, "the running mission is untouched")
			for _, g := range waiting {
				g.cancel()
			}
			running.cancel()
			s.idle(t)
		})
	}
}

// TestABurstOfGoalsLeavesNothingBehind: a burst of goals of every policy,
// sent as fast as the client can, each gets its end (a result or a
// rejection), the server ends idle with no goal counted as waiting, and
// once it is closed no goroutine it started is left.
func TestABurstOfGoalsLeavesNothingBehind(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	s := serve(t, missionsDir(t), nil)
	goals := []struct{ mission, preempt string }{
		{"Brief", "queue"}, {"Wait", "replace"}, {"Brief", "queue"}, {"Wait", "update"},
		{"WaitToo", "reject"}, {"Brief", ""}, {"Nope", "queue"}, {"WaitToo", "update"},
	}
	var sentGoals []*sent
	for i := range 200 {
		if i%32 == 0 {
			// goroslib's publisher drops a message when 64 wait for the
			// subscriber already: a client must not run further ahead
			// of the server than that, or its goals never reach it.
			require.Eventually(t, func() bool {
				st := s.srv.Status()
				return st.Accepted+st.Rejected == uint64(i)
			}, 60*time.Second, time.Millisecond, "the server has taken %d goals", i)
		}
		g := goals[i%len(goals)]
		sentGoals = append(sentGoals, s.send(g.mission, "", g.preempt))
	}
	// Every goal is taken or rejected; those taken run, wait, or have
	// ended (preempted, succeeded) and the cancels end the rest.
	require.Eventually(t, func() bool {
		st := s.srv.Status()
		return st.Accepted+st.Rejected == uint64(len(sentGoals))
	}, 60*time.Second, 10*time.Millisecond, "every goal is taken or rejected")
	for _, g := range sentGoals {
		g.cancel()
	}
	s.idle(t)
	ended := 0
	for _, g := range sentGoals {
		if e := g.wait(t); e.err == nil {
			ended++
			assert.NotEmpty(t, e.outcome(), "an ended goal has a result")
		}
	}
	assert.Positive(t, ended, "goals ended with a result before the cancels")
	st := s.srv.Status()
	assert.Equal(t, "idle", st.State)
	assert.Zero(t, st.Waiting)
	s.srv.mu.Lock()
	assert.Empty(t, s.srv.pending, "no accepted goal is left pending")
	assert.Empty(t, s.srv.queue)
	s.srv.mu.Unlock()
}
