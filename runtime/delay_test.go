package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDelay(t *testing.T) {
	delay := func(ms string, child *NodeSpec) *NodeSpec { return N("Delay", A("delay_msec", ms), child) }
	ms := time.Millisecond
	runNodeCases(t, []nodeCase{
		{name: "RUNNING until the deadline, then the child's status; a new delay each run",
			tree: delay("100", S("A", "S,F")),
			steps: []step{
				timed(0, Running, ""),
				timed(99*ms, Running, ""),
				timed(1*ms, Success, "A"),
				timed(0, Running, ""),
				timed(100*ms, Failure, "A"),
			}},
		{name: "a RUNNING child is ticked on every tick after the delay",
			tree: delay("100", S("A", "R,R,S")),
			steps: []step{
				timed(0, Running, ""),
				timed(100*ms, Running, "A"),
				timed(0, Running, "A"),
				timed(0, Success, "A"),
			}},
		{name: "a skipped child is ticked again on the next tick, without a new delay",
			tree: delay("100", S("A", "K,S")),
			steps: []step{
				timed(0, Running, ""),
				timed(100*ms, Skipped, "A"),
				timed(0, Success, "A"),
			}},
		{name: "delay 0 still returns RUNNING first", tree: delay("0", S("A", "S")),
			steps: ticks(Running, "", Success, "A", Running, "")},
		{name: "halt after the delay halts the running child", tree: delay("10", S("A", "R")),
			steps: []step{timed(0, Running, ""), timed(10*ms, Running, "A"), halted("A!")}},
		{
			name: "the delay asks for a tick at its deadline",
			tree: delay("100", S("A", "S")),
			steps: []step{
				tick(Running, "").askingTick(100 * ms).woken(false),
				tick(Running, "").after(40 * ms).askingTick(100 * ms),
			},
		},
		{
			name:  "delay 0 wakes the tree at once",
			tree:  delay("0", S("A", "S")),
			steps: []step{tick(Running, "").woken(true)},
		},
		{
			name: "halt cancels the delay: the next tick starts a new one",
			tree: delay("100", S("A", "S")),
			steps: []step{
				tick(Running, ""),
				halted("").after(90 * ms),
				tick(Running, "").after(10 * ms),
				tick(Running, "").after(90 * ms),
				tick(Success, "A").after(10 * ms),
			},
		},
	})
	t.Run("TickOnce runs a delay of 0 and the child in one call", func(t *testing.T) {
		log := &eventLog{}
		tree, _ := buildTest(t, delay("0", S("A", "S")), log)
		st, err := tree.TickOnce()
		require.NoError(t, err, "TickOnce = %v, %v; want SUCCESS", st, err)
		require.Equal(t, Success, st, "TickOnce = %v, %v; want SUCCESS", st, err)
		ev := log.take()
		assert.Len(t, ev, 1, "events %v, want [A]", ev)
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "negative delay", tree: delay("-3", S("A", "S")), want: `MainTree/Delay: port "delay_msec" (uint): "-3" is not a non-negative integer that fits uint`},
		{name: "delay missing", tree: N("Delay", nil, S("A", "S")), want: `MainTree/Delay: missing required input port "delay_msec" (uint): Tick the child after a few milliseconds`},
	})
}
