package runtime

import "errors"

// WhileDoElse is the reactive IfThenElse: the condition (first child) is
// ticked on every tick, and when its answer changes the running branch is
// halted before the other one starts.
//
//	WhileDoElse
//	├── BatteryOK   ticked every tick
//	├── Patrol      while it succeeds
//	└── GoCharge    (optional) while it fails; Patrol is halted first
//
// Contract (BehaviorTree.CPP 4.10 WhileDoElse), with two or three children:
//   - the condition RUNNING returns RUNNING, and the branches are left as
//     they are (a running branch is neither ticked nor halted);
//   - the condition's SUCCESS halts the third child, then ticks the second;
//     its FAILURE halts the second, then ticks the third; with only two
//     children a FAILURE of the condition resets all and returns FAILURE;
//   - the branch RUNNING returns RUNNING; otherwise every child is reset
//     and the branch's status (SUCCESS, FAILURE or SKIPPED) is returned;
//   - a SKIPPED condition is an error, as in BT.CPP (whose node then
//     returns IDLE, which its engine rejects).
type WhileDoElse struct{ Base }

func whileDoElseTypes() []NodeType {
	return []NodeType{{
		ID: "WhileDoElse", Kind: ControlKind,
		Summary:     "Reactive IfThenElse: ticks the condition every tick and switches branch, halting the other, when it changes.",
		MinChildren: 2, MaxChildren: 3,
		New: func(*Config) (Node, error) { return &WhileDoElse{}, nil },
	}}
}

// Tick ticks the condition, then the branch it chooses.
func (n *WhileDoElse) Tick() (Status, error) {
	n.setStatus(Running)
	cond, err := Execute(n.children[0])
	if err != nil {
		return cond, err
	}
	var st Status
	switch cond {
	case Running:
		return Running, nil
	case Success:
		if len(n.children) == 3 {
			n.HaltChild(2)
		}
		if st, err = Execute(n.children[1]); err != nil {
			return st, err
		}
	case Failure:
		if len(n.children) < 3 {
			n.SetReason("the condition failed; no else branch")
			st = Failure
			break
		}
		n.HaltChild(1)
		if st, err = Execute(n.children[2]); err != nil {
			return st, err
		}
	default:
		n.ResetChildren()
		return Failure, errors.New("the condition (first child) returned SKIPPED; a WhileDoElse condition must succeed or fail (in BehaviorTree.CPP the node then returns IDLE, which is an error too)")
	}
	if st == Running {
		return Running, nil
	}
	n.ResetChildren()
	return st, nil
}
