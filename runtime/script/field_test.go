package script

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The message types below have the shape goroslib generates for ROS
// messages: an embedded package marker, CamelCase fields, nested messages,
// arrays, and rosname tags where the ROS name is not plain snake_case.
type msgPackage struct{}

type header struct {
	msgPackage `ros:"std_msgs"`
	Seq        uint32
	Stamp      time.Time
	FrameId    string
}

type batteryState struct {
	msgPackage        `ros:"sensor_msgs"`
	Header            header
	Voltage           float32
	Percentage        float32
	PowerSupplyStatus uint8
	Present           bool
	CellVoltage       []float32
	Point1            point `rosname:"point_1"`
}

type point struct{ X, Y, Z float64 }

type quaternion struct{ X, Y, Z, W float64 }

type pose struct {
	Position    point
	Orientation quaternion
}

type poseStamped struct {
	Header header
	Pose   pose
}

type goal struct {
	Target *poseStamped
	Note   any
	Tags   map[string]string
	hidden int
}

type base struct{ ID string }

type robot struct {
	base     // promoted: robot.id reads base.ID
	Name     string
	Settings map[string]any
}

type modeName string

func fieldEnv() vars {
	b := batteryState{
		Header:            header{Seq: 7, FrameId: "base_link"},
		Voltage:           12.5,
		Percentage:        0.15,
		PowerSupplyStatus: 2,
		Present:           true,
		CellVoltage:       []float32{3.5, 3.75},
		Point1:            point{X: 1},
	}
	g := goal{
		Target: &poseStamped{Pose: pose{Position: point{X: 1.5, Y: -2}, Orientation: quaternion{W: 1}}},
		Note:   map[string]any{"priority": 3, "label": "dock"},
		Tags:   map[string]string{"zone": "A"},
	}
	return vars{
		"battery":  b,
		"pbattery": &b,
		"goal":     g,
		"nogoal":   goal{},
		"robot":    robot{base: base{ID: "r1"}, Name: "turtle", Settings: map[string]any{"max_speed": 0.5, "mode": modeName("auto")}},
		"json":     map[string]any{"a": map[string]any{"b": []any{1.0, "two", nil}}},
		"ints":     map[int]string{1: "one"},
		"arr":      [3]int{10, 20, 30},
		"nilptr":   (*batteryState)(nil),
	}
}

