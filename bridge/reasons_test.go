package bridge

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// leafReason is the reason of the last link of the tree's explanation.
func leafReason(t *testing.T, tree *runtime.Tree) runtime.Cause {
	t.Helper()
	chain := tree.Explain()
	require.NotEmpty(t, chain, "no explanation")
	t.Logf("explanation:\n%s", runtime.FormatExplanation(chain))
	return chain[len(chain)-1]
}

// TestRunActionReasons: a RunAction that fails says why, against
// actionlib's Python server and against a server that is not there.
func TestRunActionReasons(t *testing.T) {
	rostest.Require(t, "rospy", "actionlib", "move_base_msgs")
	uri := rostest.StartMaster(t)
	server := rostest.Python(t, uri, "testdata/action_server.py", "move_base")
	server.WaitLine(t, "ready", 30*time.Second)
	c := connect(t, uri, "btrobot")
	p := profile(t, `
rate: 50
actions:
  navigate: {server: move_base, type: move_base_msgs/MoveBaseAction, wait_for_server_timeout: 10s}
`)
	cases := []struct {
		name string
		xml  string
		want string
	}{
		{name: "aborted", want: "/move_base aborted the goal",
			xml: `<RunAction name="go" server_name="navigate" goal_fields="target_pose.header.frame_id=abort"/>`},
		{name: "rejected", want: "/move_base rejected the goal",
			xml: `<RunAction name="go" server_name="navigate" goal_fields="target_pose.header.frame_id=reject"/>`},
		{name: "timed out", want: "action /move_base: the goal's timeout expired (300ms)",
			xml: `<RunAction name="go" server_name="navigate" timeout="300ms" goal_fields="target_pose.header.frame_id=hold"/>`},
		{name: "no server", want: "/nobody_home",
			xml: `<RunAction name="go" server_name="/nobody_home" action_type="move_base_msgs/MoveBaseAction" wait_for_server_timeout="300ms"/>`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="Main">`+tc.xml+`</BehaviorTree></root>`)
			tree.SetExplaining(true)
			st, _ := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
			require.Equal(t, runtime.Failure, st)
			leaf := leafReason(t, tree)
			assert.Equal(t, "Main/go", leaf.Path)
			assert.Contains(t, leaf.Reason, tc.want)
		})
	}
}

// TestTopicConditionReasons: a TopicCondition that fails says whether no
// message came, the newest is too old, or what the script found.
func TestTopicConditionReasons(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connect(t, uri, "btrobot")
	pub := buildTree(t, Deps{Conn: c}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Publish topic="/robot1/battery_state" msg_type="sensor_msgs/BatteryState" fields="percentage={pct}"/>
</BehaviorTree></root>`)
	cond := buildTree(t, Deps{Conn: c}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <TopicCondition name="charged" topic="/robot1/battery_state" msg_type="sensor_msgs/BatteryState" max_age="300ms"
                  script="msg.percentage &gt; threshold"/>
</BehaviorTree></root>`)
	cond.SetExplaining(true)
	require.NoError(t, cond.Blackboard().Set("threshold", 0.15))
	tickCond := func() runtime.Status {
		st, err := cond.TickExactlyOnce()
		require.NoError(t, err)
		return st
	}

	require.Equal(t, runtime.Failure, tickCond())
	assert.Equal(t, "no message on /robot1/battery_state yet", leafReason(t, cond).Reason)

	require.NoError(t, pub.Blackboard().Set("pct", float32(0.12)))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		_, err := pub.TickExactlyOnce()
		require.NoError(ct, err)
		time.Sleep(10 * time.Millisecond)
		tickCond()
		assert.NotEqual(ct, "no message on /robot1/battery_state yet", leafReason(t, cond).Reason)
	}, 10*time.Second, 5*time.Millisecond, "the battery state delivered")
	assert.Equal(t, "msg.percentage > threshold is false (msg.percentage = 0.12, threshold = 0.15) on /robot1/battery_state", leafReason(t, cond).Reason)

	time.Sleep(400 * time.Millisecond)
	require.Equal(t, runtime.Failure, tickCond())
	assert.Regexp(t, `^the newest message on /robot1/battery_state is \d+ms old, max 300ms$`, leafReason(t, cond).Reason)
}
