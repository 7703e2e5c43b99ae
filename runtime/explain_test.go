package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The explanation's specification: trees of built-in nodes and "Say"
// leaves (which play a list of statuses, one per tick, and state a fixed
// reason when they complete), ticked until the root completes; then the
// chain Explain returns, one Cause.String a link.

// sayLeaf plays the statuses of its "play" port, one a tick (the last one
// repeats), and states the reason in its "why" port when it completes.
type sayLeaf struct {
	Base
	play   []Status
	why    string
	cursor int
}

func (n *sayLeaf) Tick() (Status, error) {
	st := n.play[min(n.cursor, len(n.play)-1)]
	n.cursor++
	if st.Completed() {
		n.SetReason(n.why)
	}
	return st, nil
}

func (n *sayLeaf) Halt() { n.cursor = 0 }

// explainRegistry is the built-in palette plus Say and three Go leaves
// that fail with Fail: FailAction (ActionFunc), FailAsync (AsyncWork) and
// LowBattery (a ConditionFunc formatting its reason when explaining).
func explainRegistry() *Registry {
	r := NewRegistry()
	r.MustRegister(NodeType{
		ID: "Say", Kind: ActionKind,
		Ports: []PortSpec{
			InputPort[string]("play", "comma-separated statuses (R S F K), one a tick"),
			InputPort[string]("why", "the reason stated on completion").WithDefault(""),
		},
		New: func(c *Config) (Node, error) {
			s, _ := LiteralAs[string](c, "play")
			why, _ := LiteralAs[string](c, "why")
			n := &sayLeaf{why: why}
			long := map[string]Status{"R": Running, "S": Success, "F": Failure, "K": Skipped}
			for _, f := range strings.Split(s, ",") {
				st, ok := long[strings.TrimSpace(f)]
				if !ok {
					return nil, fmt.Errorf("play: %q is not R, S, F or K", f)
				}
				n.play = append(n.play, st)
			}
			return n, nil
		},
	})
	r.MustRegister(ActionType("FailAction", nil, func(n *Leaf) (Status, error) {
		return Success, Fail("the gripper is open")
	}))
	r.MustRegister(AsyncActionType("FailAsync", nil, func(n *Leaf) (AsyncWork, error) {
		return func(context.Context) (Status, error) {
			return Failure, Failf("dock not found after %d scans", 3)
		}, nil
	}))
	r.MustRegister(ConditionType("LowBattery", nil, func(n *Leaf) (bool, error) {
		level := 0.12
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("battery_pct %.2f < %.2f", level, 0.15))
		}
		return false, nil
	}))
	return r
}

func say(name, play, why string) *NodeSpec {
	return N("Say", A("name", name, "play", play, "why", why))
}

// buildExplained builds main (and the other trees) with a manual clock.
func buildExplained(t *testing.T, main *NodeSpec, others ...*TreeSpec) (*Tree, *ManualClock) {
	t.Helper()
	clock := NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	doc := &Document{Main: "MainTree", Trees: append([]*TreeSpec{{ID: "MainTree", Root: main}}, others...)}
	tree, err := Build(explainRegistry(), doc, BuildConf{Clock: clock, Seed: 1})
	require.NoError(t, err)
	return tree, clock
}

