package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShippedProfiles(t *testing.T) {
	for _, file := range []string{"../robots/sim.yaml", "../robots/turtlebot3.yaml"} {
		t.Run(file, func(t *testing.T) {
			p, err := LoadProfile(file)
			require.NoError(t, err)
			assert.Greater(t, p.Rate, 0.0, "rates or bindings missing: %+v", p)
			assert.GreaterOrEqual(t, p.MaxRate, p.Rate, "rates or bindings missing: %+v", p)
			assert.NotEmpty(t, p.Inputs, "rates or bindings missing: %+v", p)
			assert.NotEmpty(t, p.Outputs, "rates or bindings missing: %+v", p)
			nav, ok := p.Action("navigate")
			assert.True(t, ok, "navigate: %+v", nav)
			assert.Equal(t, "move_base_msgs/MoveBaseAction", nav.Type.Name, "navigate: %+v", nav)
			assert.NotEmpty(t, nav.Server, "navigate: %+v", nav)
			assert.NotEmpty(t, p.Safety.VelocityTopic, "safety: %+v", p.Safety)
			assert.Equal(t, "geometry_msgs/Twist", p.Safety.VelocityType.Name, "safety: %+v", p.Safety)
			assert.NotEqual(t, 0, p.Safety.Watchdog, "safety: %+v", p.Safety)
		})
	}
}

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile([]byte(`
robot: test
namespace: robot1
rate: 20
max_rate: 100Hz
inputs:
  - topic: battery_state
    type: sensor_msgs/BatteryState
    key: battery
    fields: {battery_pct: percentage, cell0: cell_voltage.0, stamp: header.stamp}
    max_age: 2s
    wake: true
outputs:
  - {topic: cmd_vel, type: geometry_msgs/Twist, fields: {speed: linear.x, turn: angular.z}, rate: 10}
  - {topic: status, type: std_msgs/String, key: status, publish: every_tick}
actions:
  dock: {server: dock, type: move_base_msgs/MoveBaseAction, timeout: 1m}
services:
  reset: {service: /reset, type: std_srvs/Trigger}
safety: {velocity_topic: cmd_vel, watchdog: 0}
`), "p.yaml", nil)
	require.NoError(t, err)
	in := p.Inputs[0]
	assert.Equal(t, "/robot1", p.Namespace, "profile %+v", p)
	assert.Equal(t, 20.0, p.Rate, "profile %+v", p)
	assert.Equal(t, 100.0, p.MaxRate, "profile %+v", p)
	assert.Equal(t, 50*time.Millisecond, p.Period(), "profile %+v", p)
	assert.Equal(t, "/robot1/battery_state", in.Topic, "input %+v", in)
	assert.Equal(t, "battery", in.Key, "input %+v", in)
	assert.Equal(t, 2*time.Second, in.MaxAge, "input %+v", in)
	assert.True(t, in.Wake, "input %+v", in)
	assert.Len(t, in.Fields, 3, "input %+v", in)
	assert.Equal(t, int32(7), in.Pos.Line, "input %+v", in)
	msg := &sensor_msgs.BatteryState{Percentage: 0.5, CellVoltage: []float32{3.7}}
	for i, want := range []any{float32(0.5), float32(3.7)} {
		got, err := in.Fields[i].get(msg)
		assert.NoError(t, err, "field %s = %v, %v", in.Fields[i].Path, got, err)
		assert.Equal(t, want, got, "field %s = %v, %v", in.Fields[i].Path, got, err)
	}
	o := p.Outputs[0]
	assert.Equal(t, AtRate, o.Publish, "output 0 %+v", o)
	assert.Equal(t, 10.0, o.Rate, "output 0 %+v", o)
	assert.Len(t, o.Fields, 2, "output 0 %+v", o)
	o = p.Outputs[1]
	assert.Equal(t, EveryTick, o.Publish, "output 1 %+v", o)
	assert.Equal(t, "status", o.Key, "output 1 %+v", o)
	a, _ := p.Action("dock")
	assert.Equal(t, time.Minute, a.Timeout, "action %+v", a)
	assert.Equal(t, DefaultWaitForServerTimeout, a.WaitForServerTimeout, "action %+v", a)
	assert.Equal(t, DefaultServerTimeout, a.ServerTimeout, "action %+v", a)
	a, _ = p.Action("dock")
	assert.Equal(t, "/robot1/dock", a.Server, "names not resolved in the profile's namespace: %+v, %+v, %+v", a, p.Outputs[0], p.Safety)
	assert.Equal(t, "/robot1/cmd_vel", p.Outputs[0].Topic, "names not resolved in the profile's namespace: %+v, %+v, %+v", a, p.Outputs[0], p.Safety)
	assert.Equal(t, "/robot1/cmd_vel", p.Safety.VelocityTopic, "names not resolved in the profile's namespace: %+v, %+v, %+v", a, p.Outputs[0], p.Safety)
	s, _ := p.Service("reset")
	assert.Equal(t, "/reset", s.Service, "service %+v", s)
	assert.Equal(t, DefaultServiceTimeout, s.Timeout, "service %+v", s)
	assert.Equal(t, "std_srvs/Trigger", s.Type.Name, "service %+v", s)
	assert.Equal(t, "geometry_msgs/Twist", p.Safety.VelocityType.Name, "safety %+v", p.Safety)
}

