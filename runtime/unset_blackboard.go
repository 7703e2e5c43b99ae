package runtime

// UnsetBlackboard removes an entry from the blackboard and returns SUCCESS.
//
//	<UnsetBlackboard key="goal"/>
//
// Contract (BehaviorTree.CPP v4 UnsetBlackboard): key is the name of the
// entry, read as a string (key="{k}" removes the entry whose name k
// holds); removing a missing entry is not an error.
//
// As BT.CPP's Blackboard::unset, it removes only an entry held by the
// node's own blackboard scope: inside a subtree, a key remapped to the
// caller's scope, a key reached by _autoremap, and an '@' key are left
// untouched (the node still succeeds).
type UnsetBlackboard struct{ Base }

func unsetBlackboardTypes() []NodeType {
	return []NodeType{{
		ID: "UnsetBlackboard", Kind: ActionKind,
		Summary: "Removes the blackboard entry key; SUCCESS.",
		Ports:   []PortSpec{InputPort[string]("key", "Key of the entry to remove").AsEntryName()},
		New:     func(*Config) (Node, error) { return &UnsetBlackboard{}, nil },
	}}
}

// Tick removes the entry.
func (n *UnsetBlackboard) Tick() (Status, error) {
	key, err := GetInput[string](n, "key")
	if err != nil {
		return Failure, err
	}
	n.bb.Unset(key)
	return Success, nil
}
