package runtime

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The decorator and leaf specifications use runNodeCases where a run of
// ticks says it all, and playCases where a halt, a blackboard write or an
// error comes between two ticks.

// playStep is one step of a playCase: move the clock, write the
// blackboard, then tick exactly once (or halt the tree) and compare.
type playStep struct {
	advance time.Duration
	set     map[string]any
	halt    bool
	want    Status
	events  string // space-separated Step events; "*" leaves them unchecked
	err     string // the tick must fail with an error containing this
	wake    *bool  // whether the tick must leave a wake-up (Tree.Wake) pending
	wakeAt  *time.Duration
}

// tickP is a tick that returns want with Step events (space-separated).
func tickP(want Status, events string) playStep { return playStep{want: want, events: events} }

// haltP halts the tree; events are those of the halt.
func haltP(events string) playStep { return playStep{halt: true, events: events} }

// errP is a tick that must fail with an error containing msg.
func errP(msg string) playStep { return playStep{err: msg, events: "*"} }

func (s playStep) after(d time.Duration) playStep { s.advance = d; return s }

func (s playStep) writing(key string, v any) playStep {
	if s.set == nil {
		s.set = map[string]any{}
	}
	s.set[key] = v
	return s
}

func (s playStep) woken(w bool) playStep { s.wake = &w; return s }

// askingTick says the tick must leave Tree.NextWake at epoch+d.
func (s playStep) askingTick(d time.Duration) playStep { s.wakeAt = &d; return s }

// playCase is one row of a specification table played step by step.
type playCase struct {
	name   string
	reg    func(*eventLog) *Registry // nil: testRegistry
	tree   *NodeSpec
	bb     map[string]any
	steps  []playStep
	wantBB map[string]any
	check  func(t *testing.T, tree *Tree)
}

func runPlayCases(t *testing.T, cases []playCase) {
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
				if err := tree.Blackboard().Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			for i, s := range tc.steps {
				clock.Advance(s.advance)
				for k, v := range s.set {
					if err := tree.Blackboard().Set(k, v); err != nil {
						t.Fatalf("step %d: %v", i+1, err)
					}
				}
				if s.halt {
					tree.Halt()
					checkEvents(t, i, log.take(), s.events)
					for _, n := range tree.Nodes() {
						if st := NodeOf(n).Status(); st != Idle {
							t.Errorf("step %d: after halt %s is %v, want IDLE", i+1, NodeOf(n).Path(), st)
						}
					}
					continue
				}
				tree.NextWake() // forget earlier requests
				got, err := tree.TickExactlyOnce()
				ev := log.take()
				switch {
				case s.err != "" && err == nil:
					t.Errorf("step %d: no error, want one containing %q (status %v)", i+1, s.err, got)
				case s.err != "" && !strings.Contains(err.Error(), s.err):
					t.Errorf("step %d: error %q, want it to contain %q", i+1, err, s.err)
				case s.err == "" && err != nil:
					t.Fatalf("step %d: %v", i+1, err)
				case s.err == "" && got != s.want:
					t.Errorf("step %d: status %v, want %v (events %v)", i+1, got, s.want, ev)
				}
				checkEvents(t, i, ev, s.events)
				if s.wake != nil {
					select {
					case <-tree.WakeC():
						if !*s.wake {
							t.Errorf("step %d: the tick asked for a wake-up", i+1)
						}
					default:
						if *s.wake {
							t.Errorf("step %d: the tick did not ask for a wake-up", i+1)
						}
					}
				}
				if s.wakeAt != nil {
					at, ok := tree.NextWake()
					if want := testEpoch.Add(*s.wakeAt); !ok || !at.Equal(want) {
						t.Errorf("step %d: NextWake %v (%v), want %v", i+1, at.Sub(testEpoch), ok, *s.wakeAt)
					}
				}
			}
			for k, want := range tc.wantBB {
				got, ok := tree.Blackboard().Get(k)
				if !ok {
					t.Errorf("blackboard %q missing, want %v", k, want)
				} else if fmt.Sprintf("%v %T", got, got) != fmt.Sprintf("%v %T", want, want) {
					t.Errorf("blackboard %q = %v (%T), want %v (%T)", k, got, got, want, want)
				}
			}
			if tc.check != nil {
				tc.check(t, tree)
			}
		})
	}
}

func checkEvents(t *testing.T, i int, got []string, want string) {
	t.Helper()
	if want == "*" {
		return
	}
	if g, w := strings.Join(got, " "), strings.Join(strings.Fields(want), " "); g != w {
		t.Errorf("step %d: events %q, want %q", i+1, g, w)
	}
}

