package master

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParamValuesRoundTrip(t *testing.T) {
	m := startTestMaster(t)
	tests := []struct {
		name  string
		value any
	}{
		{"bool", true},
		{"int", 42},
		{"negative int", -7},
		{"double", 0.25},
		{"string with markup", `<robot name="r&d"/>`},
		{"unicode string", "Roboter über Stock & Stein"},
		{"empty string", ""},
		{"list", []any{1, "two", 3.5, false}},
		{"nested dict", map[string]any{"gains": map[string]any{"p": 1.5, "i": 0}, "frames": []any{"map", "odom"}}},
		{"base64", []byte{0, 1, 2, 255}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			{
				code, _ := mustCall(t, m.URI(), "setParam", "/cfg", "/value", tc.value)
				require.Equal(t, 1, code, "setParam: code %d", code)
			}
			code, got := mustCall(t, m.URI(), "getParam", "/cfg", "/value")
			assert.Equal(t, 1, code, "getParam = [%d, _, %#v], want [1, _, %#v]", code, got, tc.value)
			assert.Equal(t, tc.value, got, "getParam = [%d, _, %#v], want [1, _, %#v]", code, got, tc.value)
		})
	}
}

// TestParamsWithGoroslibClient checks the typed values goroslib's own
// parameter client reads and writes.
func TestParamsWithGoroslibClient(t *testing.T) {
	m := startTestMaster(t)
	c := paramClient(t, m, "/robot1/controller")
	require.NoError(t, c.SetParamFloat64("max_speed", 0.8))
	require.NoError(t, c.SetParamInt("~rate", 20))
	require.NoError(t, c.SetParamBool("/use_sim_time", true))
	require.NoError(t, c.SetParamString("frame", "base_link"))
	other := paramClient(t, m, "/inspector")
	if v, err := other.GetParamFloat64("/robot1/max_speed"); assert.NoError(t, err, "/robot1/max_speed = %v, %v; want 0.8", v, err) {
		assert.Equal(t, 0.8, v, "/robot1/max_speed = %v, %v; want 0.8", v, err)
	}
	if v, err := other.GetParamInt("/robot1/controller/rate"); assert.NoError(t, err, "/robot1/controller/rate = %v, %v; want 20", v, err) {
		assert.Equal(t, 20, v, "/robot1/controller/rate = %v, %v; want 20", v, err)
	}
	if v, err := other.GetParamBool("/use_sim_time"); assert.NoError(t, err, "/use_sim_time = %v, %v; want true", v, err) {
		assert.True(t, v, "/use_sim_time = %v, %v; want true", v, err)
	}
	if v, err := c.GetParamString("frame"); assert.NoError(t, err, "frame = %q, %v; want base_link", v, err) {
		assert.Equal(t, "base_link", v, "frame = %q, %v; want base_link", v, err)
	}
	if ok, err := other.HasParam("/robot1/frame"); assert.NoError(t, err, "hasParam(/robot1/frame) = %v,", ok) {
		assert.True(t, ok, "hasParam(/robot1/frame) = %v, %v", ok, err)
	}
	names, err := other.GetParamNames()
	want := []string{"/robot1/controller/rate", "/robot1/frame", "/robot1/max_speed", "/use_sim_time"}
	assert.NoError(t, err, "getParamNames = %v, %v; want %v", names, err, want)
	assert.Equal(t, want, names, "getParamNames = %v, %v; want %v", names, err, want)
	require.NoError(t, other.DeleteParam("/robot1/frame"))
	err = other.DeleteParam("/robot1/frame")
	assert.Error(t, err, "deleting a missing parameter succeeded")
}

