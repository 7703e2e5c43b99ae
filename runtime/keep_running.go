package runtime

// KeepRunningUntilFailure ticks its child again and again, one run per
// tick, and stays RUNNING until the child fails.
//
//	KeepRunningUntilFailure
//	└── FollowPerson   SUCCESS → RUNNING (again next tick), FAILURE → FAILURE
//
// Contract (BehaviorTree.CPP v4 KeepRunningUntilFailure):
//   - the node becomes RUNNING, then ticks its child;
//   - SUCCESS resets the child and returns RUNNING (no wake-up: the next
//     run waits for the next tick);
//   - FAILURE resets the child and returns FAILURE;
//   - RUNNING returns RUNNING;
//   - a SKIPPED child makes it return its own status, RUNNING, as BT.CPP
//     does;
//   - halting halts the child.
type KeepRunningUntilFailure struct{ Base }

func keepRunningTypes() []NodeType {
	return []NodeType{{
		ID: "KeepRunningUntilFailure", Kind: DecoratorKind,
		Summary: "Runs its child again on every tick while it succeeds; returns FAILURE when it fails.",
		New:     func(*Config) (Node, error) { return &KeepRunningUntilFailure{}, nil },
	}}
}

// Tick ticks the child and keeps running after a success.
func (n *KeepRunningUntilFailure) Tick() (Status, error) {
	n.setStatus(Running)
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	switch st {
	case Failure:
		n.SetReason("the child failed")
		n.HaltChild(0)
		return Failure, nil
	case Success:
		n.HaltChild(0)
		return Running, nil
	}
	return n.status, nil
}
