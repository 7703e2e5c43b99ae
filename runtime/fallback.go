package runtime

import "errors"

// Fallback ticks its children in order until one succeeds: the first
// alternative that works wins.
//
//	Fallback
//	├── A   FAILURE → go on to B in the same tick
//	├── B   RUNNING → Fallback is RUNNING; the next tick resumes at B
//	└── C
//
// Contract (BehaviorTree.CPP v4 Fallback and AsyncFallback):
//   - a child's FAILURE or SKIPPED moves on to the next child;
//   - RUNNING returns RUNNING, and the next tick resumes at that child
//     (children before it are not ticked again);
//   - SUCCESS resets every child and returns SUCCESS (the next tick starts
//     again at the first child);
//   - when all children are done, they are reset and the Fallback returns
//     FAILURE, or SKIPPED if every child was skipped.
//
// AsyncFallback returns RUNNING after each child that failed in the tick it
// started, and asks for an immediate tick: a long chain of quick
// alternatives gives the loop a chance to halt it between any two.
type Fallback struct {
	Base
	async   bool
	current int
	skipped int
}

func fallbackTypes() []NodeType {
	return []NodeType{
		{
			ID: "Fallback", Kind: ControlKind,
			Summary: "Ticks children in order until one succeeds; resumes at a RUNNING child.",
			New:     func(*Config) (Node, error) { return &Fallback{}, nil },
		},
		{
			ID: "AsyncFallback", Kind: ControlKind,
			Summary: "A Fallback that yields (RUNNING, with a wake-up) after each child that fails at once.",
			New:     func(*Config) (Node, error) { return &Fallback{async: true}, nil },
		},
	}
}

// Tick runs the children from the current one on.
func (n *Fallback) Tick() (Status, error) {
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
		case Success:
			n.ResetChildren()
			n.current = 0
			return Success, nil
		case Failure:
			n.current++
			if n.async && prev == Idle && n.current < count {
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
	return Failure, nil
}

// Halt rewinds to the first child and halts the running one.
func (n *Fallback) Halt() {
	n.current, n.skipped = 0, 0
	n.ResetChildren()
}
