package runtime

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// ReactiveSequence ticks every child from the first on each tick, so that
// conditions in front of a long action are checked again while it runs.
//
//	ReactiveSequence
//	├── BatteryOK   ticked every tick; FAILURE halts NavigateTo
//	└── NavigateTo  RUNNING
//
// Contract (BehaviorTree.CPP 4.10 ReactiveSequence):
//   - every tick starts at the first child; SUCCESS moves on to the next;
//   - RUNNING halts every other child (in child order; those that finished
//     this tick are only reset) and returns RUNNING;
//   - FAILURE halts the running children, resets all and returns FAILURE;
//   - SKIPPED moves on (the child is reset so that it may be skipped again);
//   - when every child succeeded or was skipped, all are reset and the node
//     returns SUCCESS, or SKIPPED if every child was skipped.
//
// As in BehaviorTree.CPP, a tree whose ReactiveSequence has more than one
// AsyncSequence child is rejected when it is built. BT.CPP's optional
// exception when two different children return RUNNING in one activation
// (ReactiveSequence::EnableException, off by default) is not offered.
type ReactiveSequence struct{ Base }

func reactiveSequenceTypes() []NodeType {
	return []NodeType{{
		ID: "ReactiveSequence", Kind: ControlKind,
		Summary: "Ticks all children from the first on every tick while they succeed; halts the others when one runs.",
		New: func(c *Config) (Node, error) {
			if err := checkAsyncChildren(c); err != nil {
				return nil, err
			}
			return &ReactiveSequence{}, nil
		},
	}}
}

// checkAsyncChildren rejects what BehaviorTree.CPP's loader rejects: a
// ReactiveSequence with more than one AsyncSequence child, whose
// interleaved yields a reactive parent would keep halting.
func checkAsyncChildren(c *Config) error {
	if c.spec == nil {
		return nil
	}
	async := 0
	for _, ch := range c.spec.Children {
		if ch.Type == "AsyncSequence" {
			async++
		}
	}
	if async > 1 {
		return fmt.Errorf("a ReactiveSequence may have at most one asynchronous child, this one has %d AsyncSequence children (BehaviorTree.CPP rejects this tree too); use Sequence for all but one", async)
	}
	return nil
}

// Tick runs the children from the first while they succeed.
func (n *ReactiveSequence) Tick() (Status, error) { return tickReactive(&n.Base, Success) }

// tickReactive is the walk ReactiveSequence and ReactiveFallback share,
// mirror images of each other: every tick starts again at the first child
// and goes on while children return goOn (SUCCESS, resp. FAILURE); a
// RUNNING child halts every other one, the other completed status resets
// all children and is returned.
func tickReactive(n *Base, goOn Status) (Status, error) {
	allSkipped := true
	n.setStatus(Running)
	for i, child := range n.children {
		st, err := execute(child, child.base())
		if err != nil {
			return st, err
		}
		allSkipped = allSkipped && st == Skipped
		switch st {
		case Running:
			for j := range n.children {
				if j != i {
					n.HaltChild(j)
				}
			}
			return Running, nil
		case goOn:
		case Skipped:
			n.HaltChild(i)
		case Success, Failure:
			if n.Explaining() {
				n.SetReason(reactiveReason(n, i, st))
			}
			n.ResetChildren()
			return st, nil
		default:
			return Failure, errors.New("a child returned IDLE")
		}
	}
	n.ResetChildren()
	if allSkipped {
		return Skipped, nil
	}
	if goOn == Failure && n.Explaining() {
		n.SetReason(fmt.Sprintf("all %d %s failed", len(n.children), english.Plural(len(n.children), "child", "children")))
	}
	return goOn, nil
}

// reactiveReason says which child ended a reactive node's walk and which
// running children that interrupts (they are halted next).
func reactiveReason(n *Base, i int, st Status) string {
	return fmt.Sprintf("child %d of %d %s", i+1, len(n.children), pastTense(st)) + haltsRunning(n)
}
