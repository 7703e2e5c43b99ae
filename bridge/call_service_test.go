package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// TestRospyServers: the leaves that call rospy's servers, against both
// masters, with one rospy node serving both the action and the service (a
// rospy start costs ~0.4 core-s, a rosmaster's more; neither subtest needs
// a fresh one).
func TestRospyServers(t *testing.T) {
	rostest.Require(t, "rospy", "nav_msgs", "actionlib", "move_base_msgs")
	rostest.EachMaster(t, func(t *testing.T, uri string) {
		server := rostest.Python(t, uri, "testdata/action_server.py", "move_base", "make_plan")
		server.WaitLine(t, "ready", 30*time.Second)
		t.Run("CallService", func(t *testing.T) { callServiceWithRospyServer(t, uri, server) })
		t.Run("RunAction", func(t *testing.T) { runActionWithRospyServer(t, uri, server) })
	})
}

// callServiceWithRospyServer: CallService against a rospy service, for
// calls that answer, fail, time out, are abandoned by a halt, and go to a
// service nobody provides.
func callServiceWithRospyServer(t *testing.T, uri string, server *rostest.Process) {
	c := connect(t, uri, "btrobot")
	p := profile(t, `
rate: 50
services:
  plan: {service: make_plan, type: nav_msgs/GetPlan, timeout: 3s}
`)
	deps := Deps{Conn: c, Profile: p}
	call := func(x, extra string) string {
		return `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <CallService service_name="plan" request_fields="start.pose.position.x=0; goal.pose.position.x=` + x + `; goal.pose.position.y={gy}; tolerance=0.5"
               response="{plan}" response_fields="plan.header.frame_id={frame}; plan.poses.1.pose.position.y={last_y}" error_code="{code}" ` + extra + `/>
</BehaviorTree></root>`
	}
	cases := []struct {
		name, x, extra string
		want           runtime.Status
		code           string
		minTook        time.Duration
	}{
		{name: "answers", x: "2", want: runtime.Success, code: ros.CodeNone},
		{name: "fails", x: "-1", want: runtime.Failure, code: CodeServiceFailed},
		{name: "times out", x: "99", extra: `timeout="1s"`, want: runtime.Failure, code: ros.CodeTimeout, minTook: time.Second},
		{name: "nobody provides it", x: "1", extra: `service_name="/no_such_service" service_type="nav_msgs/GetPlan"`, want: runtime.Failure, code: CodeServiceUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			xml := call(tc.x, tc.extra)
			if strings.Contains(tc.extra, "service_name=") {
				xml = strings.Replace(xml, `service_name="plan" `, "", 1)
			}
			tree := buildTree(t, deps, xml)
			tree.Blackboard().Set("gy", 4.5)
			start := time.Now()
			st, rep := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
			took := time.Since(start)
			require.Equal(t, tc.want, st, "status %v, error_code %s; want %v, %s", st, bbString(tree, "code"), tc.want, tc.code)
			require.Equal(t, tc.code, bbString(tree, "code"), "status %v, error_code %s; want %v, %s", st, bbString(tree, "code"), tc.want, tc.code)
			assert.GreaterOrEqual(t, took, tc.minTook, "took %v", took)
			assert.LessOrEqual(t, took, tc.minTook+2*time.Second, "took %v", took)
			// A tick that waited for the call would last as long as the
			// call (for ever for "times out"); a loaded machine's ticks
			// take far less than that.
			d := rep.Stats.Durations.Max()
			assert.LessOrEqual(t, d, 500*time.Millisecond, "a tick took %v: the call must not block the tick", d)
			if tc.want == runtime.Success {
				plan, _ := tree.Blackboard().Get("plan")
				res, ok := plan.(nav_msgs.GetPlanRes)
				assert.True(t, ok, "response %#v, frame %s, last_y %s", plan, bbString(tree, "frame"), bbString(tree, "last_y"))
				assert.Len(t, res.Plan.Poses, 2, "response %#v, frame %s, last_y %s", plan, bbString(tree, "frame"), bbString(tree, "last_y"))
				assert.Equal(t, "map", bbString(tree, "frame"), "response %#v, frame %s, last_y %s", plan, bbString(tree, "frame"), bbString(tree, "last_y"))
				assert.Equal(t, "4.5", bbString(tree, "last_y"), "response %#v, frame %s, last_y %s", plan, bbString(tree, "frame"), bbString(tree, "last_y"))
				server.WaitLine(t, "call 2.0 4.5", 5*time.Second)
			}
		})
	}

	t.Run("abandoned on halt", func(t *testing.T) {
		tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Sequence>
    <Timeout msec="200">
      <CallService service_name="plan" request_fields="goal.pose.position.x=99" error_code="{code}"/>
    </Timeout>
  </Sequence>
</BehaviorTree></root>`)
		start := time.Now()
		st, rep := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
		took := time.Since(start)
		require.Equal(t, runtime.Failure, st, "status %v after %v, want FAILURE from the Timeout at 200ms", st, took)
		require.LessOrEqual(t, took, 5*time.Second, "status %v after %v, want FAILURE from the Timeout at 200ms", st, took)
		// The call is never answered: a halt that waited for it would
		// never end.
		d := rep.Stats.Durations.Max()
		assert.LessOrEqual(t, d, time.Second, "a tick took %v: halting must not wait for the call", d)
		assert.Equal(t, "(unset)", bbString(tree, "code"), "an abandoned call wrote error_code %s", bbString(tree, "code"))
		// The next call opens a new connection and is answered.
		tree = buildTree(t, deps, call("3", ""))
		tree.Blackboard().Set("gy", 1.0)
		st, _ = runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
		require.Equal(t, runtime.Success, st, "the call after an abandoned one: %v, %s", st, bbString(tree, "code"))
	})
}
