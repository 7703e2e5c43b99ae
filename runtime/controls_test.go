package runtime

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Helpers shared by the control nodes' tests, beside harness_test.go's
// runNodeCases: scripted runs that change the blackboard or halt between
// ticks, and build-error assertions.

// step is one operation of runSteps: write the blackboard entries in set,
// then halt the tree (halt) or tick it once, and expect the Step events and,
// for a tick, the root status or the exact error.
type step struct {
	set    map[string]any
	halt   bool
	want   Status
	events string
	err    string
}

// tk is a tick step.
func tk(want Status, events string) step { return step{want: want, events: events} }

// haltStep halts the tree and expects events.
func haltStep(events string) step { return step{halt: true, events: events} }

// runSteps builds root (seed 42, manual clock) and plays steps on it.
func runSteps(t *testing.T, root *NodeSpec, bb map[string]any, steps ...step) *Tree {
	t.Helper()
	log := &eventLog{}
	tree, _ := buildTest(t, root, log)
	for k, v := range bb {
		if err := tree.Blackboard().Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range steps {
		for k, v := range s.set {
			if err := tree.Blackboard().Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		if s.halt {
			tree.Halt()
			if ev := strings.Join(log.take(), " "); ev != s.events {
				t.Errorf("step %d (halt): events %q, want %q", i+1, ev, s.events)
			}
			for _, n := range tree.Nodes() {
				if st := NodeOf(n).Status(); st != Idle {
					t.Errorf("step %d: after halt %s is %v, want IDLE", i+1, NodeOf(n).Path(), st)
				}
			}
			continue
		}
		got, err := tree.TickExactlyOnce()
		ev := strings.Join(log.take(), " ")
		switch {
		case s.err != "":
			if err == nil || err.Error() != s.err {
				t.Errorf("step %d: error %v, want %q", i+1, err, s.err)
			}
		case err != nil:
			t.Fatalf("step %d: %v", i+1, err)
		case got != s.want:
			t.Errorf("step %d: status %v, want %v (events %q)", i+1, got, s.want, ev)
		}
		if ev != s.events {
			t.Errorf("step %d: events %q, want %q", i+1, ev, s.events)
		}
	}
	return tree
}

// buildError builds root and returns the error text, failing if it builds.
func buildError(t *testing.T, root *NodeSpec) string {
	t.Helper()
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
	_, err := Build(testRegistry(&eventLog{}), doc, BuildConf{Clock: NewManualClock(testEpoch), Seed: 42})
	if err == nil {
		t.Fatalf("built; want an error")
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T %v; want an ErrorList", err, err)
	}
	return err.Error()
}

// buildErrorCase is one tree that must not build, and the exact error.
type buildErrorCase struct {
	name string
	tree *NodeSpec
	want string
}

func runBuildErrors(t *testing.T, cases []buildErrorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := buildError(t, c.tree); got != c.want {
				t.Errorf("error\n  %s\nwant\n  %s", got, c.want)
			}
		})
	}
}

// C is a control node of type typ with attributes given as name, value pairs.
func C(typ string, attrs []string, children ...*NodeSpec) *NodeSpec {
	return N(typ, A(attrs...), children...)
}

func TestControlTypesRegistered(t *testing.T) {
	reg := NewRegistry()
	want := []string{
		"Sequence", "AsyncSequence", "SequenceWithMemory", "ReactiveSequence",
		"Fallback", "AsyncFallback", "ReactiveFallback", "Parallel", "ParallelAll",
		"IfThenElse", "WhileDoElse", "Switch2", "Switch3", "Switch4", "Switch5", "Switch6",
		"TryCatch", "RandomSequence", "RandomSelector", "WeightedSelector",
	}
	var got []string
	for _, typ := range controlTypes() {
		got = append(got, typ.ID)
		rt, ok := reg.Lookup(typ.ID)
		if !ok {
			t.Errorf("%s is not in NewRegistry()", typ.ID)
			continue
		}
		if rt.Kind != ControlKind || rt.Category != "control" {
			t.Errorf("%s: kind %v category %q, want Control/control", typ.ID, rt.Kind, rt.Category)
		}
		if rt.Summary == "" {
			t.Errorf("%s has no summary", typ.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("controlTypes() = %v\nwant %v", got, want)
	}
}