func TestParamNamespaces(t *testing.T) {
	tests := []struct {
		name  string
		sets  [][2]any // key, value, set in order by caller /cfg
		key   string
		want  any // nil: not set
		names []string
	}{
		{
			name:  "setting a dictionary sets the subtree",
			sets:  [][2]any{{"/robot", map[string]any{"speed": 1, "base": map[string]any{"radius": 0.2}}}},
			key:   "/robot/base/radius",
			want:  0.2,
			names: []string{"/robot/base/radius", "/robot/speed"},
		},
		{
			name: "getting a namespace returns a dictionary",
			sets: [][2]any{{"/robot/speed", 1}, {"/robot/base/radius", 0.2}},
			key:  "/robot",
			want: map[string]any{"speed": 1, "base": map[string]any{"radius": 0.2}},
		},
		{
			name:  "setting a dictionary replaces the namespace",
			sets:  [][2]any{{"/robot/speed", 1}, {"/robot/base/radius", 0.2}, {"/robot", map[string]any{"name": "r2"}}},
			key:   "/robot",
			want:  map[string]any{"name": "r2"},
			names: []string{"/robot/name"},
		},
		{
			name: "a value in the way becomes a namespace",
			sets: [][2]any{{"/robot", 5}, {"/robot/speed", 1}},
			key:  "/robot",
			want: map[string]any{"speed": 1},
		},
		{
			name: "a key below a value is not set",
			sets: [][2]any{{"/robot", 5}},
			key:  "/robot/speed",
			want: nil,
		},
		{
			name: "the root is the whole tree",
			sets: [][2]any{{"/a", 1}, {"/b/c", "x"}},
			key:  "/",
			want: map[string]any{"a": 1, "b": map[string]any{"c": "x"}},
		},
		{
			name:  "the root can be replaced by a dictionary",
			sets:  [][2]any{{"/a", 1}, {"/", map[string]any{"z": true}}},
			key:   "/",
			want:  map[string]any{"z": true},
			names: []string{"/z"},
		},
		{
			name: "an empty dictionary is an empty namespace",
			sets: [][2]any{{"/robot", map[string]any{}}},
			key:  "/robot",
			want: map[string]any{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := startTestMaster(t)
			for _, kv := range tc.sets {
				code, _ := mustCall(t, m.URI(), "setParam", "/cfg", kv[0], kv[1])
				require.Equal(t, 1, code, "setParam(%v): code %d", kv[0], code)
			}
			code, got := mustCall(t, m.URI(), "getParam", "/cfg", tc.key)
			switch {
			case tc.want == nil && code != -1:
				assert.Fail(t, fmt.Sprintf("getParam(%s) = [%d, _, %#v], want not set", tc.key, code, got))
			case tc.want != nil && (code != 1 || !reflect.DeepEqual(got, tc.want)):
				assert.Fail(t, fmt.Sprintf("getParam(%s) = [%d, _, %#v], want %#v", tc.key, code, got, tc.want))
			}
			if tc.names != nil {
				_, names := mustCall(t, m.URI(), "getParamNames", "/cfg")
				assert.Equal(t, toAnySlice(tc.names), names, "getParamNames = %v, want %v", names, tc.names)
			}
		})
	}
}

func TestParamKeyResolution(t *testing.T) {
	m := startTestMaster(t)
	tests := []struct {
		callerID, key, resolved string
	}{
		{"/robot1/planner", "speed", "/robot1/speed"},
		{"/robot1/planner", "~tolerance", "/robot1/planner/tolerance"},
		{"/robot1/planner", "/global_frame", "/global_frame"},
		{"/planner", "speed", "/speed"},
	}
	for _, tc := range tests {
		t.Run(tc.callerID+" "+tc.key, func(t *testing.T) {
			mustCall(t, m.URI(), "setParam", tc.callerID, tc.key, "v:"+tc.resolved)
			code, got := mustCall(t, m.URI(), "getParam", "/other", tc.resolved)
			assert.Equal(t, 1, code, "getParam(%s) = [%d, _, %v] after %s set %s", tc.resolved, code, got, tc.callerID, tc.key)
			assert.True(t, got == "v:"+tc.resolved, "getParam(%s) = [%d, _, %v] after %s set %s", tc.resolved, code, got, tc.callerID, tc.key)
			v, _ := rawCall(t, m.URI(), "hasParam", tc.callerID, tc.key)
			want := []any{1, tc.resolved, true}
			assert.Equal(t, want, v, "hasParam = %v, want %v", v, want)
		})
	}
}

