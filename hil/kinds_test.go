package hil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestEachKindPassesAndFails: for every kind of fault (and trigger), a
// scenario in testdata/ whose expectations hold because the fault did what
// it says, and one whose expectation fails because of it; for every kind of
// expectation added beside expect.go's, a failing scenario too (the
// passing one for all kinds is pass_expectations; expect.go's own kinds
// fail in TestEachExpectationCanFail). A failure is reported with what was
// measured, at the expectation's line.
func TestEachKindPassesAndFails(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	cases := []struct {
		kind, file string
		pass       bool
		failed     string // the failing expectation's kind
		measured   string // a verdict's Measured holds it (the failing one's, or any when passing)
	}{
		// The faults of the controller's world: the robot at rest soon
		// after the fault (1.5 s of wall time: they play out at real time,
		// on a machine the whole suite loads), stopped by the controller's
		// fail-safe; with the default 2 s clock_timeout, later than 1 s.
		{"master", "pass_master", true, "", "at rest "},
		// The simulator runs at real time while the controller meets its
		// fault, so when after 5 s it aborts is the machine's business; why
		// is not. A failed or aborted outcome's verdict says why (the
		// explanation's leaf, or the error).
		{"master", "fail_master", false, "outcome", "s: shut down by the master"},
		{"clock", "pass_clock", true, "", "at rest "},
		{"clock", "fail_clock", false, "at_rest", "at rest "},
		{"stall", "pass_stall", true, "", "reached FAILURE at "},
		{"stall", "fail_stall", false, "outcome", "FAILURE: going to kitchen: the goal of /robot1/move_base was cancelled: the controller stalled (the watchdog)"},
		// The simulator's faults.
		{"battery", "pass_battery", true, "", "lowest 2"},
		{"battery", "fail_battery_never_below", false, "battery_never_below", "lowest 2"},
		{"obstacle", "pass_obstacle", true, "", "reached FAILURE at "},
		{"obstacle", "fail_obstacle", false, "visits", "never kitchen"},
		{"clear_obstacle", "pass_clear_obstacle", true, "", "kitchen at "},
		{"clear_obstacle", "fail_clear_obstacle", false, "node", "never reached FAILURE"},
		{"move_base stop", "pass_move_base", true, "", "failed at "},
		{"move_base stop", "fail_move_base", false, "outcome", "s: Errand/errand/to_kitchen (NavigateTo) FAILURE: /robot1/move_base aborted the goal to kitchen"},
		{"move_base restart", "pass_restart", true, "", "visits reached 2"},
		{"move_base restart", "fail_restart", false, "outcome", "visits reached 2"},
		{"freeze", "pass_freeze", true, "", "at rest "},
		{"freeze", "fail_at_rest", false, "at_rest", "at rest "},
		{"unfreeze", "pass_unfreeze", true, "", "kitchen at "},
		{"unfreeze", "fail_unfreeze", false, "at_rest", "at rest "},
		{"delay", "pass_delay", true, "", "at rest "},
		{"delay", "fail_collisions_at_most", false, "collisions_at_most", "1 collisions"},
		{"stall_wheel", "pass_stall_wheel", true, "", "failed at "},
		{"stall_wheel", "fail_stall_wheel", false, "visits", "never kitchen"},
		{"free_wheel", "pass_free_wheel", true, "", "kitchen at "},
		{"free_wheel", "fail_free_wheel", false, "at_rest", "at rest "},
		// The triggers.
		{"near", "pass_near", true, "", "lowest 9"},
		{"near", "fail_near", false, "battery_never_below", "lowest 9"},
		{"when node", "pass_when_node", true, "", "failed at "},
		{"when node", "fail_when_node", false, "outcome", "s: Errand/errand/to_kitchen (NavigateTo) FAILURE: "},
		{"when entry", "pass_when_entry", true, "", "failed at "},
		{"when entry", "fail_when_entry", false, "outcome", "s: Errand/errand/to_kitchen (NavigateTo) FAILURE: "},
		// A mission with BehaviorTree.CPP substitution rules: the
		// navigation a test node, the robot still.
		{"substitute", "pass_substitute", true, "", "robot1 at "},
		{"substitute", "fail_substitute", false, "visits", "never kitchen"},
		// The expectations.
		{"every expectation", "pass_expectations", true, "", "no error logged"},
		{"speed_near_obstacles", "fail_speed_near_obstacles", false, "speed_near_obstacles", " m from an obstacle, at ("},
		{"blackboard", "fail_blackboard", false, "blackboard", `rounds = 2 (int), want "2"; note = no entry, want "hi"`},
		{"no_errors", "fail_no_errors", false, "no_errors", "shut down by the master"},
		{"steady", "fail_steady", false, "steady", "too short to judge"},
		{"period_stable", "pass_period_stable", true, "", "periods of visits, median "},
		{"period_stable", "fail_period_stable", false, "period_stable", "% off at most"},
	}
	for _, tc := range cases {
		t.Run(tc.kind+"/"+tc.file, func(t *testing.T) {
			res := runParallelUnlessRealTime(t, "testdata/"+tc.file+".scenario.yaml", "")
			require.NotEmpty(t, res.Verdicts)
			if tc.pass {
				measured := ""
				for _, v := range res.Verdicts {
					assert.True(t, v.Pass, "%s", v)
					measured += v.Measured + "\n"
				}
				assert.Contains(t, measured, tc.measured)
				return
			}
			failed := res.Failed()
			require.Len(t, failed, 1, "%v", res.Verdicts)
			v := failed[0]
			assert.Equal(t, tc.failed, v.Expectation.Kind)
			assert.Contains(t, v.Measured, tc.measured)
			assert.Contains(t, v.String(), tc.file+".scenario.yaml:")
			assert.Contains(t, v.String(), ": failed: ")
		})
	}
}