func TestDottedAccess(t *testing.T) {
	env := fieldEnv()
	cases := []evalCase{
		{src: "battery.percentage < 0.2", want: true},
		{src: "battery.Percentage", want: float64(float32(0.15))},
		{src: "battery.voltage * 2", want: 25.0},
		{src: "battery.power_supply_status == 2", want: true},
		{src: "battery.PowerSupplyStatus", want: 2},
		{src: "battery.powersupplystatus", want: 2},
		{src: "battery.present", want: true},
		{src: "battery.present && battery.percentage < 0.2", want: true},
		{src: "battery.header.frame_id", want: "base_link"},
		{src: "battery.header.frame_id == 'base_link'", want: true},
		{src: "battery.header.seq + 1", want: 8.0},
		{src: "battery.cell_voltage.1", want: 3.75},
		{src: "battery.point_1.x", want: 1.0},
		{src: "pbattery.header.seq", want: 7},
		{src: "@battery.voltage", want: 12.5},
		{src: "goal.target.pose.position.x", want: 1.5},
		{src: "goal.target.pose.position.y < 0", want: true},
		{src: "goal.target.pose.orientation.w", want: 1.0},
		{src: "goal.note.priority", want: 3},
		{src: "goal.note.label .. '!'", want: "dock!"},
		{src: "goal.tags.zone", want: "A"},
		{src: "robot.id", want: "r1"},
		{src: "robot.name", want: "turtle"},
		{src: "robot.settings.max_speed", want: 0.5},
		{src: "robot.settings.mode == 'auto'", want: true},
		{src: "json.a.b.0", want: 1.0},
		{src: "json.a.b.1", want: "two"},
		{src: "json.a.b.2", want: nil},
		{src: "arr.2", want: 30},
		{src: "x := goal.target.pose.position.x", want: 1.5, after: withVar(env, "x", 1.5)},
		{src: "p := goal.target.pose.position", want: point{X: 1.5, Y: -2}, after: withVar(env, "p", point{X: 1.5, Y: -2})},
		{src: "battery.header.stamp", want: time.Time{}},

		{src: "battery.percent", err: "1:1: battery has no field 'percent' (script.batteryState fields: header, voltage, percentage, power_supply_status, present, cell_voltage, point_1)"},
		{src: "battery.header.frame", err: "battery.header has no field 'frame' (script.header fields: seq, stamp, frame_id)"},
		{src: "goal.hidden", err: "goal has no field 'hidden' (script.goal fields: target, note, tags)"},
		{src: "nogoal.target.pose", err: "cannot read nogoal.target.pose: nogoal.target is nil"},
		{src: "nilptr.voltage", err: "cannot read nilptr.voltage: nilptr is nil"},
		{src: "nogoal.note.x", err: "cannot read nogoal.note.x: nogoal.note is nil"},
		{src: "goal.tags.floor", err: "goal.tags has no key 'floor' (keys: zone)"},
		{src: "ints.1", err: "cannot read ints.1: ints is a map with int keys; only string keys can be read with a dot"},
		{src: "battery.cell_voltage.5", err: "cannot read battery.cell_voltage.5: index 5 is out of range (battery.cell_voltage has 2 elements)"},
		{src: "battery.cell_voltage.99999999999999999999", err: "index 99999999999999999999 is out of range"},
		{src: "battery.cell_voltage.first", err: "cannot read battery.cell_voltage.first: battery.cell_voltage is a list ([]float32); read an element with an index, like battery.cell_voltage.0"},
		{src: "battery.voltage.max", err: "cannot read battery.voltage.max: battery.voltage is float32, which has no fields"},
		{src: "battery.header.frame_id.x", err: "cannot read battery.header.frame_id.x: battery.header.frame_id is a string"},
		{src: "missing.field", err: "1:1: unknown variable 'missing' (use := to create it)"},
		{src: "json.a.b.2.x", err: "cannot read json.a.b.2.x: json.a.b.2 is nil"},
		{src: "1 + battery.nope", err: "1:5: battery has no field 'nope'"},
	}
	for i := range cases {
		cases[i].env = env
	}
	runCases(t, cases)
}

func withVar(env vars, k string, v Value) vars {
	out := vars{}
	for kk, vv := range env {
		out[kk] = vv
	}
	out[k] = v
	return out
}

// The field cache must follow the type of the value: the same script may
// read a variable that holds different types on different ticks.
func TestDottedAccessFollowsTheType(t *testing.T) {
	p, err := Parse("v.x")
	require.NoError(t, err)
	type other struct {
		Pad string
		X   int
	}
	env := &MapEnv{Vars: vars{}}
	for i, tc := range []struct {
		v    Value
		want Value
	}{
		{point{X: 1}, 1.0},
		{other{X: 2}, 2},
		{&point{X: 3}, 3.0},
		{map[string]int{"x": 4}, 4},
		{point{X: 5}, 5.0},
	} {
		env.Vars["v"] = tc.v
		got, err := p.Eval(env)
		assert.NoError(t, err, "read %d: got %#v, %v; want %#v", i, got, err, tc.want)
		assert.True(t, sameGo(got, tc.want), "read %d: got %#v, %v; want %#v", i, got, err, tc.want)
	}
}

// A Program is evaluated from many goroutines at once (one tree per
// goroutine in tests, ROS callbacks reading conditions): run with -race.
func TestConcurrentEval(t *testing.T) {
	p, err := Parse("n := n + 1; battery.percentage < 0.2 && battery.header.frame_id == 'base_link'")
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := &MapEnv{Vars: vars{"n": 0, "battery": fieldEnv()["battery"]}}
			for i := 0; i < 200; i++ {
				v, err := p.Eval(env)
				if !assert.NoError(t, err) || !assert.Equal(t, true, v) {
					return
				}
			}
			assert.True(t, env.Vars["n"] == 200, "n = %v, want 200", env.Vars["n"])
		}()
	}
	wg.Wait()
}
