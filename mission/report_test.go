package mission

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/btrobot/btrobot/runtime"
)

// TestReportSummary: one line per way a run ends; the controller's stalls
// are said only when there were some.
func TestReportSummary(t *testing.T) {
	const stop = "zero velocity sent on /robot1/cmd_vel"
	cases := []struct {
		name string
		rep  Report
		want string
	}{
		{
			name: "succeeded",
			rep:  Report{Outcome: Succeeded, Stats: runtime.LoopStats{Ticks: 3}, Wall: 150 * time.Millisecond, Stop: stop},
			want: "mission succeeded after 3 ticks (150ms); " + stop,
		},
		{
			name: "failed after one tick",
			rep:  Report{Outcome: Failed, Stats: runtime.LoopStats{Ticks: 1}, Wall: 50 * time.Millisecond, Stop: stop},
			want: "mission failed after 1 tick (50ms); " + stop,
		},
		{
			name: "interrupted",
			rep:  Report{Outcome: Stopped, Why: "interrupted by SIGINT", Stats: runtime.LoopStats{Ticks: 812}, Wall: 40600 * time.Millisecond, Stop: stop},
			want: "interrupted by SIGINT after 812 ticks (40.6s): tree halted; " + stop,
		},
		{
			name: "aborted",
			rep:  Report{Outcome: Aborted, Err: errors.New("/clock stopped 2.0 s ago"), Stats: runtime.LoopStats{Ticks: 9}, Wall: time.Second, Stop: stop},
			want: "mission aborted after 9 ticks (1s): /clock stopped 2.0 s ago; tree halted; " + stop,
		},
		{
			name: "one stall",
			rep: Report{Outcome: Succeeded, Stats: runtime.LoopStats{Ticks: 1303, Stalls: 1, LongestStall: 5016 * time.Millisecond},
				Wall: 70200 * time.Millisecond, Stop: stop},
			want: "mission succeeded after 1303 ticks (1m10.2s) and 1 stall (5.02s); " + stop,
		},
		{
			name: "stalls",
			rep: Report{Outcome: Stopped, Why: "interrupted by SIGTERM", Stats: runtime.LoopStats{Ticks: 40, Stalls: 3, LongestStall: 301 * time.Millisecond},
				Wall: 9 * time.Second, Stop: stop},
			want: "interrupted by SIGTERM after 40 ticks (9s) and 3 stalls (longest 300ms): tree halted; " + stop,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.rep.Summary())
		})
	}
}

// TestWriteEndSaysWhy: a failed mission's end is followed by why, one
// node a line, indented by depth; other endings print no why.
func TestWriteEndSaysWhy(t *testing.T) {
	chain := []runtime.Cause{
		{Path: "Patrol/patrol", Type: "Sequence", Status: runtime.Failure},
		{Path: "Patrol/patrol/while_powered/battery_ok", Type: "BatteryAbove", Status: runtime.Failure, Reason: "battery 10% is not above 15%"},
	}
	failed := Report{Outcome: Failed, Explanation: chain, Stop: "zero velocity sent on /robot1/cmd_vel"}
	for _, tc := range []struct {
		name  string
		rep   Report
		quiet bool
		want  string
	}{
		{"a failure, after the live view", failed, false, "why:\n" +
			"  Patrol/patrol (Sequence) FAILURE\n" +
			"    Patrol/patrol/while_powered/battery_ok (BatteryAbove) FAILURE: battery 10% is not above 15%\n"},
		{"a failure, quiet", failed, true, "mission failed after 0 ticks (0s); zero velocity sent on /robot1/cmd_vel\nwhy:\n" +
			"  Patrol/patrol (Sequence) FAILURE\n" +
			"    Patrol/patrol/while_powered/battery_ok (BatteryAbove) FAILURE: battery 10% is not above 15%\n"},
		{"a success", Report{Outcome: Succeeded, Explanation: chain[:1]}, false, ""},
		{"an interruption", Report{Outcome: Stopped, Why: "interrupted by SIGINT", Explanation: chain}, false, ""},
		{"a failure with nothing to explain", Report{Outcome: Failed}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.rep.WriteEnd(&b, tc.quiet)
			assert.Equal(t, tc.want, b.String())
		})
	}
}
