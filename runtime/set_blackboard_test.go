package runtime

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type pose2D struct{ X, Y float64 }

func TestSetBlackboard(t *testing.T) {
	set := func(value, key string) *NodeSpec { return N("SetBlackboard", A("value", value, "output_key", key)) }
	entryType := func(key string, want reflect.Type) func(*testing.T, *Tree) {
		return func(t *testing.T, tree *Tree) {
			e := tree.Blackboard().Entry(key)
			require.NotNil(t, e, "no entry %q", key)
			got := e.Type()
			assert.Equal(t, want, got, "entry %q has type %v, want %v", key, got, want)
		}
	}
	runNodeCases(t, []nodeCase{
		{
			name:   "a literal is written as a string entry",
			tree:   set("42", "answer"),
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"answer": "42"},
			check:  entryType("answer", reflect.TypeFor[string]()),
		},
		{
			name:   "a typed destination receives the text parsed as its type",
			tree:   set("42", "answer"),
			bb:     map[string]any{"answer": 7},
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"answer": 42},
		},
		{
			// BT.CPP erases such an entry, then throws on the next write (a
			// quirk, trees/testdata/differential/set_blackboard_over_script_key).
			name:   "an entry a script created takes the text as the type of its value",
			tree:   N("Sequence", nil, N("Script", A("code", "n := 1")), set("7", "n"), N("Script", A("code", "n += 1"))),
			steps:  []step{tick(Success, ""), tick(Success, "")},
			wantBB: map[string]any{"n": 8},
		},
		{
			name:  "text that does not parse as the destination's type is an error",
			tree:  set("lots", "answer"),
			bb:    map[string]any{"answer": 7},
			steps: []step{fails(`MainTree/SetBlackboard (SetBlackboard): cannot write "lots" into blackboard entry "answer" of type int: "lots" is not an integer that fits int`)},
		},
		{
			name:   "{src} copies the value and its type into a new entry",
			tree:   set("{home}", "goal"),
			bb:     map[string]any{"home": pose2D{1, 2}},
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"goal": pose2D{1, 2}},
			check:  entryType("goal", reflect.TypeFor[pose2D]()),
		},
		{
			name:  "{src} into an entry of another type is an error",
			tree:  set("{name}", "goal"),
			bb:    map[string]any{"name": "dock", "goal": pose2D{1, 2}},
			steps: []step{fails(`MainTree/SetBlackboard (SetBlackboard): cannot write "dock" into blackboard entry "goal" of type runtime.pose2D: no conversion from text to runtime.pose2D (implement encoding.TextUnmarshaler on it)`)},
		},
		{
			name:   "{src} holding text parses into a typed destination",
			tree:   set("{text}", "speed"),
			bb:     map[string]any{"text": "0.5", "speed": 1.0},
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"speed": 0.5},
		},
		{
			name:  "an empty {src} fails without writing",
			tree:  set("{nothing}", "goal"),
			steps: []step{tick(Failure, "")},
			check: func(t *testing.T, tree *Tree) {
				_, ok := tree.Blackboard().Get("goal")
				assert.False(t, ok, "goal was written")
			},
		},
		{
			name:   "output_key names the entry: writing twice overwrites",
			tree:   N("Sequence", nil, set("1", "n"), set("2", "n")),
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"n": "2"},
		},
		{
			// BT.CPP reads output_key as a string port: {k} is an indirection.
			name:   "output_key {k} writes into the entry whose name k holds",
			tree:   set("on", "{k}"),
			bb:     map[string]any{"k": "lamp"},
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"lamp": "on", "k": "lamp"},
		},
		{
			name:  "output_key {k} with k unset is a tick error",
			tree:  set("on", "{k}"),
			steps: []step{fails(`MainTree/SetBlackboard (SetBlackboard): input port "output_key": blackboard entry "k" is not set`)},
		},
		{
			name:   "@key writes the root blackboard",
			tree:   set("x", "@flag"),
			steps:  []step{tick(Success, "")},
			wantBB: map[string]any{"flag": "x"},
		},
		{
			name:   "a string entry written by SetBlackboard reads as a number through a typed port",
			tree:   N("Sequence", nil, set("3", "n"), N("Repeat", A("num_cycles", "{n}"), S("A", "S"))),
			steps:  []step{tick(Running, "A"), tick(Running, "A"), tick(Success, "A")},
			wantBB: map[string]any{"n": 3},
		},
		{
			name: "each write bumps the entry's sequence number",
			tree: set("{src}", "dst"),
			bb:   map[string]any{"src": 1},
			steps: []step{
				tick(Success, ""), tick(Success, ""),
			},
			check: func(t *testing.T, tree *Tree) {
				seq := tree.Blackboard().Entry("dst").Seq()
				assert.Equal(t, uint64(2), seq, "seq %d, want 2", seq)
			},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "value missing", tree: N("SetBlackboard", A("output_key", "k")), want: `MainTree/SetBlackboard: missing required input port "value" (any): Value to be written into the output_key`},
		{name: "output_key missing", tree: N("SetBlackboard", A("value", "1")), want: `MainTree/SetBlackboard: missing required input port "output_key" (any): Name of the blackboard entry where the value should be written`},
	})
}
