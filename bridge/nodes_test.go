package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// TestNodesPalette: the ROS nodes are registered with their ports and
// documentation, in the ros category.
func TestNodesPalette(t *testing.T) {
	reg := runtime.NewRegistry()
	require.NoError(t, Register(reg, Deps{}))
	want := map[string][]string{
		"Publish":        {"topic", "msg_type", "msg", "fields"},
		"TopicCondition": {"topic", "msg_type", "script", "max_age"},
		"CallService":    {"service_name", "service_type", "request", "request_fields", "response", "response_fields", "error_code", "timeout"},
		"RunAction":      {"server_name", "action_type", "goal", "goal_fields", "feedback", "result", "result_fields", "error_code", "wait_for_server_timeout", "server_timeout", "timeout"},
	}
	for id, ports := range want {
		nt, ok := reg.Lookup(id)
		require.True(t, ok, "%s is not registered", id)
		assert.Equal(t, "ros", nt.Category, "%s: category %q, summary %q, doc of %d bytes", id, nt.Category, nt.Summary, len(nt.Doc))
		assert.NotEmpty(t, nt.Summary, "%s: category %q, summary %q, doc of %d bytes", id, nt.Category, nt.Summary, len(nt.Doc))
		assert.GreaterOrEqual(t, len(nt.Doc), 200, "%s: category %q, summary %q, doc of %d bytes", id, nt.Category, nt.Summary, len(nt.Doc))
		var got []string
		for _, p := range nt.Ports {
			got = append(got, p.Name)
			assert.NotEmpty(t, p.Description, "%s.%s has no description", id, p.Name)
		}
		assert.Equal(t, strings.Join(ports, ","), strings.Join(got, ","), "%s ports %v, want %v", id, got, ports)
	}
	assert.Error(t, Register(reg, Deps{}), "registering twice is not an error")
}

