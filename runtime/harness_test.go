package runtime

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The test harness: trees of built-in nodes plus "Step" leaves that play a
// list of statuses and record every tick and halt, so a table can say what
// must happen tick by tick.

// eventLog records what Step leaves did, in order: "A" for a tick of the
// leaf named A, "A!" for its halt.
type eventLog struct{ events []string }

func (l *eventLog) add(e string) { l.events = append(l.events, e) }
func (l *eventLog) take() []string {
	out := l.events
	l.events = nil
	if out == nil {
		out = []string{}
	}
	return out
}

// stepLeaf returns the statuses of its "play" port one per tick; the last
// one repeats. Halting it records "name!" and rewinds it when rewind="true".
type stepLeaf struct {
	Base
	log    *eventLog
	play   []Status
	cursor int
	rewind bool
}

func (n *stepLeaf) Tick() (Status, error) {
	n.log.add(n.name)
	st := n.play[min(n.cursor, len(n.play)-1)]
	n.cursor++
	return st, nil
}

func (n *stepLeaf) Halt() {
	n.log.add(n.name + "!")
	if n.rewind {
		n.cursor = 0
	}
}

// testRegistry returns the built-in palette plus Step, which logs to log.
func testRegistry(log *eventLog) *Registry {
	r := NewRegistry()
	r.MustRegister(NodeType{
		ID:   "Step",
		Kind: ActionKind,
		Ports: []PortSpec{
			InputPort[string]("play", "comma-separated statuses, one per tick; the last repeats"),
			InputPort[bool]("rewind", "start the list again after a halt").WithDefault("false"),
		},
		New: func(c *Config) (Node, error) {
			s, _ := LiteralAs[string](c, "play")
			rw, _ := LiteralAs[bool](c, "rewind")
			n := &stepLeaf{log: log, rewind: rw}
			for _, f := range strings.Split(s, ",") {
				st, err := ParseStatus(strings.TrimSpace(f))
				if err != nil {
					return nil, err
				}
				n.play = append(n.play, st)
			}
			return n, nil
		},
	})
	return r
}

// S is a Step leaf named name playing statuses ("R,R,S"; R S F K for
// RUNNING SUCCESS FAILURE SKIPPED).
func S(name, statuses string, extra ...string) *NodeSpec {
	long := map[string]string{"R": "RUNNING", "S": "SUCCESS", "F": "FAILURE", "K": "SKIPPED"}
	parts := strings.Split(statuses, ",")
	for i, p := range parts {
		if l, ok := long[strings.TrimSpace(p)]; ok {
			parts[i] = l
		}
	}
	return N("Step", A(append([]string{"name", name, "play", strings.Join(parts, ",")}, extra...)...))
}

// tickCase is one tick of a table: advance the clock first, then tick
// exactly once and expect a root status and the Step events of that tick.
type tickCase struct {
	advance time.Duration
	want    Status
	events  []string // nil: not checked
}

// nodeCase is one row of a node's specification table.
type nodeCase struct {
	name   string
	tree   *NodeSpec
	bb     map[string]any // initial blackboard
	ticks  []tickCase
	halt   bool           // halt the tree after the ticks
	after  []string       // events of that halt
	wantBB map[string]any // blackboard entries after the ticks (and halt)
}

var testEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// buildTest builds one tree from root with a manual clock and a fixed seed.
func buildTest(t testing.TB, root *NodeSpec, log *eventLog) (*Tree, *ManualClock) {
	t.Helper()
	clock := NewManualClock(testEpoch)
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
	tree, err := Build(testRegistry(log), doc, BuildConf{Clock: clock, Seed: 42})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return tree, clock
}

// runNodeCases runs a specification table.
func runNodeCases(t *testing.T, cases []nodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			tree, clock := buildTest(t, tc.tree, log)
			for k, v := range tc.bb {
				if err := tree.Blackboard().Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			for i, tk := range tc.ticks {
				clock.Advance(tk.advance)
				got, err := tree.TickExactlyOnce()
				if err != nil {
					t.Fatalf("tick %d: %v", i+1, err)
				}
				ev := log.take()
				if got != tk.want {
					t.Errorf("tick %d: status %v, want %v (events %v)", i+1, got, tk.want, ev)
				}
				if tk.events != nil && strings.Join(ev, " ") != strings.Join(tk.events, " ") {
					t.Errorf("tick %d: events %v, want %v", i+1, ev, tk.events)
				}
			}
			if tc.halt {
				tree.Halt()
				ev := log.take()
				if strings.Join(ev, " ") != strings.Join(tc.after, " ") {
					t.Errorf("halt: events %v, want %v", ev, tc.after)
				}
				for _, n := range tree.Nodes() {
					if s := NodeOf(n).Status(); s != Idle {
						t.Errorf("after halt %s is %v, want IDLE", NodeOf(n).Path(), s)
					}
				}
			}
			for k, want := range tc.wantBB {
				got, ok := tree.Blackboard().Get(k)
				if !ok {
					t.Errorf("blackboard %q missing, want %v", k, want)
				} else if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("blackboard %q = %v (%T), want %v (%T)", k, got, got, want, want)
				}
			}
		})
	}
}

// ticks is shorthand for a run of ticks with no clock movement.
func ticks(pairs ...any) []tickCase {
	var out []tickCase
	for i := 0; i < len(pairs); i += 2 {
		tc := tickCase{want: pairs[i].(Status)}
		if ev, ok := pairs[i+1].(string); ok {
			tc.events = strings.Fields(ev)
		}
		out = append(out, tc)
	}
	return out
}