// tickUntilDone ticks (advancing the clock by step before each tick) until
// the root completes, at most max ticks.
func tickUntilDone(t *testing.T, tree *Tree, clock *ManualClock, step time.Duration, max int) Status {
	t.Helper()
	for i := 0; i < max; i++ {
		clock.Advance(step)
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		if st.Completed() {
			return st
		}
		if st == Running {
			// Let async work finish before the next tick.
			select {
			case <-tree.WakeC():
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	require.Fail(t, fmt.Sprintf("the root did not complete in %d ticks", max))
	return Idle
}

func chainLines(chain []Cause) []string {
	out := []string{}
	for _, c := range chain {
		out = append(out, c.String())
	}
	return out
}

func TestExplain(t *testing.T) {
	cases := []struct {
		name       string
		tree       *NodeSpec
		others     []*TreeSpec
		bb         map[string]any
		step       time.Duration // clock advance before each tick
		explaining bool
		want       Status
		chain      []string
		// text is FormatExplanation's, when the chain has alternatives;
		// otherwise the chain's lines, each indented one step deeper.
		text string
	}{
		{
			name: "Sequence: the child that failed",
			tree: N("Sequence", A("name", "go"),
				say("A", "S", "at the door"),
				say("B", "R,F", "no path to kitchen"),
				say("C", "S", "")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/go (Sequence) FAILURE: child 2 of 3 failed",
				"MainTree/go/B (Say) FAILURE: no path to kitchen",
			},
		},
		{
			name:       "Sequence that succeeds: its last child",
			tree:       N("Sequence", A("name", "go"), say("A", "S", "a"), say("B", "S", "b")),
			explaining: true, want: Success,
			chain: []string{
				"MainTree/go (Sequence) SUCCESS",
				"MainTree/go/B (Say) SUCCESS: b",
			},
		},
		{
			name: "Fallback whose children all failed: the last alternative",
			tree: N("Fallback", A("name", "ways"),
				say("A", "F", "door closed"),
				say("B", "R,R,F", "window stuck"),
				say("C", "F", "no chimney")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/ways (Fallback) FAILURE: all 3 children failed",
				"MainTree/ways/C (Say) FAILURE: no chimney",
			},
			text: "MainTree/ways (Fallback) FAILURE: all 3 children failed\n" +
				"  MainTree/ways/A (Say) FAILURE: door closed\n" +
				"  MainTree/ways/B (Say) FAILURE: window stuck\n" +
				"  MainTree/ways/C (Say) FAILURE: no chimney\n",
		},
		{
			name:       "Fallback that succeeds: the alternative that worked",
			tree:       N("Fallback", A("name", "ways"), say("A", "F", "door closed"), say("B", "S", "window open")),
			explaining: true, want: Success,
			chain: []string{
				"MainTree/ways (Fallback) SUCCESS: child 2 of 2 succeeded",
				"MainTree/ways/B (Say) SUCCESS: window open",
			},
		},
		{
			name: "ReactiveSequence: the condition that failed, not the action it halted",
			tree: N("ReactiveSequence", A("name", "guarded"),
				say("battery_ok", "S,S,F", "battery 12%"),
				say("drive", "R", "")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/guarded (ReactiveSequence) FAILURE: child 1 of 2 failed; halted drive",
				"MainTree/guarded/battery_ok (Say) FAILURE: battery 12%",
			},
		},
		{
			name:       "Inverter: its reason, then the child it inverted",
			tree:       N("Inverter", nil, say("docked", "S", "on the dock")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/Inverter (Inverter) FAILURE: inverted the child's SUCCESS",
				"MainTree/Inverter/docked (Say) SUCCESS: on the dock",
			},
		},
		{
			name:       "ForceFailure over a success",
			tree:       N("ForceFailure", nil, say("beep", "S", "")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/ForceFailure (ForceFailure) FAILURE: forced; the child returned SUCCESS",
				"MainTree/ForceFailure/beep (Say) SUCCESS",
			},
		},
		{
			name:       "RetryUntilSuccessful: the count, then the last attempt",
			tree:       N("RetryUntilSuccessful", A("num_attempts", "3"), say("grab", "F", "slipped")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/RetryUntilSuccessful (RetryUntilSuccessful) FAILURE: 3 attempts failed",
				"MainTree/RetryUntilSuccessful/grab (Say) FAILURE: slipped",
			},
			text: "MainTree/RetryUntilSuccessful (RetryUntilSuccessful) FAILURE: 3 attempts failed\n" +
				"  MainTree/RetryUntilSuccessful/grab (Say) FAILURE: slipped\n" +
				"  MainTree/RetryUntilSuccessful/grab (Say) FAILURE: slipped\n" +
				"  MainTree/RetryUntilSuccessful/grab (Say) FAILURE: slipped\n",
		},
		{
			name:       "Repeat: the cycle that failed",
			tree:       N("Repeat", A("num_cycles", "3"), say("lap", "S,S,R,F", "bumped")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/Repeat (Repeat) FAILURE: cycle 3 of 3 failed",
				"MainTree/Repeat/lap (Say) FAILURE: bumped",
			},
		},
		{
			name: "Timeout: ends at the Timeout, which names the child it halted",
			tree: N("Timeout", A("msec", "1000"), say("drive", "R", "")),
			step: 400 * time.Millisecond, explaining: true, want: Failure,
			chain: []string{
				"MainTree/Timeout (Timeout) FAILURE: timed out after 1s; halted drive",
			},
		},
		{
			name: "Parallel: the child whose failure reached failure_count",
			tree: N("Parallel", A("name", "watched", "success_count", "1", "failure_count", "1"),
				say("nav", "R", ""),
				say("bumper", "R,R,F", "bumper pressed")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/watched (Parallel) FAILURE: 1 of 2 children failed (failure_count 1, success_count 1); halted nav",
				"MainTree/watched/bumper (Say) FAILURE: bumper pressed",
			},
		},
		{
			name: "ParallelAll: the last child that failed, not the last to complete",
			tree: N("ParallelAll", A("name", "all", "max_failures", "1"),
				say("A", "F", "A broke"),
				say("B", "R,R,S", "B done")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/all (ParallelAll) FAILURE: 1 of 2 children failed (max_failures 1)",
				"MainTree/all/A (Say) FAILURE: A broke",
			},
		},
		{
			name: "IfThenElse: the branch it took",
			tree: N("IfThenElse", A("name", "choose"),
				say("cond", "F", "door closed"),
				say("then", "S", ""),
				say("else", "F", "window stuck")),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/choose (IfThenElse) FAILURE",
				"MainTree/choose/else (Say) FAILURE: window stuck",
			},
		},
		{
			name: "SubTree: into the subtree",
			tree: N("Sequence", A("name", "mission"),
				say("ready", "S", ""),
				N("SubTree", A("ID", "Reach"))),
			others: []*TreeSpec{{ID: "Reach", Root: N("Fallback", A("name", "ladder"),
				say("navigate", "F", "move_base aborted"),
				say("back_up", "F", "blocked behind"))}},
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/mission (Sequence) FAILURE: child 2 of 2 failed",
				"MainTree/mission/Reach (SubTree) FAILURE",
				"MainTree/mission/Reach/ladder (Fallback) FAILURE: all 2 children failed",
				"MainTree/mission/Reach/ladder/back_up (Say) FAILURE: blocked behind",
			},
			text: "MainTree/mission (Sequence) FAILURE: child 2 of 2 failed\n" +
				"  MainTree/mission/Reach (SubTree) FAILURE\n" +
				"    MainTree/mission/Reach/ladder (Fallback) FAILURE: all 2 children failed\n" +
				"      MainTree/mission/Reach/ladder/navigate (Say) FAILURE: move_base aborted\n" +
				"      MainTree/mission/Reach/ladder/back_up (Say) FAILURE: blocked behind\n",
		},
		{
			name: "_failureIf: ends at the node it failed, with the values the script read",
			tree: N("Sequence", A("name", "go"),
				N("Sequence", A("name", "leg", "_failureIf", "speed > limit"), say("drive", "S", ""))),
			bb:         map[string]any{"speed": 2.5, "limit": 1.0},
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/go (Sequence) FAILURE: child 1 of 1 failed",
				"MainTree/go/leg (Sequence) FAILURE: _failureIf: speed > limit is true (speed = 2.5, limit = 1)",
			},
		},
		{
			name:       "ScriptCondition: the expression and the values it read",
			tree:       N("ScriptCondition", A("name", "charged", "code", "battery_pct > 0.15 && state != 'fault'")),
			bb:         map[string]any{"battery_pct": 0.12, "state": "ok"},
			explaining: true, want: Failure,
			chain: []string{
				`MainTree/charged (ScriptCondition) FAILURE: battery_pct > 0.15 && state != 'fault' is false (battery_pct = 0.12, state = "ok")`,
			},
		},
		{
			name:       "Go leaves: Fail from an ActionFunc, Failf from an AsyncWork",
			tree:       N("Fallback", A("name", "try"), N("FailAction", nil), N("FailAsync", nil)),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/try (Fallback) FAILURE: all 2 children failed",
				"MainTree/try/FailAsync (FailAsync) FAILURE: dock not found after 3 scans",
			},
			text: "MainTree/try (Fallback) FAILURE: all 2 children failed\n" +
				"  MainTree/try/FailAction (FailAction) FAILURE: the gripper is open\n" +
				"  MainTree/try/FailAsync (FailAsync) FAILURE: dock not found after 3 scans\n",
		},
		{
			name: "explaining off: the chain is kept, without reasons",
			tree: N("Sequence", A("name", "go"),
				N("Inverter", nil, N("LowBattery", nil)),
				N("Inverter", nil, say("docked", "S", "on the dock"))),
			want: Failure,
			chain: []string{
				"MainTree/go (Sequence) FAILURE",
				"MainTree/go/Inverter#2 (Inverter) FAILURE",
				"MainTree/go/Inverter#2/docked (Say) SUCCESS",
			},
		},
		{
			name:       "explaining on: a Go condition's formatted reason",
			tree:       N("Sequence", A("name", "go"), N("LowBattery", A("name", "battery_ok"))),
			explaining: true, want: Failure,
			chain: []string{
				"MainTree/go (Sequence) FAILURE: child 1 of 1 failed",
				"MainTree/go/battery_ok (LowBattery) FAILURE: battery_pct 0.12 < 0.15",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, clock := buildExplained(t, tc.tree, tc.others...)
			tree.SetExplaining(tc.explaining)
			for k, v := range tc.bb {
				require.NoError(t, tree.Blackboard().Set(k, v))
			}
			require.Nil(t, tree.Explain(), "before the root completed")
			st := tickUntilDone(t, tree, clock, tc.step, 20)
			assert.Equal(t, tc.want, st)
			assert.Equal(t, tc.chain, chainLines(tree.Explain()))
			text := tc.text
			if text == "" {
				text = linearText(tc.chain)
			}
			assert.Equal(t, text, FormatExplanation(tree.Explain()))
		})
	}
}