// TestNodeBuildErrors: mistakes in the ROS nodes' ports are build errors
// with the node's path and what would be right, found without a ROS
// connection (as btrobot check does), all in one pass.
func TestNodeBuildErrors(t *testing.T) {
	p := profile(t, `
rate: 10
actions: {navigate: {server: move_base, type: move_base_msgs/MoveBaseAction}}
services: {plan: {service: make_plan, type: nav_msgs/GetPlan}}
`)
	cases := []struct {
		name, xml string
		want      []string
	}{
		{
			name: "Publish",
			xml: `<Sequence>
  <Publish topic="cmd_vel" msg_type="geometry_msgs/Twst"/>
  <Publish topic="cmd vel" msg_type="geometry_msgs/Twist"/>
  <Publish topic="{where}" msg_type="geometry_msgs/Twist"/>
  <Publish topic="cmd_vel" msg_type="geometry_msgs/Twist" fields="linear.q=1; angular.z=fast; speed"/>
</Sequence>`,
			want: []string{
				`test.xml:3:28: Main/Sequence/Publish: port "msg_type": unknown ROS message type "geometry_msgs/Twst" (did you mean geometry_msgs/Twist`,
				`test.xml:4:12: Main/Sequence/Publish#2: port "topic": "cmd vel" is not a valid ROS name`,
				`test.xml:5:3: Main/Sequence/Publish#3: port "topic" must be written in the tree, not read from the blackboard ({where})`,
				`test.xml:6:3: Main/Sequence/Publish#4: port "fields": geometry_msgs/Twist.linear has no field "q" (fields: x, y, z); angular.z: "fast" is not a number; "speed": write field=value or field={key}`,
			},
		},
		{
			name: "TopicCondition",
			xml: `<Sequence>
  <TopicCondition topic="battery_state" msg_type="sensor_msgs/BatteryState" script="msg.percentage &gt;"/>
  <TopicCondition topic="battery_state" msg_type="move_base_msgs/MoveBaseAction" script="true"/>
</Sequence>`,
			want: []string{
				`test.xml:3:3: Main/Sequence/TopicCondition: port "script": the script does not parse`,
				`test.xml:4:41: Main/Sequence/TopicCondition#2: port "msg_type": move_base_msgs/MoveBaseAction is an action type, not a message type`,
			},
		},
		{
			name: "RunAction",
			xml: `<Sequence>
  <RunAction server_name="navigat"/>
  <RunAction server_name="navigate" goal_fields="target_pose.pose.position.w=1"/>
  <RunAction server_name="dock" action_type="move_base_msgs/MoveBaseGoal"/>
  <RunAction server_name="navigate" result_fields="x=1"/>
</Sequence>`,
			want: []string{
				`test.xml:3:3: Main/Sequence/RunAction: port "action_type": "navigat" is not an action of the robot profile (did you mean navigate?), so say its type, like action_type="move_base_msgs/MoveBaseAction"`,
				`test.xml:4:3: Main/Sequence/RunAction#2: port "goal_fields": move_base_msgs/MoveBaseGoal.target_pose.pose.position has no field "w" (fields: x, y, z)`,
				`test.xml:5:3: Main/Sequence/RunAction#3: port "action_type": move_base_msgs/MoveBaseGoal is a message type, not an action type`,
				`test.xml:6:3: Main/Sequence/RunAction#4: port "result_fields": "x=1": write field={key}`,
			},
		},
		{
			name: "CallService",
			xml: `<Sequence>
  <CallService service_name="plan" request_fields="goal.pose.position.x={x}; tolerance=high"/>
  <CallService service_name="/clear"/>
  <CallService service_name="plan" response_fields="plan.posses={p}"/>
</Sequence>`,
			want: []string{
				`test.xml:3:3: Main/Sequence/CallService: port "request_fields": tolerance: "high" is not a number`,
				`test.xml:4:3: Main/Sequence/CallService#2: port "service_type": "/clear" is not a service of the robot profile (the profile has plan), so say its type`,
				`test.xml:5:3: Main/Sequence/CallService#3: port "response_fields": nav_msgs/GetPlanResponse.plan has no field "posses" (fields: header, poses; did you mean poses?)`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := runtime.NewRegistry()
			require.NoError(t, Register(reg, Deps{Profile: p}))
			doc, err := trees.Parse("test.xml", []byte(`<root BTCPP_format="4"><BehaviorTree ID="Main">
  `+c.xml+`
</BehaviorTree></root>`))
			require.NoError(t, err)
			err = runtime.Check(reg, doc, runtime.BuildConf{})
			require.Error(t, err, "no error")
			lines := strings.Split(err.Error(), "\n")
			for i, w := range c.want {
				if assert.Less(t, i, len(lines), "error %d:\n got %s\nwant %s", i, at(lines, i), w) {
					assert.True(t, strings.HasPrefix(lines[i], w), "error %d:\n got %s\nwant %s", i, at(lines, i), w)
				}
			}
			assert.Len(t, lines, len(c.want), "got %d errors, want %d:\n%v", len(lines), len(c.want), err)
		})
	}
}

