package runtime

import "testing"

func TestQueueLoop(t *testing.T) {
	loop := func(typ string, attrs []Attr, child *NodeSpec) *NodeSpec { return N(typ, attrs, child) }
	runNodeCases(t, []nodeCase{
		{name: "one value per tick, RUNNING, then if_empty (SUCCESS)",
			tree:   loop("LoopInt", A("queue", "1;2;3", "value", "{i}"), S("A", "S")),
			steps:  ticks(Running, "A", Running, "A", Running, "A", Success, "", Running, "A"),
			wantBB: map[string]any{"i": 1}},
		{name: "the last value written stays",
			tree:  loop("LoopInt", A("queue", "1;2;3", "value", "{i}"), S("A", "S")),
			steps: ticks(Running, "A", Running, "A", Running, "A"), wantBB: map[string]any{"i": 3}},
		{name: "a RUNNING child is resumed without popping",
			tree:   loop("LoopString", A("queue", "a;b", "value", "{w}"), S("A", "R,S,R,S")),
			steps:  ticks(Running, "A", Running, "A", Running, "A"),
			wantBB: map[string]any{"w": "b"}},
		{name: "a child FAILURE fails the loop; the parent's reset starts it afresh",
			tree:   loop("LoopDouble", A("queue", "0.5;0.25;2", "value", "{d}"), S("A", "S,F,S")),
			steps:  ticks(Running, "A", Failure, "A", Running, "A"),
			wantBB: map[string]any{"d": 0.5}},
		{name: "a skipped child still uses up its value", tree: loop("LoopBool", A("queue", "true", "value", "{b}"), S("A", "K")),
			steps: ticks(Running, "A", Success, "")},
		{name: "an empty queue returns if_empty without ticking",
			tree:  loop("LoopInt", A("queue", "", "value", "{i}", "if_empty", "SKIPPED"), S("A", "S")),
			steps: ticks(Skipped, "", Skipped, "")},
		{name: "a trailing ';' adds nothing, as BT.CPP splits",
			tree:  loop("LoopString", A("queue", "x;", "value", "{w}", "if_empty", "FAILURE"), S("A", "S")),
			steps: ticks(Running, "A", Failure, "")},
		{name: "a queue of text from the blackboard", tree: loop("LoopInt", A("queue", "{q}", "value", "{i}"), S("A", "S")),
			bb: map[string]any{"q": "4;5"}, steps: ticks(Running, "A", Running, "A", Success, ""),
			wantBB: map[string]any{"i": 5, "q": "4;5"}},
		{name: "a slice from the blackboard is copied, not consumed",
			tree:   loop("LoopString", A("queue", "{rooms}", "value", "{room}"), S("A", "S")),
			bb:     map[string]any{"rooms": []string{"lab", "dock"}},
			steps:  ticks(Running, "A", Running, "A", Success, "", Running, "A"),
			wantBB: map[string]any{"room": "lab", "rooms": []string{"lab", "dock"}}},
		{name: "halt halts the child", tree: loop("LoopInt", A("queue", "1;2", "value", "{i}"), S("A", "R")),
			steps: ticks(Running, "A", halted("A!"))},
		{
			name: "the queue is read again when the loop starts again",
			tree: loop("LoopInt", A("queue", "{q}", "value", "{i}"), S("A", "S")),
			bb:   map[string]any{"q": "1"},
			steps: []step{
				tick(Running, "A"), tick(Success, "").writing("q", "7;8"),
				tick(Running, "A"), tick(Running, "A"), tick(Success, ""),
			},
			wantBB: map[string]any{"i": 8},
		},
		{
			name:  "a queue entry that was never written is a tick error",
			tree:  loop("LoopInt", A("queue", "{never}", "value", "{i}"), S("A", "S")),
			steps: []step{fails(`MainTree/LoopInt (LoopInt): port "queue": blackboard entry "never" was never written`)},
		},
		{
			name:  "a queue entry of another type is a tick error",
			tree:  loop("LoopInt", A("queue", "{q}", "value", "{i}"), S("A", "S")),
			bb:    map[string]any{"q": 3.5},
			steps: []step{fails(`MainTree/LoopInt (LoopInt): port "queue": blackboard entry "q" holds float64; want text like "1;2" or a []int`)},
		},
		{
			name:  "queue text that does not parse is a tick error",
			tree:  loop("LoopInt", A("queue", "{q}", "value", "{i}"), S("A", "S")),
			bb:    map[string]any{"q": "1;two"},
			steps: []step{fails(`MainTree/LoopInt (LoopInt): port "queue": blackboard entry "q": element 2: "two" is not an integer that fits int`)},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "a literal queue that does not parse", tree: loop("LoopInt", A("queue", "1;x", "value", "{i}"), S("A", "S")), want: `MainTree/LoopInt: port "queue": element 2: "x" is not an integer that fits int`},
		{name: "if_empty RUNNING", tree: loop("LoopBool", A("queue", "true", "if_empty", "RUNNING"), S("A", "S")), want: `MainTree/LoopBool: port "if_empty" is RUNNING; want SUCCESS, FAILURE or SKIPPED`},
		{name: "a literal value", tree: loop("LoopInt", A("queue", "1", "value", "3"), S("A", "S")), want: `MainTree/LoopInt: output port "value" must name a blackboard entry like {value}, not the literal "3"`},
	})
}