// buildWith builds one tree from root against reg with a manual clock.
func buildWith(t testing.TB, reg *Registry, root *NodeSpec) (*Tree, *ManualClock) {
	t.Helper()
	clock := NewManualClock(testEpoch)
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
	tree, err := Build(reg, doc, BuildConf{Clock: clock, Seed: 42})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return tree, clock
}

// decoBuildError is a tree that must not build, and the error it gets.
type decoBuildError struct {
	name string
	tree *NodeSpec
	want string
}

func runDecoBuildErrors(t *testing.T, cases []decoBuildError) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: tc.tree}}}
			_, err := Build(testRegistry(&eventLog{}), doc, BuildConf{Clock: NewManualClock(testEpoch)})
			if err == nil {
				t.Fatalf("built; want error %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// timed is a tick after the clock moved by d.
func timed(d time.Duration, want Status, events string) tickCase {
	return tickCase{advance: d, want: want, events: strings.Fields(events)}
}

// TestDecoratorsResetCompletedChild: every decorator leaves a child that
// completed IDLE, as BehaviorTree.CPP's DecoratorNode does after each tick.
func TestDecoratorsResetCompletedChild(t *testing.T) {
	for _, spec := range []*NodeSpec{
		N("Inverter", nil, S("A", "S")),
		N("ForceSuccess", nil, S("A", "F")),
		N("ForceFailure", nil, S("A", "S")),
		N("Repeat", A("num_cycles", "1"), S("A", "S")),
		N("RetryUntilSuccessful", A("num_attempts", "1"), S("A", "F")),
		N("KeepRunningUntilFailure", nil, S("A", "S")),
		N("Timeout", A("msec", "100"), S("A", "S")),
		N("RunOnce", nil, S("A", "S")),
		N("Precondition", A("if", "true"), S("A", "S")),
		N("SkipUnlessUpdated", A("entry", "k"), S("A", "S")),
		N("WaitValueUpdate", A("entry", "k"), S("A", "S")),
		N("UntilSuccess", nil, S("A", "F")),
		N("UntilFailure", nil, S("A", "S")),
		N("Cooldown", A("period", "1s"), S("A", "S")),
		N("Limit", A("max_runs", "1"), S("A", "S")),
		N("RateController", nil, S("A", "S")),
	} {
		t.Run(spec.Type, func(t *testing.T) {
			log := &eventLog{}
			tree, _ := buildTest(t, spec, log)
			if err := tree.Blackboard().Set("k", 1); err != nil {
				t.Fatal(err)
			}
			if _, err := tree.TickExactlyOnce(); err != nil {
				t.Fatal(err)
			}
			if got := log.take(); len(got) != 1 || got[0] != "A" {
				t.Fatalf("events %v, want the child ticked once", got)
			}
			child := NodeOf(tree.Root()).Children()[0]
			if st := NodeOf(child).Status(); st != Idle {
				t.Errorf("child is %v after completing, want IDLE", st)
			}
		})
	}
}

// TestDecoratorsHaltRunningChild: halting any decorator halts its RUNNING
// child and leaves the whole tree IDLE.
func TestDecoratorsHaltRunningChild(t *testing.T) {
	var cases []nodeCase
	for _, spec := range []*NodeSpec{
		N("Inverter", nil, S("A", "R")),
		N("ForceSuccess", nil, S("A", "R")),
		N("ForceFailure", nil, S("A", "R")),
		N("Repeat", A("num_cycles", "2"), S("A", "R")),
		N("RetryUntilSuccessful", A("num_attempts", "2"), S("A", "R")),
		N("KeepRunningUntilFailure", nil, S("A", "R")),
		N("Timeout", A("msec", "100"), S("A", "R")),
		N("RunOnce", nil, S("A", "R")),
		N("Precondition", A("if", "true"), S("A", "R")),
		N("UntilSuccess", nil, S("A", "R")),
		N("UntilFailure", nil, S("A", "R")),
		N("Cooldown", A("period", "1s"), S("A", "R")),
		N("Limit", A("max_runs", "1"), S("A", "R")),
		N("RateController", nil, S("A", "R")),
	} {
		cases = append(cases, nodeCase{
			name: spec.Type, tree: spec,
			ticks: ticks(Running, "A"),
			halt:  true, after: []string{"A!"},
		})
	}
	runNodeCases(t, cases)
}
