package runtime

import (
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	sleep := func(ms string) *NodeSpec { return N("Sleep", A("msec", ms)) }
	ms := time.Millisecond
	runNodeCases(t, []nodeCase{
		{name: "RUNNING until the deadline, then SUCCESS",
			tree: sleep("100"),
			steps: []step{
				timed(0, Running, ""), timed(99*ms, Running, ""), timed(1*ms, Success, ""),
				timed(0, Running, ""), timed(100*ms, Success, ""),
			}},
		{name: "msec 0 succeeds at once", tree: sleep("0"), steps: ticks(Success, "", Success, "")},
		{name: "a Sequence waits on it",
			tree: N("Sequence", nil, S("A", "S"), sleep("50"), S("B", "S")),
			steps: []step{
				timed(0, Running, "A"), timed(49*ms, Running, ""), timed(1*ms, Success, "B"),
			}},
		{name: "msec from the blackboard", tree: sleep("{nap}"), bb: map[string]any{"nap": "20"},
			steps: []step{timed(0, Running, ""), timed(20*ms, Success, "")}},
		{
			name: "the wait asks for a tick at its deadline",
			tree: sleep("100"),
			steps: []step{
				tick(Running, "").askingTick(100 * ms),
				tick(Running, "").after(60 * ms).askingTick(100 * ms),
			},
		},
		{
			name: "kept after its SUCCESS without a reset, it returns SUCCESS (a StatefulActionNode)",
			reg:  pipelineRegistry,
			tree: N("Pipeline", nil, sleep("100")),
			steps: []step{
				tick(Running, ""), tick(Success, "").after(100 * ms), tick(Success, "").after(time.Hour),
			},
		},
		{
			name: "halt cancels the wait; the next tick starts a new one",
			tree: sleep("100"),
			steps: []step{
				tick(Running, ""),
				halted("").after(90 * ms),
				tick(Running, "").after(20 * ms),
				tick(Running, "").after(90 * ms),
				tick(Success, "").after(10 * ms),
			},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "negative msec", tree: sleep("-1"), want: `MainTree/Sleep: port "msec" (uint): "-1" is not a non-negative integer that fits uint`},
		{name: "msec missing", tree: N("Sleep", nil), want: `MainTree/Sleep: missing required input port "msec" (uint): How long to wait, in milliseconds`},
	})
}
