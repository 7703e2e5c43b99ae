package runtime

// ForceSuccess and ForceFailure tick their child and, once it completes,
// return a fixed status whatever the child returned.
//
//	ForceSuccess
//	└── ClearCostmap   SUCCESS or FAILURE → SUCCESS
//
// Contract (BehaviorTree.CPP v4 ForceSuccess and ForceFailure):
//   - the node becomes RUNNING, then ticks its child;
//   - a completed child (SUCCESS or FAILURE) is reset and the node returns
//     SUCCESS (ForceSuccess) or FAILURE (ForceFailure);
//   - RUNNING and SKIPPED are returned as they are;
//   - halting halts the child.
type Force struct {
	Base
	result Status
}

var forcedReason = map[Status]string{
	Success: "forced; the child returned SUCCESS",
	Failure: "forced; the child returned FAILURE",
}

func forceTypes() []NodeType {
	return []NodeType{
		{
			ID: "ForceSuccess", Kind: DecoratorKind,
			Summary: "Returns SUCCESS once its child completes, whatever the child returned.",
			New:     func(*Config) (Node, error) { return &Force{result: Success}, nil },
		},
		{
			ID: "ForceFailure", Kind: DecoratorKind,
			Summary: "Returns FAILURE once its child completes, whatever the child returned.",
			New:     func(*Config) (Node, error) { return &Force{result: Failure}, nil },
		},
	}
}

// Tick ticks the child and replaces a completed status.
func (n *Force) Tick() (Status, error) {
	n.setStatus(Running)
	child := n.children[0]
	st, err := execute(child, child.base())
	if err != nil {
		return st, err
	}
	if st.Completed() {
		if st != n.result {
			n.SetReason(forcedReason[st])
		}
		n.HaltChild(0)
		return n.result, nil
	}
	return st, nil
}
