package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// TestActionLeafSuspends: an action leaf held by a pause of its tree
// (runtime.Suspender) against actionlib's Python server. Suspend cancels
// the goal and settles once the server has acknowledged the cancel; the
// leaf stays RUNNING, ticked or not, and sends nothing while suspended;
// Resume sends the same goal again on the leaf's next tick, and a halt
// before that tick sends nothing; the time suspended does not count
// against the goal's timeout.
func TestActionLeafSuspends(t *testing.T) {
	rostest.Require(t, "rospy", "actionlib", "move_base_msgs")
	uri := rostest.StartMaster(t)
	server := rostest.Python(t, uri, "testdata/action_server.py", "move_base")
	server.WaitLine(t, "ready", 30*time.Second)
	c := connect(t, uri, "btrobot")
	deps := Deps{Conn: c}
	action := func(mode, extra string) string {
		return `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <RunAction server_name="move_base" action_type="move_base_msgs/MoveBaseAction" goal_fields="target_pose.header.frame_id=` + mode + `" feedback="{fb}" error_code="{code}" ` + extra + `/>
</BehaviorTree></root>`
	}
	tick := func(t *testing.T, tree *runtime.Tree) runtime.Status {
		t.Helper()
		st, err := tree.TickOnce()
		require.NoError(t, err)
		return st
	}
	// suspend pauses the tree once its goal runs and waits until the
	// server has the cancel.
	// runs waits until the goal runs: its feedback comes. A person pauses
	// or stops a goal that runs, not one sent a millisecond ago (which
	// Python's server may never end: see TestCancelRightAfterTheGoal).
	runs := func(t *testing.T, tree *runtime.Tree) {
		t.Helper()
		tree.Blackboard().Unset("fb")
		require.Eventually(t, func() bool {
			tick(t, tree)
			_, ok := tree.Blackboard().Get("fb")
			return ok
		}, 10*time.Second, 5*time.Millisecond, "feedback")
	}
	suspend := func(t *testing.T, tree *runtime.Tree) {
		t.Helper()
		runs(t, tree)
		tree.Suspend()
		require.Eventually(t, func() bool {
			on, n, settled := tree.Suspended()
			return on && n == 1 && settled
		}, 10*time.Second, 5*time.Millisecond, "the cancel acknowledged")
		server.WaitLine(t, "cancel hold", 5*time.Second)
		server.WaitLine(t, "done hold PREEMPTED", 5*time.Second)
	}
	// marker sends a goal that succeeds at once and waits for the
	// server's word: any goal this client sent before it came first.
	marker := func(t *testing.T) {
		t.Helper()
		tree := buildTree(t, deps, action("succeed", ""))
		for st := runtime.Running; st == runtime.Running; {
			st = tick(t, tree)
			if st == runtime.Running {
				<-tree.WakeC()
			}
		}
		server.WaitLine(t, "goal succeed", 10*time.Second)
	}
	cases := []struct {
		name string
		run  func(t *testing.T, tree *runtime.Tree)
	}{
		{name: "held while ticked; the same goal again on the tick after Resume", run: func(t *testing.T, tree *runtime.Tree) {
			suspend(t, tree)
			for range 3 {
				assert.Equal(t, runtime.Running, tick(t, tree), "ticked while suspended")
			}
			tree.Resume()
			assert.Equal(t, runtime.Running, tick(t, tree))
			server.WaitLine(t, "goal hold", 10*time.Second)
			runs(t, tree)
			tree.Halt()
			server.WaitLine(t, "cancel hold", 5*time.Second)
			server.WaitLine(t, "done hold PREEMPTED", 5*time.Second)
		}},
		{name: "a halt before the tick after Resume sends nothing", run: func(t *testing.T, tree *runtime.Tree) {
			suspend(t, tree)
			tree.Resume()
			tree.Halt()
			marker(t)
		}},
		{name: "a halt while suspended sends nothing", run: func(t *testing.T, tree *runtime.Tree) {
			suspend(t, tree)
			tree.Halt()
			marker(t)
		}},
		{name: "the pause does not count against the timeout", run: func(t *testing.T, tree *runtime.Tree) {
			suspend(t, tree)
			time.Sleep(2 * time.Second) // the pause, longer than the timeout
			tree.Resume()
			assert.Equal(t, runtime.Running, tick(t, tree))
			server.WaitLine(t, "goal hold", 10*time.Second)
			assert.Equal(t, runtime.Running, tick(t, tree), "timed out by the pause")
			st := runtime.Running
			deadline := time.Now().Add(20 * time.Second)
			for st == runtime.Running && time.Now().Before(deadline) {
				select {
				case <-tree.WakeC():
				case <-time.After(20 * time.Millisecond):
				}
				st = tick(t, tree)
			}
			assert.Equal(t, runtime.Failure, st)
			assert.Equal(t, ros.CodeTimeout, bbString(tree, "code"))
			server.WaitLine(t, "cancel hold", 5*time.Second)
			server.WaitLine(t, "done hold PREEMPTED", 5*time.Second)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			extra := ""
			if strings.Contains(tc.name, "timeout") {
				extra = `timeout="1500ms"`
			}
			tree := buildTree(t, deps, action("hold", extra))
			require.Equal(t, runtime.Running, tick(t, tree))
			server.WaitLine(t, "goal hold", 10*time.Second)
			tc.run(t, tree)
			assert.NotContains(t, server.Stdout()[strings.LastIndex(server.Stdout(), "done hold PREEMPTED"):], "goal hold",
				"a goal left after the last cancel")
			tree.Halt()
		})
	}
}
