package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test harness, one for the package: trees of built-in nodes plus
// "Step" leaves that play a list of statuses and record every tick and
// halt, so that a table of cases can say what must happen step by step.
//
//	runNodeCases(t, []nodeCase{{
//		name:  "a failing child is retried on the next tick",
//		tree:  N("RetryUntilSuccessful", A("num_attempts", "3"), S("A", "F,S")),
//		steps: ticks(Running, "A", Success, "A"),
//	}})
//
// Trees that must not build are tables of buildErrorCase.

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

// C is a node of type typ with attributes given as name, value pairs.
func C(typ string, attrs []string, children ...*NodeSpec) *NodeSpec {
	return N(typ, A(attrs...), children...)
}

// step is one step of a case: move the clock, write the blackboard, then
// tick the tree exactly once (or halt it) and compare.
type step struct {
	advance time.Duration
	set     map[string]any
	halt    bool
	want    Status
	events  string // space-separated Step events; "*" leaves them unchecked
	err     string // the tick must fail with exactly this error
	wake    *bool  // whether the tick must leave a wake-up (Tree.Wake) pending
	wakeAt  *time.Duration
}

// tick is a tick that returns want with Step events (space-separated).
func tick(want Status, events string) step { return step{want: want, events: events} }

// halted halts the tree; events are those of the halt, after which every
// node must be IDLE.
func halted(events string) step { return step{halt: true, events: events} }

// fails is a tick that must fail with exactly the error msg (its events
// are not checked).
func fails(msg string) step { return step{err: msg, events: "*"} }

// timed is a tick after the clock moved by d.
func timed(d time.Duration, want Status, events string) step { return tick(want, events).after(d) }

// after moves the clock by d before the step.
func (s step) after(d time.Duration) step { s.advance = d; return s }

// writing writes key before the step.
func (s step) writing(key string, v any) step {
	set := make(map[string]any, len(s.set)+1)
	for k, v := range s.set {
		set[k] = v
	}
	set[key] = v
	s.set = set
	return s
}

// woken says whether the tick must ask for a wake-up (Tree.WakeC).
func (s step) woken(w bool) step { s.wake = &w; return s }

// askingTick says the tick must leave Tree.NextWake at epoch+d.
func (s step) askingTick(d time.Duration) step { s.wakeAt = &d; return s }

// ticks is shorthand for ticks with no clock movement, given as status,
// events pairs (events nil: not checked); a step among them is taken as it
// is, so ticks(Running, "A", halted("A!")) ends with a halt.
func ticks(items ...any) []step {
	var out []step
	for i := 0; i < len(items); i++ {
		if s, ok := items[i].(step); ok {
			out = append(out, s)
			continue
		}
		s := step{want: items[i].(Status), events: "*"}
		if ev, ok := items[i+1].(string); ok {
			s.events = ev
		}
		out = append(out, s)
		i++
	}
	return out
}

// nodeCase is one row of a specification table.
type nodeCase struct {
	name   string
	reg    func(*eventLog) *Registry // nil: testRegistry
	tree   *NodeSpec
	bb     map[string]any // written before the first step
	steps  []step
	wantBB map[string]any // entries after the last step, value and type
	check  func(t *testing.T, tree *Tree)
}

var testEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// buildWith builds one tree from root against reg with a manual clock at
// testEpoch and seed 42.
func buildWith(t testing.TB, reg *Registry, root *NodeSpec) (*Tree, *ManualClock) {
	t.Helper()
	clock := NewManualClock(testEpoch)
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
	tree, err := Build(reg, doc, BuildConf{Clock: clock, Seed: 42})
	require.NoError(t, err, "build")
	return tree, clock
}

// buildTest builds root against testRegistry(log).
func buildTest(t testing.TB, root *NodeSpec, log *eventLog) (*Tree, *ManualClock) {
	t.Helper()
	return buildWith(t, testRegistry(log), root)
}

