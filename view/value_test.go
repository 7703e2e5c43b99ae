package view_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/view"
)

// battery is what the simulator publishes: a header stamped 13 s after
// the epoch, a NaN temperature, empty lists.
var battery = sensor_msgs.BatteryState{
	Header:      std_msgs.Header{Stamp: time.Unix(13, 0), FrameId: "robot1/base_link"},
	Voltage:     13.74,
	Temperature: float32(math.NaN()),
	Percentage:  0.87,
	Present:     true,
}

type pose struct {
	X, Y  float64
	Theta float64 `rosname:"yaw"`
}

type route struct {
	Name   string
	Poses  []pose
	Wait   time.Duration
	Tags   map[string]int
	Target *pose
}

func TestValue(t *testing.T) {
	for _, c := range []struct {
		name       string
		v          any
		text, line string
		json       string
	}{
		{"a ROS message: field names, nested, times as seconds, NaN as nan", battery,
			"header:\n  seq: 0\n  stamp: 13\n  frame_id: \"robot1/base_link\"\nvoltage: 13.74\ntemperature: nan\ncurrent: 0\ncharge: 0\ncapacity: 0\ndesign_capacity: 0\npercentage: 0.87\npower_supply_status: 0\npower_supply_health: 0\npower_supply_technology: 0\npresent: true\ncell_voltage: []\ncell_temperature: []\nlocation: \"\"\nserial_number: \"\"",
			`{header: {seq: 0, stamp: 13, frame_id: "robot1/base_link"}, voltage: 13.74, temperature: nan, current: 0, charge: 0, capacity: 0, design_capacity: 0, percentage: 0.87, power_supply_status: 0, power_supply_health: 0, power_supply_technology: 0, present: true, cell_voltage: [], cell_temperature: [], location: "", serial_number: ""}`,
			`{"header":{"seq":0,"stamp":13,"frame_id":"robot1/base_link"},"voltage":13.74,"temperature":"nan","current":0,"charge":0,"capacity":0,"design_capacity":0,"percentage":0.87,"power_supply_status":0,"power_supply_health":0,"power_supply_technology":0,"present":true,"cell_voltage":[],"cell_temperature":[],"location":"","serial_number":""}`},
		{"nested structs in a list, a duration, a map, a pointer, a rosname tag",
			route{Name: "loop", Poses: []pose{{1, 2, 0.5}, {3, 4, -1}}, Wait: 1500 * time.Millisecond, Tags: map[string]int{"b": 2, "a": 1}, Target: &pose{X: 1}},
			"name: \"loop\"\nposes:\n  -\n    x: 1\n    y: 2\n    yaw: 0.5\n  -\n    x: 3\n    y: 4\n    yaw: -1\nwait: 1.5\ntags:\n  a: 1\n  b: 2\ntarget:\n  x: 1\n  y: 0\n  yaw: 0",
			`{name: "loop", poses: [{x: 1, y: 2, yaw: 0.5}, {x: 3, y: 4, yaw: -1}], wait: 1.5, tags: {a: 1, b: 2}, target: {x: 1, y: 0, yaw: 0}}`,
			`{"name":"loop","poses":[{"x":1,"y":2,"yaw":0.5},{"x":3,"y":4,"yaw":-1}],"wait":1.5,"tags":{"a":1,"b":2},"target":{"x":1,"y":0,"yaw":0}}`},
		{"a list of numbers on one line", []float32{1, 2.5, float32(math.Inf(1)), float32(math.Inf(-1))},
			"[1, 2.5, inf, -inf]", "[1, 2.5, inf, -inf]", `[1,2.5,"inf","-inf"]`},
		{"a time with nanoseconds, and the zero time", []time.Time{time.Unix(1700000000, 250_000_000), {}},
			"[1700000000.25, 0]", "[1700000000.25, 0]", `[1700000000.25,0]`},
		{"a negative duration", -1500 * time.Millisecond, "-1.5", "-1.5", `-1.5`},
		{"a float64 as JSON writes it", 42.0, "42", "42", `42`},
		{"a float32, shortest", float32(0.1), "0.1", "0.1", `0.1`},
		{"an integer", 7, "7", "7", `7`},
		{"a string, quoted", "kitchen", `"kitchen"`, `"kitchen"`, `"kitchen"`},
		{"empty: nil", nil, "null", "null", `null`},
		{"empty: a struct without fields", struct{}{}, "{}", "{}", `{}`},
		{"empty: a nil list", []pose(nil), "[]", "[]", `[]`},
		{"empty: a nil pointer", (*pose)(nil), "null", "null", `null`},
		{"a twist (geometry_msgs)", geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.2}},
			"linear:\n  x: 0.2\n  y: 0\n  z: 0\nangular:\n  x: 0\n  y: 0\n  z: 0",
			`{linear: {x: 0.2, y: 0, z: 0}, angular: {x: 0, y: 0, z: 0}}`,
			`{"linear":{"x":0.2,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`},
		{"a recorded value (JSON), in its order", json.RawMessage(`{"header":{"stamp":13,"frame_id":"r"},"temperature":"nan","ranges":[1,2]}`),
			"header:\n  stamp: 13\n  frame_id: \"r\"\ntemperature: nan\nranges: [1, 2]",
			`{header: {stamp: 13, frame_id: "r"}, temperature: nan, ranges: [1, 2]}`,
			`{"header":{"stamp":13,"frame_id":"r"},"temperature":"nan","ranges":[1,2]}`},
		{"a recorded value that is not JSON, as its text", json.RawMessage(`{0 0 NaN`), `"{0 0 NaN"`, `"{0 0 NaN"`, `"{0 0 NaN"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.text, view.Value(c.v))
			assert.Equal(t, c.line, view.ValueLine(c.v))
			got := view.ValueJSON(c.v)
			assert.JSONEq(t, c.json, string(got))
			assert.True(t, json.Valid(got), "%s", got)
			// What a recording holds reads back the same.
			assert.Equal(t, c.line, view.ValueLine(got))
		})
	}
}

// TestValueLongListsAreCut: the text shows the first MaxListItems items
// of a list and says how many more; the JSON keeps them all.
func TestValueLongListsAreCut(t *testing.T) {
	scan := sensor_msgs.LaserScan{Ranges: make([]float32, 360)}
	line := view.ValueLine(scan)
	assert.Contains(t, line, "ranges: [0, 0")
	assert.Contains(t, line, fmt.Sprintf("… (%d more)", 360-view.MaxListItems))
	assert.Equal(t, view.MaxListItems+1, strings.Count(line[strings.Index(line, "ranges:"):strings.Index(line, "intensities")], ","), "the items shown")
	var back struct {
		Ranges []float64 `json:"ranges"`
	}
	require.NoError(t, json.Unmarshal(view.ValueJSON(scan), &back))
	assert.Len(t, back.Ranges, 360)
	poses := make([]pose, 40)
	assert.Contains(t, view.Value(poses), "- … (8 more)")
}

// TestValueOfItself: a value that holds itself is written to a bounded
// depth, not forever.
func TestValueOfItself(t *testing.T) {
	type node struct{ Next any }
	n := &node{}
	n.Next = n
	assert.Contains(t, view.ValueLine(n), "…")
	assert.True(t, json.Valid(view.ValueJSON(n)))
}
