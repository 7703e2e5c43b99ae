package runtime

import (
	"errors"
	"fmt"
)

// TryCatch runs its children but the last as a Sequence (the try block);
// if one of them fails, it runs the last child (the catch block) to clean
// up, and fails.
//
//	TryCatch
//	├── OpenGripper   try block: in order, while they succeed
//	├── Grasp         FAILURE → halt the try block, tick ReleaseAll
//	└── ReleaseAll    catch block: its own result is ignored
//
// Contract (BehaviorTree.CPP 4.10 TryCatch, which it has since 4.9):
//   - try children run as in a Sequence: SUCCESS or SKIPPED moves on,
//     RUNNING returns RUNNING and is resumed on the next tick;
//   - when every try child succeeded or was skipped, all children are reset
//     and TryCatch returns SUCCESS, or SKIPPED if every try child was
//     skipped; the catch child is not ticked;
//   - a try child's FAILURE resets every child and ticks the catch child in
//     the same tick; while the catch child is RUNNING TryCatch returns
//     RUNNING (and ticks only it); when it ends, with whatever status, all
//     children are reset and TryCatch returns FAILURE;
//   - port catch_on_halt (default false): when true and TryCatch is halted
//     while its try block runs, the try children are halted, then the catch
//     child is ticked once, and halted if it returns RUNNING (cleanup during
//     a halt is best effort and cannot wait); a halt during the catch block
//     just halts it;
//   - at least two children, checked when the tree is built.
type TryCatch struct {
	Base
	current int
	skipped int
	inCatch bool
}

func tryCatchTypes() []NodeType {
	return []NodeType{{
		ID: "TryCatch", Kind: ControlKind,
		Summary: "Runs all children but the last as a Sequence; if one fails, runs the last child to clean up and fails.",
		Ports: []PortSpec{
			InputPort[bool]("catch_on_halt", "also run the catch child when the node is halted during the try block").WithDefault("false"),
		},
		MinChildren: 2, MaxChildren: Unbounded,
		New: func(*Config) (Node, error) { return &TryCatch{}, nil },
	}}
}

// Tick runs the try block, or the catch block once it has started.
func (n *TryCatch) Tick() (Status, error) {
	if !n.status.Active() {
		n.skipped = 0
		n.inCatch = false
	}
	n.setStatus(Running)
	tries := len(n.children) - 1
	for !n.inCatch && n.current < tries {
		st, err := Execute(n.children[n.current])
		if err != nil {
			return st, err
		}
		switch st {
		case Running:
			return Running, nil
		case Failure:
			n.ResetChildren()
			n.current = 0
			n.inCatch = true
		case Success:
			n.current++
		case Skipped:
			n.current++
			n.skipped++
		default:
			return Failure, errors.New("a child returned IDLE")
		}
	}
	if n.inCatch {
		st, err := Execute(n.children[tries])
		if err != nil {
			return st, err
		}
		if st == Running {
			return Running, nil
		}
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("a try failed; the catch %s", pastTense(st)))
		}
		n.ResetChildren()
		n.current = 0
		n.inCatch = false
		return Failure, nil
	}
	allSkipped := n.skipped == tries
	n.ResetChildren()
	n.current, n.skipped = 0, 0
	if allSkipped {
		return Skipped, nil
	}
	return Success, nil
}

// Halt halts the running child; with catch_on_halt it first gives the catch
// child one tick to clean up (see the contract).
func (n *TryCatch) Halt() {
	catchOnHalt, err := GetInputOr(n, "catch_on_halt", false)
	if err != nil {
		n.tree.recordHaltError(n.wrap(err))
		catchOnHalt = false
	}
	if catchOnHalt && !n.inCatch && n.status.Active() {
		last := len(n.children) - 1
		for i := 0; i < last; i++ {
			n.HaltChild(i)
		}
		st, err := Execute(n.children[last])
		if err != nil {
			n.tree.recordHaltError(err)
		}
		if st == Running {
			n.HaltChild(last)
		}
	}
	n.current, n.skipped, n.inCatch = 0, 0, false
	n.ResetChildren()
}