func TestSearchParam(t *testing.T) {
	m := startTestMaster(t)
	for _, key := range []string{"/robot_description/arm", "/pr2/robot_description/base", "/pr2/arm/gripper/width"} {
		mustCall(t, m.URI(), "setParam", "/setup", key, 1)
	}
	tests := []struct {
		callerID, key, want string // want "" means not found
	}{
		{"/pr2/foo", "robot_description", "/pr2/robot_description"},
		{"/pr2/foo", "robot_description/arm", "/pr2/robot_description/arm"}, // not set, found by its first segment
		{"/other/foo", "robot_description", "/robot_description"},
		{"/foo", "robot_description/arm", "/robot_description/arm"},
		{"/pr2/arm", "gripper", "/pr2/arm/gripper"}, // the caller's own name is searched first
		{"/pr2/foo", "missing", ""},
		{"/pr2/foo", "/robot_description", "/robot_description"},
		{"/pr2/foo", "/missing", ""},
	}
	for _, tc := range tests {
		code, got := mustCall(t, m.URI(), "searchParam", tc.callerID, tc.key)
		switch {
		case tc.want == "" && code != -1:
			assert.Fail(t, fmt.Sprintf("searchParam(%s, %s) = [%d, _, %v], want not found", tc.callerID, tc.key, code, got))
		case tc.want != "" && (code != 1 || got != tc.want):
			assert.Fail(t, fmt.Sprintf("searchParam(%s, %s) = [%d, _, %v], want %s", tc.callerID, tc.key, code, got, tc.want))
		}
	}
}

