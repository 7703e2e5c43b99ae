package runtime

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// Sequence ticks its children in order while they succeed.
//
//	Sequence
//	├── A   SUCCESS → go on to B in the same tick
//	├── B   RUNNING → Sequence is RUNNING; the next tick resumes at B
//	└── C
//
// Contract (BehaviorTree.CPP v4 Sequence and AsyncSequence):
//   - a child's SUCCESS or SKIPPED moves on to the next child;
//   - RUNNING returns RUNNING, and the next tick resumes at that child
//     (children before it are not ticked again);
//   - FAILURE resets every child and returns FAILURE (the next tick starts
//     again at the first child);
//   - when all children are done, they are reset and the Sequence returns
//     SUCCESS, or SKIPPED if every child was skipped.
//
// AsyncSequence returns RUNNING after each child that succeeded in the tick
// it started, and asks for an immediate tick: a long chain of quick
// children gives the loop a chance to halt it between any two.
type Sequence struct{ inOrder }

func sequenceTypes() []NodeType {
	return []NodeType{
		{
			ID: "Sequence", Kind: ControlKind,
			Summary: "Ticks children in order while they succeed; resumes at a RUNNING child.",
			New:     func(*Config) (Node, error) { return &Sequence{}, nil },
		},
		{
			ID: "AsyncSequence", Kind: ControlKind,
			Summary: "A Sequence that yields (RUNNING, with a wake-up) after each child that succeeds at once.",
			New:     func(*Config) (Node, error) { return &Sequence{inOrder{async: true}}, nil },
		},
	}
}

// Tick runs the children from the current one on while they succeed.
func (n *Sequence) Tick() (Status, error) { return n.tick(Success) }

// inOrder is the walk Sequence and Fallback share, mirror images of each
// other: children are ticked in order while they return goOn (SUCCESS for
// a Sequence, FAILURE for a Fallback); the other completed status ends the
// walk and is returned.
type inOrder struct {
	Base
	async   bool
	current int
	skipped int
}

func (n *inOrder) tick(goOn Status) (Status, error) {
	count := len(n.children)
	if !n.status.Active() {
		n.skipped = 0
	}
	n.setStatus(Running)
	for n.current < count {
		child := n.children[n.current]
		cb := child.base()
		prev := cb.status
		st, err := execute(child, cb)
		if err != nil {
			return st, err
		}
		switch st {
		case Running:
			return Running, nil
		case goOn:
			n.current++
			if n.async && prev == Idle && n.current < count {
				n.tree.Wake()
				return Running, nil
			}
		case Skipped:
			n.current++
			n.skipped++
		case Success, Failure:
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("child %d of %d %s", n.current+1, count, pastTense(st)))
			}
			n.ResetChildren()
			n.current = 0
			return st, nil
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
	if goOn == Failure && n.Explaining() {
		n.SetReason(fmt.Sprintf("all %d %s failed", count, english.Plural(count, "child", "children")))
	}
	return goOn, nil
}

// pastTense is what a child that returned st did, for reasons.
func pastTense(st Status) string {
	switch st {
	case Success:
		return "succeeded"
	case Failure:
		return "failed"
	case Skipped:
		return "was skipped"
	}
	return "returned " + st.String()
}

// Halt rewinds to the first child and halts the running one.
func (n *inOrder) Halt() {
	n.current, n.skipped = 0, 0
	n.ResetChildren()
}
