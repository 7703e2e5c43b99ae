package hil

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestParseReadsTheControllersFaultsTriggersAndMeasures: the faults of the
// controller's world, the blackboard triggers and the measured
// expectations arrive in the model as written.
func TestParseReadsTheControllersFaultsTriggersAndMeasures(t *testing.T) {
	s, err := Parse(file, []byte(base+`  - at_rest: {within: 1s, after: fault}
  - speed_near_obstacles: {max: 0.5, within: 0.4}
  - blackboard: {visits: 3, mode: "3", ok: true, gone: null}
  - no_errors: true
  - steady: {goroutines: 5, heap: 16MB, after: 10m}
  - period_stable: {entry: charges, tolerance: 0.2}
faults:
  - {at: 20s, master: shutdown}
  - {at: 21s, clock: stop}
  - {at: 22s, stall: 1500ms}
  - {when: {entry: battery_pct, below: 0.3}, battery: 0.1}
  - {when: {entry: mode, equals: idle}, move_base: stop}
  - {when: {entry: visits, at_least: 2}, clock: stop}
`))
	require.NoError(t, err)
	require.Len(t, s.Faults, 6)
	ctl := []ctlFault{{kind: "master"}, {kind: "clock"}, {kind: "stall", d: 1500 * time.Millisecond}}
	for i, want := range ctl {
		f := s.Faults[i]
		require.NotNil(t, f.ctl, "fault %d", i)
		assert.Equal(t, want, *f.ctl)
		assert.Nil(t, f.apply)
	}
	assert.Equal(t, "robot1", s.Faults[0].Robot, "the one robot's controller")
	assert.Equal(t, "", s.Faults[1].Robot, "the clock is the world's")
	conds := []EntryCondition{
		{Entry: "battery_pct", Op: "below", Value: Scalar{Kind: NumberScalar, Number: 0.3}},
		{Entry: "mode", Op: "equals", Value: Scalar{Kind: TextScalar, Text: "idle"}},
		{Entry: "visits", Op: "at_least", Value: Scalar{Kind: NumberScalar, Number: 2}},
	}
	for i, want := range conds {
		w := s.Faults[3+i].When
		require.NotNil(t, w)
		require.NotNil(t, w.Entry)
		assert.Equal(t, want, *w.Entry)
		assert.Equal(t, "robot1", w.Robot)
	}
	ex := s.Expect[1:]
	require.Len(t, ex, 6)
	assert.Equal(t, afterFault, ex[0].After)
	assert.Equal(t, measures{MaxSpeed: 0.5, Near: 0.4}, ex[1].More)
	assert.Equal(t, []EntryValue{
		{"visits", Scalar{Kind: NumberScalar, Number: 3}}, {"mode", Scalar{Kind: TextScalar, Text: "3"}},
		{"ok", Scalar{Kind: BoolScalar, Bool: true}}, {"gone", Scalar{}},
	}, ex[2].More.Entries)
	assert.Equal(t, "no_errors", ex[3].Kind)
	assert.Equal(t, measures{Goroutines: 5, Heap: 16e6, SteadyAfter: 10 * time.Minute}, ex[4].More)
	assert.Equal(t, "charges", ex[5].More.Entry)
	assert.InDelta(t, 0.2, ex[5].More.Tolerance, 1e-12)
}

// TestEntryConditionsAndValues: how a blackboard value, of the types the
// blackboard has, meets each condition and each expected value.
func TestEntryConditionsAndValues(t *testing.T) {
	num := func(f float64) Scalar { return Scalar{Kind: NumberScalar, Number: f} }
	text := func(s string) Scalar { return Scalar{Kind: TextScalar, Text: s} }
	cases := []struct {
		name    string
		cond    EntryCondition
		got     any
		present bool
		want    bool
	}{
		{"below, an int", EntryCondition{Op: "below", Value: num(3)}, 2, true, true},
		{"below, equal", EntryCondition{Op: "below", Value: num(3)}, 3.0, true, false},
		{"at_least, equal", EntryCondition{Op: "at_least", Value: num(3)}, uint64(3), true, true},
		{"at_most", EntryCondition{Op: "at_most", Value: num(3)}, 4, true, false},
		{"above", EntryCondition{Op: "above", Value: num(0.5)}, float32(0.75), true, true},
		{"a number on text", EntryCondition{Op: "above", Value: num(0)}, "5", true, false},
		{"no entry", EntryCondition{Op: "below", Value: num(3)}, nil, false, false},
		{"equals a number", EntryCondition{Op: "equals", Value: num(2)}, int64(2), true, true},
		{"equals text, on a number", EntryCondition{Op: "equals", Value: text("2")}, 2, true, false},
		{"equals text", EntryCondition{Op: "equals", Value: text("idle")}, "idle", true, true},
		{"equals a bool", EntryCondition{Op: "equals", Value: Scalar{Kind: BoolScalar, Bool: false}}, false, true, true},
		{"equals a bool, on text", EntryCondition{Op: "equals", Value: Scalar{Kind: BoolScalar}}, "false", true, false},
		{"equals null: no entry", EntryCondition{Op: "equals", Value: Scalar{}}, nil, false, true},
		{"equals null, an entry", EntryCondition{Op: "equals", Value: Scalar{}}, 0, true, false},
		{"equals text, a printed value", EntryCondition{Op: "equals", Value: text("RUNNING")}, runtime.Running, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.cond.holds(tc.got, tc.present))
		})
	}
}