// linearText is FormatExplanation of a chain without alternatives.
func linearText(lines []string) string {
	var sb strings.Builder
	for i, l := range lines {
		sb.WriteString(strings.Repeat("  ", i) + l + "\n")
	}
	return sb.String()
}

// TestExplainAlternatives: a node that fails only once all its
// alternatives did explains with each alternative's own cause, indented
// under it, in the order they were tried; nodes that fail otherwise, and
// alternatives that did not fail, are not listed.
func TestExplainAlternatives(t *testing.T) {
	cases := []struct {
		name       string
		tree       *NodeSpec
		bb         map[string]any
		explaining bool
		want       Status
		text       string
	}{
		{
			name: "Fallback: the first alternative's own cause (the issue's example)",
			tree: N("Fallback", A("name", "enough"),
				N("ScriptCondition", A("name", "charged", "code", "level >= needed")),
				N("AlwaysFailure", nil)),
			bb:         map[string]any{"level": 7, "needed": 12},
			explaining: true, want: Failure,
			text: "MainTree/enough (Fallback) FAILURE: all 2 children failed\n" +
				"  MainTree/enough/charged (ScriptCondition) FAILURE: level >= needed is false (level = 7, needed = 12)\n" +
				"  MainTree/enough/AlwaysFailure (AlwaysFailure) FAILURE\n",
		},
		{
			name: "Fallback: each alternative's whole chain, nested",
			tree: N("Sequence", A("name", "mission"),
				N("Fallback", A("name", "reach"),
					N("Sequence", A("name", "drive"), say("plan", "S", "planned"), say("go", "R,F", "blocked")),
					N("Fallback", A("name", "recover"), say("back_up", "F", "wall behind"), say("spin", "F", "stuck")),
					say("call", "F", "no operator"))),
			explaining: true, want: Failure,
			text: "MainTree/mission (Sequence) FAILURE: child 1 of 1 failed\n" +
				"  MainTree/mission/reach (Fallback) FAILURE: all 3 children failed\n" +
				"    MainTree/mission/reach/drive (Sequence) FAILURE: child 2 of 2 failed\n" +
				"      MainTree/mission/reach/drive/go (Say) FAILURE: blocked\n" +
				"    MainTree/mission/reach/recover (Fallback) FAILURE: all 2 children failed\n" +
				"      MainTree/mission/reach/recover/back_up (Say) FAILURE: wall behind\n" +
				"      MainTree/mission/reach/recover/spin (Say) FAILURE: stuck\n" +
				"    MainTree/mission/reach/call (Say) FAILURE: no operator\n",
		},
		{
			name: "Fallback: a skipped alternative is not listed",
			tree: N("Fallback", A("name", "ways"),
				say("A", "F", "door closed"),
				say("B", "K", ""),
				say("C", "F", "no chimney")),
			explaining: true, want: Failure,
			text: "MainTree/ways (Fallback) FAILURE: all 3 children failed\n" +
				"  MainTree/ways/A (Say) FAILURE: door closed\n" +
				"  MainTree/ways/C (Say) FAILURE: no chimney\n",
		},
		{
			name:       "Fallback that succeeds: no alternatives",
			tree:       N("Fallback", A("name", "ways"), say("A", "F", "door closed"), say("B", "S", "window open")),
			explaining: true, want: Success,
			text: "MainTree/ways (Fallback) SUCCESS: child 2 of 2 succeeded\n" +
				"  MainTree/ways/B (Say) SUCCESS: window open\n",
		},
		{
			name: "Fallback, explaining off: the alternatives, without reasons",
			tree: N("Fallback", A("name", "ways"), say("A", "F", "door closed"), say("B", "F", "window stuck")),
			want: Failure,
			text: "MainTree/ways (Fallback) FAILURE\n" +
				"  MainTree/ways/A (Say) FAILURE\n" +
				"  MainTree/ways/B (Say) FAILURE\n",
		},
		{
			name: "AsyncFallback: the alternatives of every tick of its run",
			tree: N("AsyncFallback", A("name", "ways"),
				say("A", "F", "door closed"), say("B", "F", "window stuck"), say("C", "F", "no chimney")),
			explaining: true, want: Failure,
			text: "MainTree/ways (AsyncFallback) FAILURE: all 3 children failed\n" +
				"  MainTree/ways/A (Say) FAILURE: door closed\n" +
				"  MainTree/ways/B (Say) FAILURE: window stuck\n" +
				"  MainTree/ways/C (Say) FAILURE: no chimney\n",
		},
		{
			name: "ReactiveFallback: the alternatives of its last tick",
			tree: N("ReactiveFallback", A("name", "guard"),
				say("at_goal", "F", "1.2 m away"),
				say("drive", "R,R,F", "aborted")),
			explaining: true, want: Failure,
			text: "MainTree/guard (ReactiveFallback) FAILURE: all 2 children failed\n" +
				"  MainTree/guard/at_goal (Say) FAILURE: 1.2 m away\n" +
				"  MainTree/guard/drive (Say) FAILURE: aborted\n",
		},
		{
			name: "RandomSelector: every child, in the order drawn",
			tree: N("RandomSelector", A("name", "pick"),
				say("A", "F", "a"), say("B", "F", "b"), say("C", "F", "c")),
			want: Failure,
			// Seed 1 draws C, A, B.
			text: "MainTree/pick (RandomSelector) FAILURE\n" +
				"  MainTree/pick/C (Say) FAILURE\n" +
				"  MainTree/pick/A (Say) FAILURE\n" +
				"  MainTree/pick/B (Say) FAILURE\n",
		},
		{
			name: "RandomSequence: not alternatives, the child that failed",
			tree: N("RandomSequence", A("name", "all"),
				say("A", "F", "a"), say("B", "F", "b")),
			want: Failure,
			// Seed 1 draws A first.
			text: "MainTree/all (RandomSequence) FAILURE\n" +
				"  MainTree/all/A (Say) FAILURE\n",
		},
		{
			name: "WeightedSelector: every child, in the order drawn",
			tree: N("WeightedSelector", A("name", "pick", "weights", "1;1;1"),
				say("A", "F", "a"), say("B", "F", "b"), say("C", "F", "c")),
			want: Failure,
			// Seed 1 draws B, A, C.
			text: "MainTree/pick (WeightedSelector) FAILURE\n" +
				"  MainTree/pick/B (Say) FAILURE\n" +
				"  MainTree/pick/A (Say) FAILURE\n" +
				"  MainTree/pick/C (Say) FAILURE\n",
		},
		{
			name: "RetryUntilSuccessful: every attempt's own chain",
			tree: N("RetryUntilSuccessful", A("name", "grab", "num_attempts", "3"),
				N("Fallback", A("name", "ways"),
					N("ScriptCondition", A("name", "open", "code", "tries > 2")),
					N("ScriptCondition", A("name", "count", "code", "tries += 1; false")))),
			bb:         map[string]any{"tries": 0},
			explaining: true, want: Failure,
			text: "MainTree/grab (RetryUntilSuccessful) FAILURE: 3 attempts failed\n" +
				"  MainTree/grab/ways (Fallback) FAILURE: all 2 children failed\n" +
				"    MainTree/grab/ways/open (ScriptCondition) FAILURE: tries > 2 is false (tries = 0)\n" +
				"    MainTree/grab/ways/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 1)\n" +
				"  MainTree/grab/ways (Fallback) FAILURE: all 2 children failed\n" +
				"    MainTree/grab/ways/open (ScriptCondition) FAILURE: tries > 2 is false (tries = 1)\n" +
				"    MainTree/grab/ways/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 2)\n" +
				"  MainTree/grab/ways (Fallback) FAILURE: all 2 children failed\n" +
				"    MainTree/grab/ways/open (ScriptCondition) FAILURE: tries > 2 is false (tries = 2)\n" +
				"    MainTree/grab/ways/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 3)\n",
		},
		{
			name: "RetryUntilSuccessful: the latest 8 attempts, however many failed",
			tree: N("RetryUntilSuccessful", A("name", "grab", "num_attempts", "12"),
				N("ScriptCondition", A("name", "count", "code", "tries += 1; false"))),
			bb:         map[string]any{"tries": 0},
			explaining: true, want: Failure,
			text: "MainTree/grab (RetryUntilSuccessful) FAILURE: 12 attempts failed\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 5)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 6)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 7)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 8)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 9)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 10)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 11)\n" +
				"  MainTree/grab/count (ScriptCondition) FAILURE: tries += 1; false is false (tries = 12)\n",
		},
		{
			name: "RetryUntilSuccessful, explaining off: only the last attempt is known",
			tree: N("RetryUntilSuccessful", A("name", "grab", "num_attempts", "3"), say("try", "F", "slipped")),
			want: Failure,
			text: "MainTree/grab (RetryUntilSuccessful) FAILURE\n" +
				"  MainTree/grab/try (Say) FAILURE\n",
		},
		{
			name:       "RetryUntilSuccessful that succeeds: no alternatives",
			tree:       N("RetryUntilSuccessful", A("name", "grab", "num_attempts", "3"), say("try", "F,F,S", "got it")),
			explaining: true, want: Success,
			text: "MainTree/grab (RetryUntilSuccessful) SUCCESS: attempt 3 of 3 succeeded\n" +
				"  MainTree/grab/try (Say) SUCCESS: got it\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, clock := buildExplained(t, tc.tree)
			tree.SetExplaining(tc.explaining)
			for k, v := range tc.bb {
				require.NoError(t, tree.Blackboard().Set(k, v))
			}
			st := tickUntilDone(t, tree, clock, 0, 20)
			assert.Equal(t, tc.want, st)
			chain := tree.Explain()
			assert.Equal(t, tc.text, FormatExplanation(chain))
			assert.Equal(t, FormatExplanation(chain), FormatExplanation(tree.Explain()), "Explain does not change the tree")
		})
	}
}

