package runtime

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlackboardTyping(t *testing.T) {
	type step struct {
		op      string // set, assign, create, declare
		key     string
		value   any
		typ     reflect.Type
		wantErr string // substring; "" means success
	}
	intT, strT := reflect.TypeFor[int](), reflect.TypeFor[string]()
	cases := []struct {
		name  string
		steps []step
		want  map[string]any
	}{
		{"first write fixes the type", []step{
			{op: "set", key: "n", value: 3},
			{op: "set", key: "n", value: "not a number", wantErr: `blackboard entry "n" holds int; cannot write string "not a number"`},
			{op: "set", key: "n", value: true, wantErr: `holds int; cannot write bool`},
		}, map[string]any{"n": 3}},
		{"a string parses into a typed entry", []step{
			{op: "set", key: "n", value: 3},
			{op: "set", key: "n", value: "42"},
		}, map[string]any{"n": 42}},
		{"numbers convert only when exact", []step{
			{op: "set", key: "n", value: 3},
			{op: "set", key: "n", value: 4.0},
			{op: "set", key: "n", value: 4.5, wantErr: "fractional part"},
			{op: "set", key: "x", value: 1.5},
			{op: "set", key: "x", value: 2},
		}, map[string]any{"n": 4, "x": 2.0}},
		{"a first string write stays weakly typed, a second fixes it", []step{
			{op: "set", key: "s", value: "hello"},
			{op: "set", key: "s", value: 7},
			{op: "set", key: "s", value: "8"},
		}, map[string]any{"s": 8}},
		{"script := creates, = needs the entry", []step{
			{op: "assign", key: "a", value: 1, wantErr: `unknown variable "a": the blackboard has no such entry yet (use := to create it)`},
			{op: "create", key: "a", value: 1},
			{op: "assign", key: "a", value: 2.0},
			{op: "assign", key: "a", value: 2.5, wantErr: `cannot assign float64 2.5 to blackboard entry "a" of type int`},
		}, map[string]any{"a": 2}},
		{"a declared port type fixes the entry before any write", []step{
			{op: "declare", key: "goal", typ: intT},
			{op: "declare", key: "goal", typ: strT, wantErr: `blackboard entry "goal" is declared as int; cannot declare it again as string`},
			{op: "set", key: "goal", value: "12"},
		}, map[string]any{"goal": 12}},
		{"a string entry accepts ports of any type", []step{
			{op: "declare", key: "text", typ: strT},
			{op: "declare", key: "text", typ: intT},
		}, map[string]any{}},
		{"@ names the root", []step{
			{op: "set", key: "@root_key", value: 1},
			{op: "declare", key: "@a@b", wantErr: "'@' may appear only once"},
		}, map[string]any{"root_key": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bb := NewBlackboard(nil)
			for i, s := range tc.steps {
				var err error
				switch s.op {
				case "set":
					err = bb.Set(s.key, s.value)
				case "assign":
					err = bb.Assign(s.key, s.value, false)
				case "create":
					err = bb.Assign(s.key, s.value, true)
				case "declare":
					_, err = bb.Declare(s.key, s.typ)
				}
				if s.wantErr == "" {
					require.NoError(t, err, "step %d (%s %s)", i+1, s.op, s.key)
				} else {
					require.ErrorContains(t, err, s.wantErr, "step %d (%s %s)", i+1, s.op, s.key)
				}
			}
			got := bb.Snapshot()
			require.Equal(t, tc.want, got, "blackboard %v, want %v", got, tc.want)
		})
	}
}

func TestBlackboardScopes(t *testing.T) {
	root := NewBlackboard(nil)
	must := func(err error) {
		t.Helper()
		require.NoError(t, err)
	}
	must(root.Set("pose", "dock"))
	must(root.Set("speed", 0.5))

	// Explicit remapping: the child's "target" is the parent's "pose".
	child := root.NewChild(map[string]string{"target": "pose"}, false)
	v, _ := child.Get("target")
	require.Equal(t, "dock", v, "remapped read = %v, want dock", v)
	_, ok := child.Get("speed")
	require.False(t, ok, "without _autoremap the parent's keys must not be visible")
	must(child.Set("target", "kitchen"))
	v, _ = root.Get("pose")
	require.Equal(t, "kitchen", v, "remapped write reached the parent as %v", v)
	must(child.Set("local", 1))
	_, ok = root.Get("local")
	require.False(t, ok, "a local key leaked into the parent")

	// Auto-remapping: every non-private key resolves in the parent.
	auto := root.NewChild(nil, true)
	v, _ = auto.Get("speed")
	require.Equal(t, 0.5, v, "autoremapped read = %v", v)
	must(auto.Set("created_in_parent", true))
	v, _ = root.Get("created_in_parent")
	require.Equal(t, true, v, "an autoremapped write must create the entry in the parent, as BT.CPP does")
	must(auto.Set("_private", 1))
	_, ok = root.Get("_private")
	require.False(t, ok, "keys starting with '_' are never autoremapped")

	// '@' reaches the root from any depth.
	grandchild := child.NewChild(nil, false)
	must(grandchild.Set("@from_deep", 7))
	v, _ = root.Get("from_deep")
	require.Equal(t, 7, v, "@key must write the root blackboard")
	v, _ = grandchild.Get("@speed")
	require.Equal(t, 0.5, v, "@key must read the root blackboard")

	// Unset is local, as in BT.CPP: remapped and '@' keys are left alone.
	grandchild.Unset("@from_deep")
	child.Unset("target")
	_, ok = root.Get("from_deep")
	require.True(t, ok, "Unset(@key) must not reach the root")
	_, ok = root.Get("pose")
	require.True(t, ok, "Unset of a remapped key must not reach the parent")
	child.Unset("local")
	_, ok = child.Get("local")
	require.False(t, ok, "Unset must remove a local key")
}

func TestBlackboardEntryStampsAndSequence(t *testing.T) {
	clock := NewManualClock(testEpoch)
	bb := NewBlackboard(clock.Now)
	err := bb.Set("x", 1)
	require.NoError(t, err)
	clock.Advance(time.Second)
	err = bb.Set("x", 2)
	require.NoError(t, err)
	v, seq, stamp := bb.Entry("x").Load()
	require.Equal(t, 2, v, "entry = %v seq %d at %v; want 2, seq 2, at epoch+1s", v, seq, stamp)
	require.Equal(t, uint64(2), seq, "entry = %v seq %d at %v; want 2, seq 2, at epoch+1s", v, seq, stamp)
	require.True(t, stamp.Equal(testEpoch.Add(time.Second)), "entry = %v seq %d at %v; want 2, seq 2, at epoch+1s", v, seq, stamp)
	err = bb.Set("x", nil)
	require.Error(t, err, "writing nil must be an error")
}

func TestBlackboardJSONAndConcurrency(t *testing.T) {
	bb := NewBlackboard(nil)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				if !assert.NoError(t, bb.Set("counter", i)) {
					return
				}
				bb.Get("counter")
				bb.Set("w"+string(rune('a'+w)), "on")
			}
		}(w)
	}
	wg.Wait()
	seq := bb.Entry("counter").Seq()
	require.Equal(t, uint64(8*500), seq, "sequence %d, want %d writes", seq, 8*500)
	data, err := json.Marshal(bb)
	require.NoError(t, err)
	var back map[string]any
	err = json.Unmarshal(data, &back)
	require.NoError(t, err, "JSON export %s (%v)", data, err)
	require.Len(t, back, 9, "JSON export %s (%v)", data, err)
	require.Equal(t, "on", back["wa"], "JSON export %s (%v)", data, err)
}
