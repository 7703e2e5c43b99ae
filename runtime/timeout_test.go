package runtime

import (
	"testing"
	"time"
)

func TestTimeout(t *testing.T) {
	to := func(ms string, child *NodeSpec) *NodeSpec { return N("Timeout", A("msec", ms), child) }
	ms := time.Millisecond
	runNodeCases(t, []nodeCase{
		{name: "a child still RUNNING at the deadline is halted and the node fails",
			tree: to("100", S("A", "R")),
			steps: []step{
				timed(0, Running, "A"),
				timed(50*ms, Running, "A"),
				timed(50*ms, Failure, "A!"),
				timed(0, Running, "A"), // a new run, a new timer
				timed(99*ms, Running, "A"),
				timed(1*ms, Failure, "A!"),
			}},
		{name: "a child that completes in time passes its status on",
			tree: to("100", S("A", "R,S,R,F")),
			steps: []step{
				timed(0, Running, "A"),
				timed(99*ms, Success, "A"),
				timed(50*ms, Running, "A"),
				timed(99*ms, Failure, "A"),
			}},
		{name: "a synchronous child never sees the timer",
			tree:  to("100", S("A", "S,F")),
			steps: []step{timed(0, Success, "A"), timed(time.Hour, Failure, "A")}},
		{name: "msec 0 never times out",
			tree:  to("0", S("A", "R")),
			steps: []step{timed(0, Running, "A"), timed(time.Hour, Running, "A")}},
		{name: "the timer fires once: a child not RUNNING then is not timed out later",
			tree: to("100", S("A", "K,R")),
			steps: []step{
				timed(0, Skipped, "A"),
				timed(100*ms, Running, "A"),
				timed(time.Hour, Running, "A"),
			}},
		{name: "msec from the blackboard", tree: to("{limit}", S("A", "R")), bb: map[string]any{"limit": 20},
			steps: []step{timed(0, Running, "A"), timed(20*ms, Failure, "A!")}},
		{
			name: "while the child runs the node asks for a tick at the deadline",
			tree: to("100", S("A", "R")),
			steps: []step{
				tick(Running, "A").askingTick(100 * ms),
				tick(Running, "A").after(30 * ms).askingTick(100 * ms),
			},
		},
		{
			name: "halt stops the timer: the next run gets a full period",
			tree: to("100", S("A", "R")),
			steps: []step{
				tick(Running, "A"),
				halted("A!").after(90 * ms),
				tick(Running, "A"),
				tick(Running, "A").after(90 * ms),
				tick(Failure, "A!").after(10 * ms),
			},
		},
		{
			name:  "an unset msec entry is a tick error",
			tree:  to("{limit}", S("A", "R")),
			steps: []step{fails(`MainTree/Timeout (Timeout): input port "msec": blackboard entry "limit" is not set`)},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "negative msec", tree: to("-1", S("A", "R")), want: `MainTree/Timeout: port "msec" (uint): "-1" is not a non-negative integer that fits uint`},
		{name: "msec too large for a duration", tree: to("18446744073709551615", S("A", "R")), want: `MainTree/Timeout: msec is 18446744073709551615 ms, more than a time.Duration holds (9223372036854 ms)`},
		{name: "msec missing", tree: N("Timeout", nil, S("A", "R")), want: `MainTree/Timeout: missing required input port "msec" (uint): After a certain amount of time, halt() the child if it is still running.`},
	})
}
