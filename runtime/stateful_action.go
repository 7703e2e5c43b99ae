package runtime

import (
	"errors"
	"fmt"
)

// StatefulAction is an action that spans ticks without a goroutine of its
// own, as BehaviorTree.CPP's StatefulActionNode: it starts its work in
// OnStart, checks on it in OnRunning once per tick, and stops it in
// OnHalted. Each node instance has its own StatefulAction, so the
// implementation keeps the state of one run in its fields.
//
// All three methods run on the tick's goroutine and must not block: they
// send a request, poll a result, cancel. Work that has to block belongs in
// an AsyncAction.
type StatefulAction interface {
	// OnStart is called on the tick that starts the action (the node was
	// IDLE). RUNNING makes the action asynchronous; SUCCESS, FAILURE or
	// SKIPPED finish it at once.
	OnStart(n *Leaf) (Status, error)
	// OnRunning is called on every later tick while the action is RUNNING.
	OnRunning(n *Leaf) (Status, error)
	// OnHalted is called when the action is halted while RUNNING.
	OnHalted(n *Leaf)
}

// Contract of the stateful leaf (BehaviorTree.CPP v4 StatefulActionNode):
//   - ticked while IDLE it calls OnStart, while RUNNING OnRunning, and
//     returns their status; neither may return IDLE (an error);
//   - ticked while SUCCESS or FAILURE (a parent that did not reset it) it
//     returns that status again without calling anything, as BT.CPP does;
//   - halting a RUNNING action calls OnHalted; the node is then IDLE and
//     the next tick calls OnStart;
//   - an error from OnStart or OnRunning makes the tick return it, and the
//     tree is then halted (so OnHalted runs when the action was RUNNING);
//     Fail(reason) in place of the error is FAILURE with that reason.
type statefulLogic struct{ action StatefulAction }

func (s statefulLogic) tick(n *Leaf) (Status, error) {
	var (
		st  Status
		err error
		in  string
	)
	switch n.status {
	case Idle:
		st, err = s.action.OnStart(n)
		in = "OnStart"
	case Running:
		st, err = s.action.OnRunning(n)
		in = "OnRunning"
	default:
		return n.status, nil
	}
	if err != nil {
		return failed(n, err)
	}
	if st == Idle {
		return Failure, fmt.Errorf("%s returned IDLE; it must return RUNNING, SUCCESS, FAILURE or SKIPPED", in)
	}
	return st, nil
}

func (s statefulLogic) halt(n *Leaf) {
	if n.status == Running {
		s.action.OnHalted(n)
	}
}

// NewStatefulAction returns a leaf that runs a, for a NodeType.New that
// builds its nodes itself.
func NewStatefulAction(a StatefulAction) *Leaf { return &Leaf{logic: statefulLogic{a}} }

// StatefulActionType returns the declaration of an action node type whose
// every instance runs its own StatefulAction, made by newAction when the
// tree is built. newAction may read literal ports from the Config and
// return an error to reject the tree.
func StatefulActionType(id string, ports []PortSpec, newAction func(c *Config) (StatefulAction, error)) NodeType {
	return NodeType{
		ID: id, Kind: ActionKind, Ports: ports,
		New: func(c *Config) (Node, error) {
			if newAction == nil {
				return nil, fmt.Errorf("stateful action %s has no constructor", id)
			}
			a, err := newAction(c)
			if err != nil {
				return nil, err
			}
			if a == nil {
				return nil, errors.New("the constructor returned no StatefulAction")
			}
			return NewStatefulAction(a), nil
		},
	}
}
