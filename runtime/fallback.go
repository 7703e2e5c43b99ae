package runtime

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
type Fallback struct{ inOrder }

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
			New:     func(*Config) (Node, error) { return &Fallback{inOrder{async: true}}, nil },
		},
	}
}

// Tick runs the children from the current one on while they fail.
func (n *Fallback) Tick() (Status, error) { return n.tick(Failure) }

// failedAlternatives: the children that failed before the last one.
func (n *Fallback) failedAlternatives(decisive Node) [][]Cause {
	return failedChildren(&n.Base, decisive)
}
