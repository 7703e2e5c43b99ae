package runtime

// Inverter ticks its child and swaps SUCCESS and FAILURE.
//
//	Inverter
//	└── BatteryLow   SUCCESS → FAILURE, FAILURE → SUCCESS
//
// Contract (BehaviorTree.CPP v4 Inverter):
//   - the Inverter becomes RUNNING, then ticks its child;
//   - SUCCESS resets the child and returns FAILURE; FAILURE resets the
//     child and returns SUCCESS;
//   - RUNNING and SKIPPED are returned as they are (after a SKIPPED child
//     the Inverter itself stays RUNNING, as in BT.CPP);
//   - halting halts the child.
type Inverter struct{ Base }

func inverterTypes() []NodeType {
	return []NodeType{{
		ID: "Inverter", Kind: DecoratorKind,
		Summary: "Returns FAILURE when its child succeeds and SUCCESS when it fails.",
		New:     func(*Config) (Node, error) { return &Inverter{}, nil },
	}}
}

// Tick ticks the child and inverts a completed status.
func (n *Inverter) Tick() (Status, error) {
	n.setStatus(Running)
	child := n.children[0]
	cb := child.base()
	st, err := execute(child, cb)
	if err != nil {
		return st, err
	}
	switch st {
	case Success:
		n.SetReason("inverted the child's SUCCESS")
		cb.setStatus(Idle) // reset: a completed child is not running
		return Failure, nil
	case Failure:
		n.SetReason("inverted the child's FAILURE")
		cb.setStatus(Idle)
		return Success, nil
	case Running, Skipped:
		return st, nil
	}
	return Failure, errChildIdle
}
