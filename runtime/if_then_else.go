package runtime

import "errors"

// IfThenElse ticks its first child as a condition, then the second child
// if it succeeded or the third if it failed. It is not reactive: once a
// branch is chosen, the condition is not ticked again until the branch ends.
//
//	IfThenElse
//	├── DoorOpen    SUCCESS → tick GoThrough (and only it, until it ends)
//	├── GoThrough
//	└── OpenDoor    (optional) ticked when DoorOpen fails
//
// Contract (BehaviorTree.CPP 4.10 IfThenElse), with two or three children:
//   - the condition RUNNING returns RUNNING (ticked again next time);
//   - the condition's SUCCESS ticks the second child, its FAILURE the third
//     in the same tick; with only two children a FAILURE of the condition is
//     returned as it is (without resetting the condition child, as BT.CPP);
//   - the chosen branch RUNNING returns RUNNING and the next tick resumes it;
//     otherwise all children are reset and its status (SUCCESS, FAILURE or
//     SKIPPED) is returned;
//   - a SKIPPED condition is an error, as in BT.CPP (which throws): the
//     condition of an IfThenElse must decide.
type IfThenElse struct {
	Base
	branch int // 0 while the condition decides; 1 or 2 once chosen
}

func ifThenElseTypes() []NodeType {
	return []NodeType{{
		ID: "IfThenElse", Kind: ControlKind,
		Summary:     "Ticks the first child as a condition, then the second child on SUCCESS or the third on FAILURE.",
		MinChildren: 2, MaxChildren: 3,
		New: func(*Config) (Node, error) { return &IfThenElse{}, nil },
	}}
}

// Tick ticks the condition or the chosen branch.
func (n *IfThenElse) Tick() (Status, error) {
	n.setStatus(Running)
	if n.branch == 0 {
		st, err := Execute(n.children[0])
		if err != nil {
			return st, err
		}
		switch st {
		case Running:
			return Running, nil
		case Success:
			n.branch = 1
		case Failure:
			if len(n.children) < 3 {
				n.SetReason("the condition failed; no else branch")
				return Failure, nil
			}
			n.branch = 2
		default:
			return Failure, errors.New("the condition (first child) returned SKIPPED; an IfThenElse condition must succeed or fail (BehaviorTree.CPP throws here too)")
		}
	}
	st, err := Execute(n.children[n.branch])
	if err != nil {
		return st, err
	}
	if st == Running {
		return Running, nil
	}
	n.ResetChildren()
	n.branch = 0
	return st, nil
}

// Halt forgets the chosen branch and halts it.
func (n *IfThenElse) Halt() {
	n.branch = 0
	n.ResetChildren()
}