// TestBrokenProfiles: every mistake is reported at once, each at its
// file:line:col with what would be right.
func TestBrokenProfiles(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string
	}{
		{
			name: "empty",
			yaml: ``,
			want: []string{`p.yaml:1:1: the profile is empty; it needs at least a rate`},
		},
		{
			name: "not YAML",
			yaml: "rate: 20\ninputs: [\n",
			want: []string{`p.yaml:2:1: not valid YAML: did not find expected node content`},
		},
		{
			name: "top level",
			yaml: "rat: 20\nmax_rate: 10\nrobot: [a]\n",
			want: []string{
				`p.yaml:1:1: unknown field "rat" (did you mean rate or max_rate? known: robot, namespace, rate, max_rate, inputs, outputs, actions, services, safety)`,
				`p.yaml:1:1: rate is missing: say how many ticks a second the tree gets, like rate: 20`,
				`p.yaml:3:8: robot: want a single value, got a list`,
			},
		},
		{
			name: "rates",
			yaml: "rate: -5\nmax_rate: fast\n",
			want: []string{
				`p.yaml:1:7: rate: rate -5 is not allowed: want a positive number of Hz, 0.1 to 1000 Hz`,
				`p.yaml:2:11: max_rate: "fast" is not a rate: write a number of Hz, like 20`,
			},
		},
		{
			name: "wake without early ticks",
			yaml: "rate: 20\ninputs: [{topic: bumper, type: std_msgs/Bool, key: bumped, wake: true}]\n",
			want: []string{`p.yaml:2:66: inputs[0].wake: wake: true asks for early ticks, which max_rate 0 turns off: set max_rate above the rate 20, like max_rate: 100`},
		},
		{
			name: "max rate below rate",
			yaml: "rate: 20\nmax_rate: 10\n",
			want: []string{`p.yaml:2:11: max_rate: max_rate 10 is below rate 20: early ticks come on top of the periodic ones, so set it above the rate (or 0 for no early ticks)`},
		},
		{
			name: "inputs",
			yaml: `rate: 20
inputs:
  - topic: battery_state
    type: sensor_msgs/BateryState
    key: battery
    max_agee: 5s
  - topic: odom
    type: nav_msgs/Odometry
    fields: {x: pose.position.x, y: pose.pose.posiiton.y, n: pose.pose.position.x.y}
    max_age: 5
    wake: yes please
  - topic: scan
    type: Twist
  - topic: "bad topic"
    key: 9key
    max_age: -1s
  - topic: odom
    type: nav_msgs/Odometry
    key: battery
`,
			want: []string{
				`p.yaml:4:11: inputs[0].type: unknown ROS message type "sensor_msgs/BateryState" (did you mean sensor_msgs/BatteryState`,
				`p.yaml:6:5: inputs[0]: unknown field "max_agee" (did you mean max_age? known: topic, type, key, fields, max_age, wake)`,
				`p.yaml:9:17: inputs[1].fields.x: nav_msgs/Odometry.pose has no field "position" (fields: pose, covariance)`,
				`p.yaml:9:37: inputs[1].fields.y: nav_msgs/Odometry.pose.pose has no field "posiiton" (fields: position, orientation; did you mean position?)`,
				`p.yaml:9:62: inputs[1].fields.n: nav_msgs/Odometry.pose.pose.position.x is a float64, which has no field "y"`,
				`p.yaml:10:14: inputs[1].max_age: duration "5" has no unit: write 5s or 5ms`,
				`p.yaml:11:11: inputs[1].wake: "yes please" is not true or false`,
				`p.yaml:12:5: inputs[2]: input of scan writes nothing: give a key for the whole message, or fields`,
				`p.yaml:13:11: inputs[2].type: ROS message type name "Twist": write package/Type, like geometry_msgs/Twist (did you mean geometry_msgs/Twist`,
				`p.yaml:14:5: inputs[3]: type is missing: the message type, like nav_msgs/Odometry`,
				`p.yaml:14:12: inputs[3].topic: topic: "bad topic" is not a valid ROS name`,
				`p.yaml:15:10: inputs[3].key: blackboard key "9key": a key is a letter or '_' followed by letters, digits or '_'`,
				`p.yaml:16:14: inputs[3].max_age: duration -1s is negative`,
				`p.yaml:17:12: inputs[4].topic: topic odom is already an input (inputs[1]); give that input more fields instead`,
				`p.yaml:19:10: inputs[4].key: blackboard key "battery" is already bound at line 5; one key holds one value`,
			},
		},
		{
			name: "outputs",
			yaml: `rate: 20
outputs:
  - topic: cmd_vel
    type: geometry_msgs/Twist
    key: cmd_vel
    fields: {speed: linear.x}
  - topic: status
    type: std_msgs/String
    publish: sometimes
    rate: 50
    key: status
  - topic: pose
    type: geometry_msgs/Pose
  - topic: cmd_vel
    key: v
`,
			want: []string{
				`p.yaml:6:13: outputs[0].fields: an output takes its message from a key or from fields, not both`,
				`p.yaml:9:14: outputs[1].publish: publish "sometimes": want on_change or every_tick (or a rate)`,
				`p.yaml:10:11: outputs[1].rate: an output is published on change, every tick or at a rate: give publish or rate, not both`,
				`p.yaml:10:11: outputs[1].rate: rate 50 Hz is above the tick rate 20 Hz: outputs are published at the end of ticks; use publish: every_tick`,
				`p.yaml:12:5: outputs[2]: output on pose publishes nothing: give the key holding the message, or fields`,
				`p.yaml:14:5: outputs[3]: type is missing: the message type, like geometry_msgs/Twist`,
				`p.yaml:14:12: outputs[3].topic: topic cmd_vel is already an output (outputs[0])`,
			},
		},
		{
			name: "numbers out of range",
			yaml: `rate: 1e-10
max_rate: 1e400
inputs:
  - {topic: odom, type: nav_msgs/Odometry, key: odom, max_age: 2h}
outputs:
  - {topic: cmd_vel, type: geometry_msgs/Twist, key: cmd_vel, rate: 0.001}
actions:
  navigate: {server: move_base, type: move_base_msgs/MoveBaseAction, wait_for_server_timeout: 2h, server_timeout: 90m, timeout: 25h}
services:
  reset: {service: reset, type: std_srvs/Trigger, timeout: 1000000h}
safety:
  velocity_topic: cmd_vel
  watchdog: 200000000000
`,
			want: []string{
				`p.yaml:1:7: rate: rate 1e-10 Hz is out of range: want 0.1 to 1000 Hz`,
				`p.yaml:2:11: max_rate: rate 1e400 Hz is out of range: want 0 (off) or 0.1 to 1000 Hz`,
				`p.yaml:4:64: inputs[0].max_age: 2h is out of range: want 0 (never stale) to 1h0m0s`,
				`p.yaml:6:69: outputs[0].rate: rate 0.001 Hz is out of range: want 0.1 to 1000 Hz`,
				`p.yaml:8:95: actions.navigate.wait_for_server_timeout: 2h is out of range: want 0 (no limit) to 1h0m0s`,
				`p.yaml:8:115: actions.navigate.server_timeout: 90m is out of range: want 0 (no limit) to 1h0m0s`,
				`p.yaml:8:129: actions.navigate.timeout: 25h is out of range: want 0 (no limit) to 24h0m0s`,
				`p.yaml:10:60: services.reset.timeout: 1000000h is out of range: want 0 (no limit) to 1h0m0s`,
				`p.yaml:13:13: safety.watchdog: watchdog 200000000000 periods is out of range: want 0 (off) to 1000 tick periods`,
			},
		},
		{
			name: "a watchdog longer than a minute",
			yaml: "rate: 1\nsafety: {velocity_topic: cmd_vel, watchdog: 61}\n",
			want: []string{`p.yaml:2:45: safety.watchdog: watchdog 61 periods at 1 Hz is 1m1s: a robot left moving that long unchecked has no watchdog; want at most 1m0s (60 periods)`},
		},
		{
			name: "clock timeout too short",
			yaml: "rate: 10\nsafety: {velocity_topic: cmd_vel, clock_timeout: 0s}\n",
			want: []string{`p.yaml:2:50: safety.clock_timeout: clock_timeout 0s is out of range: want 200ms to 1m0s of /clock's silence (default 2s)`},
		},
		{
			name: "clock timeout too long",
			yaml: "rate: 10\nsafety:\n  clock_timeout: 61s\n",
			want: []string{`p.yaml:3:18: safety.clock_timeout: clock_timeout 61s is out of range: want 200ms to 1m0s of /clock's silence (default 2s)`},
		},
		{
			name: "clock timeout without a unit",
			yaml: "rate: 10\nsafety: {clock_timeout: 2}\n",
			want: []string{`p.yaml:2:25: safety.clock_timeout: duration "2" has no unit: write 2s or 2ms`},
		},
		{
			name: "clock timeout not a duration",
			yaml: "rate: 10\nsafety: {clock_timeout: [2s]}\n",
			want: []string{`p.yaml:2:25: safety.clock_timeout:`},
		},
		{
			name: "actions services safety",
			yaml: `rate: 10
actions:
  navigate: {server: move_base, type: move_base_msgs/MoveBase, server_timeout: 2}
  dock: {type: geometry_msgs/Twist}
  "bad name": {server: x, type: move_base_msgs/MoveBaseAction}
services:
  reset: {service: reset, type: std_srvs/Trigger, timout: 2s}
  clear: {service: clear, type: geometry_msgs/Twist}
safety:
  velocity_topic: cmd_vel
  velocity_type: sensor_msgs/Imu
  watchdog: -2
`,
			want: []string{
				`p.yaml:3:39: actions.navigate.type: unknown ROS action type "move_base_msgs/MoveBase" (did you mean move_base_msgs/MoveBaseAction`,
				`p.yaml:3:80: actions.navigate.server_timeout: duration "2" has no unit: write 2s or 2ms`,
				`p.yaml:4:9: actions.dock: server is missing: the action server's name, like move_base`,
				`p.yaml:4:16: actions.dock.type: geometry_msgs/Twist is a message type, not an action type`,
				`p.yaml:5:3: actions.bad name: action name "bad name": a name is a letter or '_' followed by letters, digits or '_'`,
				`p.yaml:7:51: services.reset: unknown field "timout" (did you mean timeout? known: service, type, timeout)`,
				`p.yaml:8:33: services.clear.type: geometry_msgs/Twist is a message type, not a service type`,
				`p.yaml:11:18: safety.velocity_type: a zero velocity is sent as geometry_msgs/Twist or geometry_msgs/TwistStamped, not sensor_msgs/Imu`,
				`p.yaml:12:13: safety.watchdog: watchdog -2 periods is out of range: want 0 (off) to 1000 tick periods`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(c.yaml), "p.yaml", nil)
			require.Error(t, err, "no error")
			lines := strings.Split(err.Error(), "\n")
			for i, w := range c.want {
				if assert.Less(t, i, len(lines), "error %d:\n got %s\nwant %s", i, at(lines, i), w) {
					assert.True(t, strings.HasPrefix(lines[i], w), "error %d:\n got %s\nwant %s", i, at(lines, i), w)
				}
			}
			assert.Len(t, lines, len(c.want), "got %d errors, want %d:\n%s", len(lines), len(c.want), err)
		})
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(nothing)"
}