// runNodeCases runs a specification table.
func runNodeCases(t *testing.T, cases []nodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			reg := testRegistry(log)
			if tc.reg != nil {
				reg = tc.reg(log)
			}
			tree, clock := buildWith(t, reg, tc.tree)
			for k, v := range tc.bb {
				require.NoError(t, tree.Blackboard().Set(k, v))
			}
			for i, s := range tc.steps {
				runStep(t, i+1, tree, clock, log, s)
			}
			for k, want := range tc.wantBB {
				got, ok := tree.Blackboard().Get(k)
				if assert.True(t, ok, "blackboard %q missing, want %v", k, want) {
					assert.Equal(t, fmt.Sprintf("%v (%T)", want, want), fmt.Sprintf("%v (%T)", got, got), "blackboard %q", k)
				}
			}
			if tc.check != nil {
				tc.check(t, tree)
			}
		})
	}
}

func runStep(t *testing.T, n int, tree *Tree, clock *ManualClock, log *eventLog, s step) {
	t.Helper()
	clock.Advance(s.advance)
	for k, v := range s.set {
		require.NoError(t, tree.Blackboard().Set(k, v), "step %d", n)
	}
	if s.halt {
		tree.Halt()
		checkEvents(t, n, log.take(), s.events)
		for _, node := range tree.Nodes() {
			assert.Equal(t, Idle, NodeOf(node).Status(), "step %d: after the halt, %s", n, NodeOf(node).Path())
		}
		return
	}
	tree.NextWake() // forget earlier requests
	got, err := tree.TickExactlyOnce()
	ev := log.take()
	if s.err != "" {
		if assert.Error(t, err, "step %d: want an error (status %v)", n, got) {
			assert.Equal(t, s.err, err.Error(), "step %d: error", n)
		}
	} else {
		require.NoError(t, err, "step %d", n)
		assert.Equal(t, s.want, got, "step %d: status (events %v)", n, ev)
	}
	checkEvents(t, n, ev, s.events)
	if s.wake != nil {
		pending := false
		select {
		case <-tree.WakeC():
			pending = true
		default:
		}
		assert.Equal(t, *s.wake, pending, "step %d: whether the tick asked for a wake-up", n)
	}
	if s.wakeAt != nil {
		at, ok := tree.NextWake()
		if assert.True(t, ok, "step %d: no NextWake, want %v", n, *s.wakeAt) {
			assert.Equal(t, *s.wakeAt, at.Sub(testEpoch), "step %d: NextWake", n)
		}
	}
}

func checkEvents(t *testing.T, n int, got []string, want string) {
	t.Helper()
	if want == "*" {
		return
	}
	assert.Equal(t, strings.Join(strings.Fields(want), " "), strings.Join(got, " "), "step %d: events", n)
}

// buildErrorCase is a tree (or a whole document) that must not build, and
// the whole error: every problem found, one a line.
type buildErrorCase struct {
	name string
	tree *NodeSpec
	want string
	doc  *Document        // instead of tree
	reg  func() *Registry // nil: testRegistry
}

// runBuildErrors builds each case and expects exactly the error want, as
// an ErrorList; Check (which builds nothing) must find the same.
func runBuildErrors(t *testing.T, cases []buildErrorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if doc == nil {
				doc = &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: tc.tree}}}
			}
			reg := testRegistry(&eventLog{})
			if tc.reg != nil {
				reg = tc.reg()
			}
			_, err := Build(reg, doc, BuildConf{Clock: NewManualClock(testEpoch), Seed: 42})
			require.Error(t, err, "built; want %q", tc.want)
			var list ErrorList
			assert.True(t, errors.As(err, &list), "error %T, want an ErrorList", err)
			assert.Equal(t, tc.want, err.Error())
			assert.Equal(t, tc.want, fmt.Sprint(Check(reg, doc, BuildConf{Clock: NewManualClock(testEpoch), Seed: 42})), "Check")
		})
	}
}
