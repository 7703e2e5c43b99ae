package runtime

// ReactiveFallback ticks every child from the first on each tick until one
// succeeds, so that a higher-priority alternative takes over as soon as it
// can.
//
//	ReactiveFallback
//	├── AtGoal      ticked every tick; SUCCESS halts NavigateTo
//	└── NavigateTo  RUNNING
//
// Contract (BehaviorTree.CPP 4.10 ReactiveFallback):
//   - every tick starts at the first child; FAILURE moves on to the next;
//   - RUNNING halts every other child (in child order; those that finished
//     this tick are only reset) and returns RUNNING;
//   - SUCCESS halts the running children, resets all and returns SUCCESS;
//   - SKIPPED moves on (the child is reset so that it may be skipped again);
//   - when every child failed or was skipped, all are reset and the node
//     returns FAILURE, or SKIPPED if every child was skipped.
//
// BT.CPP's optional exception when two different children return RUNNING
// (ReactiveFallback::EnableException, off by default) is not offered.
type ReactiveFallback struct{ Base }

func reactiveFallbackTypes() []NodeType {
	return []NodeType{{
		ID: "ReactiveFallback", Kind: ControlKind,
		Summary: "Ticks all children from the first on every tick until one succeeds; halts the others when one runs.",
		New:     func(*Config) (Node, error) { return &ReactiveFallback{}, nil },
	}}
}

// Tick runs the children from the first while they fail.
func (n *ReactiveFallback) Tick() (Status, error) { return tickReactive(&n.Base, Failure) }

// failedAlternatives: the children that failed, in its last tick, before
// the last one.
func (n *ReactiveFallback) failedAlternatives(decisive Node) [][]Cause {
	return failedChildren(&n.Base, decisive)
}
