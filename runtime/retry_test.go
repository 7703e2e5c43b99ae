package runtime

import "testing"

func TestRetryUntilSuccessful(t *testing.T) {
	retry := func(n string, child *NodeSpec) *NodeSpec {
		return N("RetryUntilSuccessful", A("num_attempts", n), child)
	}
	runNodeCases(t, []nodeCase{
		{name: "one synchronous attempt per tick, then FAILURE and a fresh count",
			tree:  retry("3", S("A", "F")),
			steps: ticks(Running, "A", Running, "A", Failure, "A", Running, "A")},
		{name: "a success succeeds at once and resets the count",
			tree:  retry("2", S("A", "F,S,F")),
			steps: ticks(Running, "A", Success, "A", Running, "A", Failure, "A")},
		{name: "after a RUNNING child fails, the next attempt starts in the same tick",
			tree:  retry("3", S("A", "R,F,R,F,R,F")),
			steps: ticks(Running, "A", Running, "A A", Running, "A A", Failure, "A")},
		{name: "a skipped child skips the node", tree: retry("3", S("A", "K,F")),
			steps: ticks(Skipped, "A", Running, "A")},
		{name: "num_attempts 0 fails without ticking the child", tree: retry("0", S("A", "S")),
			steps: ticks(Failure, "")},
		{name: "num_attempts -1 retries forever", tree: retry("-1", S("A", "F")),
			steps: ticks(Running, "A", Running, "A", Running, "A")},
		{name: "halt halts the running child", tree: retry("3", S("A", "R")),
			steps: ticks(Running, "A", halted("A!"))},
		{
			name: "a synchronous failure with attempts left wakes the tree",
			tree: retry("2", S("A", "F")),
			steps: []step{
				tick(Running, "A").woken(true),
				tick(Failure, "A").woken(false),
			},
		},
		{
			name: "halt resets the count",
			tree: retry("2", S("A", "F,R,F")),
			steps: []step{
				tick(Running, "A"), tick(Running, "A"),
				halted("A!"),
				tick(Running, "A"), tick(Failure, "A"),
			},
		},
		{
			// BT.CPP re-reads num_attempts after each failure, so the child
			// may raise the limit while retrying.
			name: "the child changes the limit while retrying",
			tree: retry("{limit}", N("ScriptCondition", A("code", "attempts += 1; limit = attempts == 1 ? 4 : limit; false"))),
			bb:   map[string]any{"limit": 2, "attempts": 0},
			steps: []step{
				tick(Running, ""), tick(Running, ""), tick(Running, ""), tick(Failure, ""),
			},
			wantBB: map[string]any{"attempts": 4, "limit": 4},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "num_attempts below -1", tree: retry("-5", S("A", "S")), want: `MainTree/RetryUntilSuccessful: num_attempts is -5; want -1 (no limit) or a count >= 0`},
		{name: "num_attempts missing", tree: N("RetryUntilSuccessful", nil, S("A", "S")), want: `MainTree/RetryUntilSuccessful: missing required input port "num_attempts" (int): Execute again a failing child up to N times. Use -1 to create an infinite loop.`},
	})
}