// TestExplainLifetime: Explain says nothing while the first run goes on,
// explains the run that completed, and says nothing again once the next
// run has started (its nodes are being overwritten).
func TestExplainLifetime(t *testing.T) {
	tree, clock := buildExplained(t, N("Sequence", A("name", "go"),
		say("A", "R,S,R", ""), say("B", "F", "no path")))
	tree.SetExplaining(true)
	st, err := tree.TickExactlyOnce()
	require.NoError(t, err)
	require.Equal(t, Running, st)
	assert.Nil(t, tree.Explain(), "while the root runs")

	require.Equal(t, Failure, tickUntilDone(t, tree, clock, 0, 5))
	chain := tree.Explain()
	require.Len(t, chain, 2)
	assert.Equal(t, "no path", chain[1].Reason)
	assert.Equal(t, chain, tree.Explain(), "Explain does not change the tree")

	st, err = tree.TickExactlyOnce()
	require.NoError(t, err)
	require.Equal(t, Running, st)
	assert.Nil(t, tree.Explain(), "once a new run started")
}

// TestExplainAbandonedRuns: once the root's next run has started, Explain
// says nothing, however that run ended without completing: halted, or
// failed with an error.
func TestExplainAbandonedRuns(t *testing.T) {
	cases := []struct {
		name string
		tree *NodeSpec
		next func(*testing.T, *Tree) // the next run, after the first completed
	}{
		{
			name: "an error in the next run",
			tree: N("Sequence", A("name", "go"), say("A", "F,S", "no path"), N("Script", A("code", "m = 1"))),
			next: func(t *testing.T, tree *Tree) {
				_, err := tree.TickExactlyOnce()
				require.Error(t, err)
			},
		},
		{
			name: "the next run halted",
			tree: N("Sequence", A("name", "go"), say("A", "F,R", "no path")),
			next: func(t *testing.T, tree *Tree) {
				st, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				require.Equal(t, Running, st)
				tree.Halt()
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, clock := buildExplained(t, tc.tree)
			tree.SetExplaining(true)
			require.Equal(t, Failure, tickUntilDone(t, tree, clock, 0, 5))
			chain := tree.Explain()
			require.Len(t, chain, 2)
			require.Equal(t, "MainTree/go/A (Say) FAILURE: no path", chain[1].String())
			tc.next(t, tree)
			assert.Nil(t, tree.Explain())
		})
	}
}