func TestDeleteParam(t *testing.T) {
	tests := []struct {
		name, key string
		wantCode  int
		left      any
	}{
		{"a value", "/robot/speed", 1, map[string]any{"base": map[string]any{"radius": 0.2}}},
		{"a namespace", "/robot/base", 1, map[string]any{"speed": 1}},
		{"a missing key", "/robot/nothing", -1, map[string]any{"speed": 1, "base": map[string]any{"radius": 0.2}}},
		{"below a value", "/robot/speed/x", -1, map[string]any{"speed": 1, "base": map[string]any{"radius": 0.2}}},
		{"the root", "/", -1, map[string]any{"speed": 1, "base": map[string]any{"radius": 0.2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := startTestMaster(t)
			mustCall(t, m.URI(), "setParam", "/cfg", "/robot", map[string]any{"speed": 1, "base": map[string]any{"radius": 0.2}})
			code, _ := mustCall(t, m.URI(), "deleteParam", "/cfg", tc.key)
			assert.Equal(t, tc.wantCode, code, "deleteParam(%s): code %d, want %d", tc.key, code, tc.wantCode)
			_, left := mustCall(t, m.URI(), "getParam", "/cfg", "/robot")
			assert.Equal(t, tc.left, left, "/robot = %#v, want %#v", left, tc.left)
		})
	}
}

// TestSubscribeParam checks paramUpdate pushes to a node that subscribed to
// /robot/base: what it hears for each change made by another node.
func TestSubscribeParam(t *testing.T) {
	type heard struct {
		key   string
		value any
	}
	tests := []struct {
		name   string
		change func(t *testing.T, uri string)
		want   []heard
	}{
		{"its key is set", func(t *testing.T, uri string) {
			mustCall(t, uri, "setParam", "/tuner", "/robot/base", 3)
		}, []heard{{"/robot/base/", 3}}},
		{"a key inside its namespace is set", func(t *testing.T, uri string) {
			mustCall(t, uri, "setParam", "/tuner", "/robot/base/radius", 0.3)
		}, []heard{{"/robot/base/radius/", 0.3}}},
		{"a dictionary above it is set", func(t *testing.T, uri string) {
			mustCall(t, uri, "setParam", "/tuner", "/robot", map[string]any{"base": map[string]any{"radius": 0.4}})
		}, []heard{{"/robot/base/", map[string]any{"radius": 0.4}}}},
		{"a dictionary above it drops it", func(t *testing.T, uri string) {
			mustCall(t, uri, "setParam", "/tuner", "/robot", map[string]any{"arm": 1})
		}, []heard{{"/robot/base/", map[string]any{}}}},
		{"it is deleted", func(t *testing.T, uri string) {
			mustCall(t, uri, "deleteParam", "/tuner", "/robot/base")
		}, []heard{{"/robot/base/", map[string]any{}}}},
		{"a namespace above it is deleted", func(t *testing.T, uri string) {
			mustCall(t, uri, "deleteParam", "/tuner", "/robot")
		}, []heard{{"/robot/base/", map[string]any{}}}},
		{"a sibling is set", func(t *testing.T, uri string) {
			mustCall(t, uri, "setParam", "/tuner", "/robot/arm", 1)
		}, nil},
		{"it sets the key itself", func(t *testing.T, uri string) {
			mustCall(t, uri, "setParam", "/base_controller", "/robot/base/radius", 0.5)
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := startTestMaster(t)
			node := startParamNode(t)
			mustCall(t, m.URI(), "setParam", "/setup", "/robot/base/radius", 0.2)
			code, v := mustCall(t, m.URI(), "subscribeParam", "/base_controller", node.uri, "/robot/base")
			want := map[string]any{"radius": 0.2}
			require.Equal(t, 1, code, "subscribeParam = [%d, _, %#v], want [1, _, %#v]", code, v, want)
			require.Equal(t, want, v, "subscribeParam = [%d, _, %#v], want [1, _, %#v]", code, v, want)
			tc.change(t, m.URI())
			for _, w := range tc.want {
				c := node.next(t)
				want := []any{"/master", w.key, w.value}
				assert.Equal(t, "paramUpdate", c.method, "node got %s%#v, want paramUpdate%#v", c.method, c.params, want)
				assert.Equal(t, want, c.params, "node got %s%#v, want paramUpdate%#v", c.method, c.params, want)
			}
			node.none(t)
		})
	}

	t.Run("an unset key subscribes to an empty dictionary", func(t *testing.T) {
		m := startTestMaster(t)
		node := startParamNode(t)
		code, v := mustCall(t, m.URI(), "subscribeParam", "/base_controller", node.uri, "~gain")
		require.Equal(t, 1, code, "subscribeParam = [%d, _, %#v], want [1, _, {}]", code, v)
		require.Equal(t, map[string]any{}, v, "subscribeParam = [%d, _, %#v], want [1, _, {}]", code, v)
		mustCall(t, m.URI(), "setParam", "/tuner", "/base_controller/gain", 2)
		c := node.next(t)
		want := []any{"/master", "/base_controller/gain/", 2}
		assert.Equal(t, want, c.params, "node got %s%#v, want paramUpdate%#v", c.method, c.params, want)
	})
	t.Run("after unsubscribeParam nothing more is pushed", func(t *testing.T) {
		m := startTestMaster(t)
		node := startParamNode(t)
		mustCall(t, m.URI(), "subscribeParam", "/base_controller", node.uri, "/robot/base")
		code, n := mustCall(t, m.URI(), "unsubscribeParam", "/base_controller", node.uri, "/robot/base")
		assert.Equal(t, 1, code, "unsubscribeParam = [%d, _, %v], want [1, _, 1]", code, n)
		assert.True(t, n == 1, "unsubscribeParam = [%d, _, %v], want [1, _, 1]", code, n)
		mustCall(t, m.URI(), "setParam", "/tuner", "/robot/base", 1)
		node.none(t)
	})
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