// TestProfileRangeEnds: the ends of every range are accepted.
func TestProfileRangeEnds(t *testing.T) {
	cases := []struct{ name, yaml string }{
		{"slowest", "rate: 0.1\nsafety: {velocity_topic: cmd_vel, watchdog: 6}\n"},
		{"fastest", "rate: 1000\nmax_rate: 1000\nsafety: {velocity_topic: cmd_vel, watchdog: 1000}\n"},
		{"longest waits", "rate: 10\ninputs: [{topic: odom, type: nav_msgs/Odometry, key: odom, max_age: 1h}]\n" +
			"actions: {nav: {server: move_base, type: move_base_msgs/MoveBaseAction, wait_for_server_timeout: 1h, server_timeout: 1h, timeout: 24h}}\n" +
			"services: {reset: {service: reset, type: std_srvs/Trigger, timeout: 1h}}\n"},
		{"zeros", "rate: 10\nmax_rate: 0\nsafety: {velocity_topic: cmd_vel, watchdog: 0}\n"},
		{"shortest clock timeout", "rate: 10\nsafety: {clock_timeout: 200ms}\n"},
		{"longest clock timeout", "rate: 10\nsafety: {clock_timeout: 1m}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(c.yaml), "p.yaml", nil)
			require.NoError(t, err)
		})
	}
	require.EqualError(t, CheckRate(1e-10), "rate 1e-10 Hz is out of range: want 0.1 to 1000 Hz")
	require.NoError(t, CheckRate(1000))
}