// TestExplainObserverSeesReason: an observer of a completion reads the
// reason of that completion (the live view shows it beside the status).
func TestExplainObserverSeesReason(t *testing.T) {
	tree, clock := buildExplained(t, N("Sequence", A("name", "go"),
		say("A", "S", "at the door"), say("B", "F", "no path")))
	tree.SetExplaining(true)
	var seen []string
	tree.Observe(ObserverFunc(func(tr Transition) {
		if tr.To.Completed() {
			assert.Equal(t, tr.Node.Reason(), tr.Reason)
			seen = append(seen, fmt.Sprintf("%s %v %s", tr.Node.Name(), tr.To, tr.Reason))
		}
	}))
	tickUntilDone(t, tree, clock, 0, 5)
	assert.Equal(t, []string{"A SUCCESS at the door", "B FAILURE no path", "go FAILURE child 2 of 2 failed"}, seen)
}

func TestFormatExplanation(t *testing.T) {
	cases := []struct {
		name  string
		chain []Cause
		want  string
	}{
		{name: "nothing to explain", chain: nil, want: ""},
		{
			name: "a chain, indented by depth; no colon without a reason",
			chain: []Cause{
				{Path: "MainTree/Patrol", Type: "Sequence", Status: Failure, Reason: "child 3 of 3 failed"},
				{Path: "MainTree/Patrol/Reach", Type: "SubTree", Status: Failure},
				{Path: "MainTree/Patrol/Reach/NavigateTo#2", Type: "NavigateTo", Status: Failure, Reason: "move_base aborted: no path to kitchen"},
			},
			want: "MainTree/Patrol (Sequence) FAILURE: child 3 of 3 failed\n" +
				"  MainTree/Patrol/Reach (SubTree) FAILURE\n" +
				"    MainTree/Patrol/Reach/NavigateTo#2 (NavigateTo) FAILURE: move_base aborted: no path to kitchen\n",
		},
		{
			name: "alternatives under their node, before the chain goes on",
			chain: []Cause{
				{Path: "M", Type: "Sequence", Status: Failure},
				{Path: "M/F", Type: "Fallback", Status: Failure, Alternatives: [][]Cause{
					{{Path: "M/F/a", Status: Failure, Reason: "first"}},
					{{Path: "M/F/b", Type: "Sequence", Status: Failure}, {Path: "M/F/b/c", Status: Failure, Reason: "deep"}},
				}},
				{Path: "M/F/d", Status: Failure, Reason: "last"},
			},
			want: "M (Sequence) FAILURE\n" +
				"  M/F (Fallback) FAILURE\n" +
				"    M/F/a FAILURE: first\n" +
				"    M/F/b (Sequence) FAILURE\n" +
				"      M/F/b/c FAILURE: deep\n" +
				"    M/F/d FAILURE: last\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, FormatExplanation(tc.chain))
		})
	}
}

// TestFailIsNotAnError: Fail's value is a FAILURE with a reason, never an
// error that halts the tree, however it is wrapped.
func TestFailIsNotAnError(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string // the reason; "" when the error stays an error
	}{
		{name: "Fail", err: Fail("gripper open"), want: "gripper open"},
		{name: "Failf", err: Failf("%d of %d", 1, 2), want: "1 of 2"},
		{name: "wrapped", err: fmt.Errorf("grab: %w", Fail("gripper open")), want: "gripper open"},
		{name: "a real error", err: errors.New("no such port")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := NewCondition(func(*Leaf) (bool, error) { return true, tc.err })
			st, err := failed(n, tc.err)
			assert.Equal(t, Failure, st)
			if tc.want == "" {
				assert.Equal(t, tc.err, err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, n.Reason())
		})
	}
}