// TestParseErrorsOfTheNewKinds: every refused configuration of the
// controller's faults, the blackboard triggers and the measured
// expectations, at its line and column, saying what would be right.
func TestParseErrorsOfTheNewKinds(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string // appended to base
		want []string
	}{
		{"master: not shutdown", "faults: [{at: 1s, master: kill}]", []string{`:9:27: faults[0].master: want shutdown (the master shuts the controller down), got "kill"`}},
		{"clock: not stop", "faults: [{at: 1s, clock: slow}]", []string{`:9:26: faults[0].clock: want stop (/clock stops for good), got "slow"`}},
		{"stall: not a duration", "faults: [{at: 1s, stall: long}]", []string{`:9:26: faults[0].stall: want a duration such as 30s, 2m or 500ms, got "long"`}},
		{"stall: too long", "faults: [{at: 1s, stall: 2m}]", []string{":9:26: faults[0].stall: want a stall of at most 1m0s, got 2m"}},
		{"stall: zero", "faults: [{at: 1s, stall: 0s}]", []string{":9:26: faults[0].stall: want a duration in (0, 24h, got 0s"}},
		{"clock given a robot", "faults: [{at: 1s, robot: robot1, clock: stop}]", []string{":9:26: faults[0].robot: clock strikes the world, not a robot"}},
		{"entry: two conditions", "faults: [{when: {entry: a, below: 1, above: 0}, battery: 0.1}]", []string{":9:45: faults[0].when.above: a second condition (below was given)"}},
		{"entry: no condition", "faults: [{when: {entry: a}, battery: 0.1}]", []string{":9:17: faults[0].when: want entry: a blackboard entry, one of equals, at_least, at_most, above, below"}},
		{"entry: text to compare", "faults: [{when: {entry: a, below: low}, battery: 0.1}]", []string{`:9:35: faults[0].when.below: want a number to compare with, got "low"`}},
		{"entry and node", "faults: [{when: {entry: a, node: b, below: 1}, battery: 0.1}]", []string{":9:34: faults[0].when.node: node belongs to a node trigger"}},
		{"node and a condition", "faults: [{when: {node: b, reaches: RUNNING, below: 1}, battery: 0.1}]", []string{":9:52: faults[0].when.below: below belongs to a blackboard trigger"}},
		{"entry: a list", "faults: [{when: {entry: a, equals: [1]}, battery: 0.1}]", []string{":9:36: faults[0].when.equals: want a number, true, false, text or null, got a list"}},
		{"entry: not a key", "faults: [{when: {entry: 'a b', below: 1}, battery: 0.1}]", []string{`:9:25: faults[0].when.entry: "a b" is not a blackboard key`}},
		{"at_rest after: a word", "  - at_rest: {within: 1s, after: crash}", []string{`:9:34: expect[1].at_rest.after: want a duration such as 30s, 2m or 500ms, got "crash"`}},
		{"speed: no within", "  - speed_near_obstacles: {max: 0.5}", []string{":9:27: expect[1].speed_near_obstacles: want max: the fastest allowed (m/s) and within: how near an obstacle (m)"}},
		{"speed: too fast", "  - speed_near_obstacles: {max: 50, within: 1}", []string{":9:33: expect[1].speed_near_obstacles.max: want a speed in (0, 10] m/s, got 50"}},
		{"speed: unknown key", "  - speed_near_obstacles: {max: 1, near: 1}", []string{":9:27: expect[1].speed_near_obstacles: want max:", `:9:36: expect[1].speed_near_obstacles: unknown key "near"; want one of max, within`}},
		{"blackboard: empty", "  - blackboard: {}", []string{":9:17: expect[1].blackboard: want a mapping of entries and their values at the end ({visits: 3}), got a mapping"}},
		{"blackboard: a list value", "  - blackboard: {a: [1]}", []string{":9:21: expect[1].blackboard.a: want a number, true, false, text or null, got a list"}},
		{"blackboard: twice", "  - blackboard: {a: 1, a: 2}", []string{":9:24: expect[1].blackboard.a: given twice"}},
		{"no_errors: false", "  - no_errors: false", []string{`:9:16: expect[1].no_errors: want true (the controller logged no error), got "false"`}},
		{"steady: nothing to judge", "  - steady: {after: 1m}", []string{":9:13: expect[1].steady: want goroutines:"}},
		{"steady: bad heap", "  - steady: {heap: 12XB}", []string{`:9:20: expect[1].steady.heap: want a size such as 16MB, 512KiB or 1GB, got "12XB"`}},
		{"steady: bad count", "  - steady: {goroutines: -2}", []string{":9:26: expect[1].steady.goroutines: want a whole number ≥ 0, got -2"}},
		{"period_stable: no entry", "  - period_stable: {tolerance: 0.1}", []string{":9:20: expect[1].period_stable: want entry:"}},
		{"period_stable: bad tolerance", "  - period_stable: {entry: c, tolerance: 2}", []string{":9:42: expect[1].period_stable.tolerance: want a fraction in (0, 1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(file, []byte(base+tc.doc))
			require.Error(t, err)
			var list runtime.ErrorList
			require.ErrorAs(t, err, &list)
			require.Len(t, list, len(tc.want), "%v", err)
			for i, w := range tc.want {
				assert.Contains(t, list[i].Error(), file+w)
			}
		})
	}
}
