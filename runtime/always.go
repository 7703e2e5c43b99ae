package runtime

// AlwaysSuccess and AlwaysFailure return a fixed status on every tick, as
// BehaviorTree.CPP's AlwaysSuccess and AlwaysFailure do: placeholders
// while a tree is written, and the leaves of the engine's benchmarks.
type (
	AlwaysSuccess struct{ Base }
	AlwaysFailure struct{ Base }
)

func alwaysTypes() []NodeType {
	return []NodeType{
		{
			ID: "AlwaysSuccess", Kind: ActionKind,
			Summary: "Returns SUCCESS.",
			New:     func(*Config) (Node, error) { return &AlwaysSuccess{}, nil },
		},
		{
			ID: "AlwaysFailure", Kind: ActionKind,
			Summary: "Returns FAILURE.",
			New:     func(*Config) (Node, error) { return &AlwaysFailure{}, nil },
		},
	}
}

// Tick returns SUCCESS.
func (*AlwaysSuccess) Tick() (Status, error) { return Success, nil }

// Tick returns FAILURE.
func (*AlwaysFailure) Tick() (Status, error) { return Failure, nil }
