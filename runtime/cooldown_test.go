package runtime

import (
	"testing"
	"time"
)

func TestCooldown(t *testing.T) {
	cd := func(period string, child *NodeSpec) *NodeSpec { return N("Cooldown", A("period", period), child) }
	ms := time.Millisecond
	runNodeCases(t, []nodeCase{
		{name: "after a run, FAILURE without ticking the child until the period has passed",
			tree: cd("1s", S("A", "S,F")),
			steps: []step{
				timed(0, Success, "A"),
				timed(0, Failure, ""),
				timed(999*ms, Failure, ""),
				timed(1*ms, Failure, "A"), // a failed run cools down too
				timed(500*ms, Failure, ""),
				timed(500*ms, Failure, "A"),
			}},
		{name: "a running child is ticked until it completes; the period counts from the end",
			tree: cd("100ms", S("A", "R,R,S")),
			steps: []step{
				timed(0, Running, "A"),
				timed(300*ms, Running, "A"),
				timed(300*ms, Success, "A"),
				timed(99*ms, Failure, ""),
				timed(1*ms, Success, "A"),
			}},
		{name: "a skipped child starts no cooldown", tree: cd("1s", S("A", "K,S")),
			steps: ticks(Skipped, "A", Success, "A", Failure, "")},
		{name: "period 0 never cools down", tree: cd("0", S("A", "S")),
			steps: ticks(Success, "A", Success, "A", Success, "A")},
		{name: "period in milliseconds, as BT.CPP writes durations", tree: cd("250", S("A", "S")),
			steps: []step{timed(0, Success, "A"), timed(249*ms, Failure, ""), timed(1*ms, Success, "A")}},
		{name: "a Fallback moves on to the alternative while cooling down",
			tree: N("Fallback", nil, cd("10s", S("Recover", "F")), S("Wait", "S")),
			steps: []step{
				timed(0, Success, "Recover Wait"),
				timed(time.Second, Success, "Wait"),
				timed(9*time.Second, Success, "Recover Wait"),
			}},
		{
			name: "a run cut short by a halt starts the cooldown",
			tree: cd("1s", S("A", "R")),
			steps: []step{
				tick(Running, "A"),
				halted("A!").after(200 * ms),
				tick(Failure, "").after(999 * ms),
				tick(Running, "A").after(1 * ms),
			},
		}, {
			name: "period is read when a run starts",
			tree: cd("{p}", S("A", "S")), bb: map[string]any{"p": "1s"},
			steps: []step{
				tick(Success, "A").writing("p", 2*time.Second),
				tick(Failure, "").after(1500 * ms),
				tick(Success, "A").after(500 * ms),
			},
		}})
	runBuildErrors(t, []buildErrorCase{
		{name: "negative period", tree: cd("-5", S("A", "S")), want: `MainTree/Cooldown: period is -5ms; want a duration >= 0`},
		{name: "period not a duration", tree: cd("soon", S("A", "S")), want: `MainTree/Cooldown: port "period" (time.Duration): "soon" is not a duration (write 1.5s, 200ms, or a number of milliseconds)`},
	})
}
