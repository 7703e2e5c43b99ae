package runtime

import "testing"

func TestRepeat(t *testing.T) {
	rep := func(n string, child *NodeSpec) *NodeSpec { return N("Repeat", A("num_cycles", n), child) }
	runNodeCases(t, []nodeCase{
		{name: "one synchronous cycle per tick, then SUCCESS and a fresh count",
			tree:  rep("3", S("A", "S")),
			steps: ticks(Running, "A", Running, "A", Success, "A", Running, "A")},
		{name: "after a RUNNING child succeeds, the next cycle starts in the same tick",
			tree:  rep("3", S("A", "R,S,R,S,R,S")),
			steps: ticks(Running, "A", Running, "A A", Running, "A A", Success, "A")},
		{name: "a failure fails at once and resets the count",
			tree:  rep("3", S("A", "S,F,S")),
			steps: ticks(Running, "A", Failure, "A", Running, "A", Running, "A", Success, "A")},
		{name: "a skipped child skips the Repeat and keeps the count",
			tree:  rep("3", S("A", "S,K,S")),
			steps: ticks(Running, "A", Skipped, "A", Running, "A", Success, "A")},
		{name: "num_cycles 0 succeeds without ticking the child", tree: rep("0", S("A", "S")),
			steps: ticks(Success, "", Success, "")},
		{name: "num_cycles 1 completes in one tick", tree: rep("1", S("A", "S")),
			steps: ticks(Success, "A", Success, "A")},
		{name: "num_cycles -1 repeats forever", tree: rep("-1", S("A", "S")),
			steps: ticks(Running, "A", Running, "A", Running, "A", Running, "A")},
		{name: "num_cycles from the blackboard", tree: rep("{n}", S("A", "S")), bb: map[string]any{"n": 2},
			steps: ticks(Running, "A", Success, "A")},
		{name: "halt halts the running child", tree: rep("3", S("A", "R")),
			steps: ticks(Running, "A", halted("A!"))},
		{
			name: "a synchronous cycle that leaves cycles to go wakes the tree",
			tree: rep("2", S("A", "S")),
			steps: []step{
				tick(Running, "A").woken(true),
				tick(Success, "A").woken(false),
			},
		},
		{
			name: "halt resets the count",
			tree: rep("2", S("A", "S,R,S")),
			steps: []step{
				tick(Running, "A"), tick(Running, "A"),
				halted("A!"),
				tick(Running, "A"), tick(Success, "A"),
			},
		},
		{
			name: "num_cycles read on every tick",
			tree: rep("{n}", S("A", "S")), bb: map[string]any{"n": 5},
			steps: []step{
				tick(Running, "A"), tick(Running, "A"),
				tick(Success, "A").writing("n", 3),
			},
		},
		{
			name:  "an unset num_cycles entry is a tick error",
			tree:  rep("{n}", S("A", "S")),
			steps: []step{fails(`MainTree/Repeat (Repeat): input port "num_cycles": blackboard entry "n" is not set`)},
		},
		{
			name:  "a num_cycles entry below -1 is a tick error",
			tree:  rep("{n}", S("A", "S")),
			bb:    map[string]any{"n": -3},
			steps: []step{fails(`MainTree/Repeat (Repeat): num_cycles is -3; want -1 (no limit) or a count >= 0`)},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "num_cycles below -1", tree: rep("-2", S("A", "S")), want: `MainTree/Repeat: num_cycles is -2; want -1 (no limit) or a count >= 0`},
		{name: "num_cycles not a number", tree: rep("often", S("A", "S")), want: `MainTree/Repeat: port "num_cycles" (int): "often" is not an integer that fits int`},
		{name: "num_cycles missing", tree: N("Repeat", nil, S("A", "S")), want: `MainTree/Repeat: missing required input port "num_cycles" (int): Repeat a successful child up to N times. Use -1 to create an infinite loop.`},
		{name: "no child", tree: N("Repeat", A("num_cycles", "1")), want: `MainTree/Repeat: Repeat (a decorator) takes exactly 1 child, has 0`},
	})
}
