package runtime

import "errors"

// SequenceWithMemory ticks its children in order while they succeed and,
// when one fails, remembers it: the next tick retries the child that failed
// instead of starting over.
//
//	SequenceWithMemory
//	├── A   SUCCESS in an earlier tick → not ticked again
//	├── B   FAILURE → SequenceWithMemory returns FAILURE; the next tick retries B
//	└── C
//
// Contract (BehaviorTree.CPP 4.10 SequenceWithMemory):
//   - a child's SUCCESS or SKIPPED moves on to the next child;
//   - a child that succeeded in the tick it started (it was IDLE before) and
//     is not the last makes SequenceWithMemory return RUNNING and ask for an
//     immediate tick, exactly as AsyncSequence does: BT.CPP 4.10 yields there
//     whenever the tree has a wake-up signal, and every tree has one;
//   - RUNNING returns RUNNING, and the next tick resumes at that child;
//   - FAILURE halts the failing child and every child after it, leaves the
//     children before it untouched (they are not ticked again) and returns
//     FAILURE; the next tick resumes at the child that failed;
//   - when all children are done they are reset and SequenceWithMemory
//     returns SUCCESS, or SKIPPED if every child was skipped;
//   - a halt halts the running child but keeps the position, as BT.CPP
//     4.10 does: the next tick resumes at the child that was running.
type SequenceWithMemory struct {
	Base
	current int
	skipped int
}

func sequenceWithMemoryTypes() []NodeType {
	return []NodeType{{
		ID: "SequenceWithMemory", Kind: ControlKind,
		Summary: "A Sequence that, after a failure, retries the failed child instead of starting over.",
		New:     func(*Config) (Node, error) { return &SequenceWithMemory{}, nil },
	}}
}

// Tick runs the children from the remembered one on.
func (n *SequenceWithMemory) Tick() (Status, error) {
	count := len(n.children)
	if !n.status.Active() {
		n.skipped = 0
	}
	n.setStatus(Running)
	for n.current < count {
		child := n.children[n.current]
		prev := child.base().status
		st, err := Execute(child)
		if err != nil {
			return st, err
		}
		switch st {
		case Running:
			return Running, nil
		case Failure:
			n.HaltChildren(n.current)
			return Failure, nil
		case Success:
			n.current++
			if prev == Idle && n.current < count {
				n.tree.Wake()
				return Running, nil
			}
		case Skipped:
			n.current++
			n.skipped++
		default:
			return Failure, errors.New("a child returned IDLE")
		}
	}
	allSkipped := n.skipped == count
	n.ResetChildren()
	n.current, n.skipped = 0, 0
	if allSkipped {
		return Skipped, nil
	}
	return Success, nil
}

// Halt halts the running child and keeps the position (see the contract).
func (n *SequenceWithMemory) Halt() { n.ResetChildren() }