// TestNodesWithoutConnection: a tree built for checking only fails with a
// clear error when ticked.
func TestNodesWithoutConnection(t *testing.T) {
	tree := buildTree(t, Deps{}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Publish topic="cmd_vel" msg_type="geometry_msgs/Twist"/>
</BehaviorTree></root>`)
	_, err := tree.TickOnce()
	require.Error(t, err, "tick: %v", err)
	require.Contains(t, err.Error(), "no ROS connection", "tick: %v", err)
}

// TestPublishAndTopicCondition: Publish sends messages built from the
// blackboard, and TopicCondition judges the newest one: FAILURE with none
// yet, the script's truth, FAILURE again once it is older than max_age.
func TestPublishAndTopicCondition(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connect(t, uri, "btrobot")
	watch := watchTwists(t, uri, "/cmd_vel")
	// Publish the twist and a battery state the condition watches, from
	// one tree; tick by hand, without a bridge.
	tree := buildTree(t, Deps{Conn: c}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Sequence>
    <Publish topic="/cmd_vel" msg_type="geometry_msgs/Twist" msg="{base}" fields="linear.x={speed}; angular.z=0.25"/>
    <Publish topic="battery_state" msg_type="sensor_msgs/BatteryState" fields="percentage={pct}; power_supply_status=2"/>
  </Sequence>
</BehaviorTree></root>`)
	cond := buildTree(t, Deps{Conn: c}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <TopicCondition topic="battery_state" msg_type="sensor_msgs/BatteryState" max_age="300ms"
                  script="msg.percentage &gt; threshold &amp;&amp; msg.power_supply_status == 2"/>
</BehaviorTree></root>`)
	cond.Blackboard().Set("threshold", 0.2)
	st, err := cond.TickOnce()
	require.Equal(t, runtime.Failure, st, "before any message: %v %v, want FAILURE", st, err)
	require.NoError(t, err, "before any message: %v %v, want FAILURE", st, err)
	tree.Blackboard().Set("base", geometry_msgs.Twist{Linear: geometry_msgs.Vector3{Y: 7}})
	tree.Blackboard().Set("speed", 0.4)
	tree.Blackboard().Set("pct", 0.9)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		st, err := tree.TickOnce()
		require.Equal(ct, runtime.Success, st, "publish: %v %v", st, err)
		require.NoError(ct, err, "publish: %v %v", st, err)
		time.Sleep(20 * time.Millisecond)
		m, ok := watch.last()
		st, _ = cond.TickOnce()
		assert.True(ct, ok && m.x == 0.4 && st == runtime.Success)
	}, 10*time.Second, 5*time.Millisecond, "the twist and the battery delivered")
	tree.Blackboard().Set("pct", 0.1)
	require.Eventually(t, func() bool {
		tree.TickOnce()
		time.Sleep(10 * time.Millisecond)
		st, _ := cond.TickOnce()
		return st == runtime.Failure
	}, 5*time.Second, 5*time.Millisecond, "a low battery seen")
	tree.Blackboard().Set("pct", 0.8)
	require.Eventually(t, func() bool {
		tree.TickOnce()
		time.Sleep(10 * time.Millisecond)
		st, _ := cond.TickOnce()
		return st == runtime.Success
	}, 5*time.Second, 5*time.Millisecond, "the battery up again")
	time.Sleep(350 * time.Millisecond)
	st, err = cond.TickOnce()
	require.Equal(t, runtime.Failure, st, "a message older than max_age: %v %v, want FAILURE", st, err)
	require.NoError(t, err, "a message older than max_age: %v %v, want FAILURE", st, err)
	// Errors in the script are the tick's.
	bad := buildTree(t, Deps{Conn: c}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <TopicCondition topic="battery_state" msg_type="sensor_msgs/BatteryState" script="msg.cell_voltage.3 &gt; 3"/>
</BehaviorTree></root>`)
	_, err = bad.TickOnce()
	require.Error(t, err, "script error: %v", err)
	require.Contains(t, err.Error(), "out of range", "script error: %v", err)
	_ = sensor_msgs.BatteryState{}
}

// TestRunNoLeaks: a run with a bridge and every ROS node, started and
// stopped, leaves no goroutine behind once the connection is closed.
func TestRunNoLeaks(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	t.Run("session", func(t *testing.T) {
		uri := rostest.StartMaster(t)
		c := connect(t, uri, "btrobot")
		p := profile(t, `
rate: 100
max_rate: 200
inputs: [{topic: battery_state, type: sensor_msgs/BatteryState, fields: {pct: percentage}, wake: true, max_age: 1s}]
outputs: [{topic: cmd_vel, type: geometry_msgs/Twist, fields: {speed: linear.x}}]
safety: {velocity_topic: cmd_vel, watchdog: 5}
`)
		tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Parallel success_count="-1" failure_count="1">
    <Script code="speed := 0.1"/>
    <Publish topic="chatter" msg_type="std_msgs/String" fields="data=hi"/>
    <Inverter><TopicCondition topic="battery_state" msg_type="sensor_msgs/BatteryState" script="msg.percentage &gt; 0.5"/></Inverter>
    <RunAction server_name="/absent" action_type="move_base_msgs/MoveBaseAction" wait_for_server_timeout="0"/>
    <CallService service_name="/absent_srv" service_type="nav_msgs/GetPlan" timeout="0"/>
  </Parallel>
</BehaviorTree></root>`)
		stop, _ := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
		time.Sleep(300 * time.Millisecond)
		_, err := stop()
		require.Error(t, err, "the run ended without an error")
		c.Close()
	})
}
